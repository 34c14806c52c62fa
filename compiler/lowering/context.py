"""How much consumed text the patterns can still observe, and whether one pass is exact.

Decides the parser's ``_context`` (characters of consumed text it keeps before the search
position), with its explanation for the module's comment, and whether one-shot parsing may
take a single end-of-stream pass. Both come from ``regex_syntax``:

- ``context_bound``: the most characters before the search position a match can read (its
  argument is in ``regex_syntax.context``). The parser keeps the largest bound of the
  template's patterns: searching a buffer trimmed to it gives the answers the whole buffer
  gives. Where a bound is unknown (an unbounded look-behind, a construct the reader does not
  model) or a pattern shows the regex module's end-before-start defect (``jumps_back``), the
  whole buffer is kept, as the reference keeps it;
- ``start_sensitive`` (``\\G``, ``\\K``): a match then depends on where a search starts, so one
  end-of-stream pass is not provably the same as a partial pass followed by it, except for the
  close of an explicit field that settles where it starts (``settles_where_it_starts``).
"""

from __future__ import annotations

import functools

import regex

from ..model import Field, Template
from ..regex_syntax import context_bound, parse, settles_where_it_starts, start_sensitive

# Probe texts for a defect of the regex module: some patterns searched at the very end of the
# text in partial mode report a complete match whose end lies before its start, and the
# reference then moves back to that absolute position. Reproducing it needs the whole buffer.
_PROBES = ("", "a", "xyz", "a\n1>\n> ", "hello world", "<tool_call>\n", " \n\t")


@functools.lru_cache(maxsize=256)
def jumps_back(pattern: str) -> bool:
    """Whether ``pattern`` shows the regex module's match-ending-before-its-start defect."""
    compiled = regex.compile(pattern, regex.DOTALL)
    for probe in _PROBES:
        for pos in range(len(probe) + 1):
            m = compiled.search(probe, pos, partial=True)
            if m is not None and m.end() < m.start():
                return True
    return False


def delimiter_patterns(t: Template) -> list[str]:
    """The patterns of every open and close that is not literal, in field order."""
    return [
        d.pattern for f in t.fields for d in (f.open, f.close) if d is not None and not d.is_literal
    ]


def _one_pass_holds(f: Field) -> bool:
    """Whether the field's delimiters let one end-of-stream pass stand for a partial pass and
    the end-of-stream pass after it: none depends on where a search starts, or the one that
    does is the close of an explicit field (the only delimiter watched inside it) and settles
    where it starts (``regex_syntax.context.settles_where_it_starts``)."""
    for delim, alone in ((f.open, False), (f.close, not f.implicit)):
        if delim is None or delim.is_literal:
            continue
        tree = parse(delim.pattern)
        if start_sensitive(tree) and not (alone and settles_where_it_starts(tree)):
            return False
    return True


def lower_context(t: Template) -> tuple[int | None, str, bool, bool]:
    """(context, its note for the module's comment, whether one end-of-stream pass is exact,
    whether some pattern shows the regex module's end-before-start defect)."""
    patterns = delimiter_patterns(t)
    trees = [parse(p) for p in patterns]
    jumpy = any(jumps_back(p) for p in patterns)
    exact = not jumpy and all(_one_pass_holds(f) for f in t.fields)
    bounds = [context_bound(tree) for tree in trees]
    if not patterns:
        return 0, "literal delimiters only: consumed text is never needed", exact, jumpy
    if jumpy or any(b is None for b in bounds):
        note = (
            "a pattern may look behind arbitrarily far: the whole buffer is kept "
            "(cost grows with the generation, as in the reference)"
        )
        return None, note, exact, jumpy
    context = max(b for b in bounds if b is not None)
    if context == 0:
        note = "no pattern looks before the search position: consumed text is never needed"
        return 0, note, exact, jumpy
    return context, f"patterns see at most {context} characters of consumed text", exact, jumpy
