"""How much consumed text the patterns can still observe, and whether one pass is exact.

Decides ``plan.context`` (characters of consumed text a parser keeps before the search
position: 0, ``PATTERN_CONTEXT``, or None for the whole buffer, as the reference keeps it) with
its explanation for the module's comment, and ``plan.whole_pass_exact`` (whether one-shot
parsing may take a single end-of-stream pass).
"""

from __future__ import annotations

import functools
import re

import regex

from ..model import Template

# Patterns that can look at consumed text further back than a fixed window: look-behinds,
# and the reverse / word-boundary-rule flags. They keep the whole buffer (declared in README).
_LOOKS_BACK = re.compile(r"\(\?<[=!]|\(\?[a-zA-Z0-9-]*[rw][a-zA-Z0-9-]*[:)]|\\X")
# Patterns whose matches depend on where a search starts (\G, reverse searching, \K which
# reports a start after where the match began): for them
# one end-of-stream pass is not provably the same as a partial pass followed by it.
_START_SENSITIVE = re.compile(r"\\[GK]|\(\?[a-zA-Z0-9-]*r[a-zA-Z0-9-]*[:)]")
# How much consumed text other patterns may observe: \b, \B, \m, \M and (?m)^ look at the one
# character before the search position, and one character is enough for ^ and \A never to
# match at a trimmed buffer's start. (Grapheme rules and look-behinds keep the whole buffer.)
PATTERN_CONTEXT = 1
# Escapes that test text before the current position (word boundaries) or the start.
_BACKWARD_ESCAPES = frozenset("bBmMAGXKyY")


def needs_context(pattern: str) -> bool:
    """Whether a match at ``pos`` may depend on text before ``pos`` (conservative)."""
    i = 0
    in_set = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 < len(pattern) and pattern[i + 1] in _BACKWARD_ESCAPES and not in_set:
                return True
            i += 2
            continue
        if in_set:
            if c == "]":
                in_set = False
            elif c == "[":
                return True  # nested sets / POSIX classes: not worth reasoning about
        elif c == "[":
            in_set = True
            if pattern.startswith("^", i + 1):
                i += 1
            if pattern.startswith("]", i + 1):
                i += 1
        elif c == "^":
            return True
        elif c == "(" and pattern.startswith("?", i + 1):
            rest = pattern[i + 2 : i + 3]
            if rest not in (":", "=", "!", "P") and not (
                rest == "<" and pattern[i + 3 : i + 4] not in ("=", "!")
            ):
                return True  # inline flags, look-behind, atomic groups, conditionals...
            if rest == "P" and pattern[i + 3 : i + 4] not in ("<",):
                return True
        i += 1
    return False


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


def lower_context(t: Template) -> tuple[int | None, str, bool, bool]:
    """(context, its note for the module's comment, whether one end-of-stream pass is exact,
    whether some pattern shows the regex module's end-before-start defect)."""
    patterns = delimiter_patterns(t)
    jumpy = any(jumps_back(p) for p in patterns)
    exact = not jumpy and not any(_START_SENSITIVE.search(p) for p in patterns)
    if not patterns:
        return 0, "literal delimiters only: consumed text is never needed", exact, jumpy
    if jumpy or any(_LOOKS_BACK.search(p) for p in patterns):
        note = (
            "a pattern may look behind arbitrarily far: the whole buffer is kept "
            "(cost grows with the generation, as in the reference)"
        )
        return None, note, exact, jumpy
    if not any(needs_context(p) for p in patterns):
        note = "no pattern looks before the search position: consumed text is never needed"
        return 0, note, exact, jumpy
    note = (
        f"patterns see at most {PATTERN_CONTEXT} characters of consumed text "
        "(enough for \\b, \\B, (?m)^ and the start of the buffer)"
    )
    return PATTERN_CONTEXT, note, exact, jumpy
