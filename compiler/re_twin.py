"""``re`` twins: a pattern compiled by Python's ``re`` for the text where it matches as ``regex``.

The reference compiles every delimiter and tag pattern with the ``regex`` module. On the short
texts of a one-shot parse, ``re`` runs most patterns about twice as fast (less set-up per call).
A generated module therefore carries, beside a pattern that it searches at the end of the
stream or runs as an ``xml-inline`` tag pattern, its **twin** compiled by ``re``, and runs the
twin wherever it is proved to find what the pattern finds:

- a **universal twin** (``re.DOTALL``, any text) for a pattern of the subset below without the
  class shorthands ``\\d \\D \\w \\W``: ``\\s`` and ``\\S`` are written out as the set of
  characters ``regex`` reads as ``\\s`` (Unicode's White_Space; ``re``'s own ``\\s`` also takes
  ``\\x1c``-``\\x1f``), so every construct left reads the same in both engines on every text;
- an **ASCII twin** (``re.ASCII | re.DOTALL``, the pattern as it is) for the other patterns of
  the subset, run only on ASCII text (``str.isascii()`` reads a flag CPython keeps on every
  string: it costs nothing). ``\\d`` and ``\\w`` depend on the Unicode version each engine
  bundles, and ``re`` and ``regex`` bundle different ones; on ASCII text both read ``\\s`` as
  ``[\\t\\n\\v\\f\\r ]``, ``\\d`` as ``[0-9]`` and ``\\w`` as ``[A-Za-z0-9_]``.

Two kinds of pattern keep ``regex`` for speed alone (measured twin by twin on the benchmark's
catalogue): one that begins with an optional group (:func:`searches_well`; deepseek_v4's
``(?:\\n\\n)?(?:<｜DSML｜tool_calls>\\s*)?<｜DSML｜invoke...``), which ``re`` attempts at every
candidate character where ``regex`` looks for a literal the match requires (three to four times
slower over a few hundred characters), and the start anchor (``lowering.anchor``), searched
through whole prompts, where ``regex``'s literal search is faster.

Why a twin finds the same matches, with the same groups, where it is used: both engines are
backtracking matchers with the same semantics for every construct of the subset (literal
characters, ``.`` under DOTALL, sets of characters and ranges, the shorthand classes,
capturing, named and non-capturing groups, look-aheads, ``^`` and ``$`` without MULTILINE,
greedy and lazy quantifiers, ordered alternation). A search returns the leftmost position where
an attempt succeeds, and an attempt explores alternatives and repetition counts in the same
order in both, so the first success (the match and what each group holds) is the same. What
the engines disagree on is left out: constructs only ``regex`` has (recursion, ``DEFINE``,
``\\K``, ``\\G``, possessive and atomic forms, set operations, nested sets, Unicode properties),
look-behinds (``regex`` matches them backwards, which can fill their groups differently),
back-references, word boundaries, inline flags, other escapes, literal braces, and a name
given to two groups (``re`` refuses it). A character of the pattern that is not ASCII matches
itself in both (no flag folds case), and nothing in ASCII text.

``tests/test_re_twin.py`` runs both engines on random patterns of the subset and random
text (ASCII and not: search from a position, match at one, finditer) and checks the classes
character by character; the differential suite runs the generated modules, twins included,
against the reference.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

from .prefilter import structure

# The characters regex reads as \s (Unicode White_Space), as a set's members for re: the set
# rtc.runtime.matching.SPACE_CHARS holds, in ranges (both are checked against regex).
WHITE_SPACE = "\\t-\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
_ANY = "[\\x00-\\U0010ffff]"
_UNICODE_DEPENDENT = frozenset("dDwW")
_CLASS_ESCAPES = frozenset("sSdDwW")
_CHAR_ESCAPES = frozenset("ntrfv")
_GROUP_NAME = re.compile(r"\?P<[A-Za-z_][A-Za-z0-9_]*>")
_COUNT = re.compile(r"\{\d+(?:,\d*)?\}")


@dataclass(frozen=True)
class Twin:
    """How to compile a pattern's twin, and where it may run."""

    source: str  # the pattern text for re
    ascii_only: bool  # run it on ASCII text only (else on any text)

    @property
    def flags(self) -> str:
        return "re.ASCII | re.DOTALL" if self.ascii_only else "re.DOTALL"


class _Outside(Exception):
    """The pattern uses something outside the subset."""


def searches_well(pattern: str) -> bool:
    """Whether ``re`` is expected to search for ``pattern`` faster than ``regex``: unless it
    begins with an optional group (see the module docstring). Speed only: never correctness."""
    if not pattern.startswith("("):
        return True
    for index, char, depth in structure(pattern):
        if char == ")" and depth == 1:  # the end of the leading group
            after = pattern[index + 1 : index + 3]
            return not (after[:1] in ("?", "*") or after == "{0")
    return True


def re_twin(pattern: str) -> Twin | None:
    """The twin of ``pattern`` (see the module docstring), or None where it has none."""
    try:
        universal, ascii_only = _translate(pattern)
    except _Outside:
        return None
    twin = Twin(pattern, True) if ascii_only else Twin(universal, False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. FutureWarning for what may become a nested set
        try:
            re.compile(twin.source, re.ASCII | re.DOTALL if twin.ascii_only else re.DOTALL)
        except (re.error, Warning, RecursionError, OverflowError):
            return None
    return twin


def _translate(p: str) -> tuple[str, bool]:
    """The pattern with \\s and \\S written out, and whether it uses a Unicode-dependent
    shorthand (then only its ASCII twin exists); raises _Outside outside the subset."""
    out: list[str] = []
    ascii_only = False
    i = 0
    n = len(p)
    # Per open group: whether it is a look-ahead (which must not be quantified).
    groups: list[bool] = []
    quantifiable = False  # whether what precedes may take a quantifier
    while i < n:
        c = p[i]
        if c == "\\":
            e = _escape(p, i)
            ascii_only = ascii_only or e in _UNICODE_DEPENDENT
            out.append({"s": f"[{WHITE_SPACE}]", "S": f"[^{WHITE_SPACE}]"}.get(e, p[i : i + 2]))
            i += 2
            quantifiable = True
        elif c == "[":
            i, members, dependent = _set(p, i)
            ascii_only = ascii_only or dependent
            out.append(members)
            quantifiable = True
        elif c == "(":
            start = i
            if p.startswith(("(?:", "(?=", "(?!"), i):
                groups.append(p[i + 2] in "=!")
                i += 3
            elif p.startswith("(?", i):
                m = _GROUP_NAME.match(p, i + 1)
                if m is None:
                    raise _Outside("a special group")
                groups.append(False)
                i = m.end()
            else:
                groups.append(False)
                i += 1
            out.append(p[start:i])
            quantifiable = False
        elif c == ")":
            if not groups:
                raise _Outside("unbalanced ')'")
            quantifiable = not groups.pop()
            out.append(c)
            i += 1
        elif c in "*+?{":
            if not quantifiable:
                raise _Outside("a quantifier of nothing, of an assertion, or stacked")
            start = i
            if c == "{":
                m = _COUNT.match(p, i)
                if m is None:
                    raise _Outside("a literal '{' or a count without a minimum")
                i = m.end()
            else:
                i += 1
            if i < n and p[i] == "?":
                i += 1  # lazy
            out.append(p[start:i])
            quantifiable = False
        elif c in "]}":
            raise _Outside(f"a literal {c!r}")
        else:
            # A literal character or '.'; '^' and '$' are assertions (never quantified).
            quantifiable = c not in "^$"
            out.append(c)
            i += 1
    if groups:
        raise _Outside("unbalanced '('")
    return "".join(out), ascii_only


def _escape(p: str, i: int) -> str:
    """The escaped character at ``p[i] == '\\\\'``, when the subset allows it."""
    if i + 1 >= len(p):
        raise _Outside("a trailing backslash")
    e = p[i + 1]
    if e in _CLASS_ESCAPES or e in _CHAR_ESCAPES:
        return e
    if e.isascii() and not e.isalnum():
        return e  # an escaped punctuation character or space: itself
    raise _Outside(f"the escape \\{e}")


def _set(p: str, i: int) -> tuple[int, str, bool]:
    """The set starting at ``p[i] == '['``: the index after it, its text with \\s written
    out, and whether it uses a Unicode-dependent shorthand."""
    n = len(p)
    j = i + 1
    out = ["["]
    if j < n and p[j] == "^":
        out.append("^")
        j += 1
    if j < n and p[j] == "]":
        out.append("\\]")  # a leading ']' is a member
        j += 1
    first = j  # where the members begin
    dependent = has_class = has_not_s = inner_dash = False
    while j < n and p[j] != "]":
        ch = p[j]
        if ch == "[":
            raise _Outside("a nested set or POSIX class")
        if ch == "\\":
            e = _escape(p, j)
            dependent = dependent or e in _UNICODE_DEPENDENT
            has_class = has_class or e in _CLASS_ESCAPES
            if e == "s":
                out.append(WHITE_SPACE)
            elif e == "S":
                has_not_s = True
            else:
                out.append(p[j : j + 2])
            j += 2
            continue
        if ch in "&~|-" and j + 1 < n and p[j + 1] == ch:
            raise _Outside("a set operation")
        if ch == "-" and j != first and j + 1 < n and p[j + 1] != "]":
            inner_dash = True  # a range (or, next to a class escape, an error or a literal)
        out.append(ch)
        j += 1
    if j >= n:
        raise _Outside("an unterminated set")
    text = p[i : j + 1]
    if has_class and inner_dash:
        raise _Outside("a range next to a class escape")
    if has_not_s:
        # \S can be written out only as the whole of [\s\S] (any character).
        if text not in ("[\\s\\S]", "[\\S\\s]"):
            raise _Outside("\\S inside a set")
        return j + 1, _ANY, dependent
    return j + 1, "".join(out) + "]", dependent
