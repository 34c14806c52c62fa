"""How much consumed text the patterns can still observe, and whether one pass is exact.

Decides ``plan.context`` (characters of consumed text a parser keeps before the search
position: 0, ``PATTERN_CONTEXT``, or None for the whole buffer, as the reference keeps it) with
its explanation for the module's comment, and ``plan.whole_pass_exact`` (whether one-shot
parsing may take a single end-of-stream pass).
"""

from __future__ import annotations

import functools

import regex

from ..model import Template
from ..plan import Plan
from ..regex_syntax.fast_paths import looks_back, needs_context, start_sensitive

# How much consumed text the patterns observe (regex_syntax.fast_paths): those that can look
# further back than a fixed window (look-behinds, the reverse and word-boundary-rule flags, \X:
# looks_back) keep the whole buffer (declared in README); otherwise \b, \B, \m, \M and (?m)^
# look at the one character before the search position, and one character is enough for ^ and
# \A never to match at a trimmed buffer's start (needs_context says whether a pattern has any).
PATTERN_CONTEXT = 1


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


def lower_context(plan: Plan, t: Template) -> None:
    patterns = delimiter_patterns(t)
    # Where a match depends on where a search starts (\G, reverse searching, \K which reports
    # a start after where the match began), one end-of-stream pass is not provably the same as
    # a partial pass followed by it.
    plan.whole_pass_exact = not any(start_sensitive(p) or jumps_back(p) for p in patterns)
    if not patterns:
        plan.context = "0"
        plan.context_note = "literal delimiters only: consumed text is never needed"
    elif any(looks_back(p) or jumps_back(p) for p in patterns):
        plan.context = "None"
        plan.context_note = (
            "a pattern may look behind arbitrarily far: the whole buffer is kept "
            "(cost grows with the generation, as in the reference)"
        )
    elif not any(needs_context(p) for p in patterns):
        plan.context = "0"
        plan.context_note = (
            "no pattern looks before the search position: consumed text is never needed"
        )
    else:
        plan.context = str(PATTERN_CONTEXT)
        plan.context_note = (
            f"patterns see at most {PATTERN_CONTEXT} characters of consumed text "
            "(enough for \\b, \\B, (?m)^ and the start of the buffer)"
        )
