"""ASCII twins: a pattern compiled by Python's ``re`` for the text where it matches as ``regex``.

The reference compiles every delimiter and tag pattern with the ``regex`` module. On the short
matches of a one-shot parse, ``re`` runs the same pattern about twice as fast (less set-up per
call). A generated module therefore carries, beside a pattern it searches at the end of the
stream or runs as an ``xml-inline`` tag pattern, its **twin**
``re.compile(pattern, re.ASCII | re.DOTALL)``, and uses the twin where the text is ASCII
(``str.isascii()`` reads a flag CPython keeps on every string: it costs nothing).

Why the twin finds the same matches, with the same groups, on ASCII text, for a pattern in the
subset :func:`has_ascii_twin` accepts:

- both engines are backtracking matchers with the same semantics for every construct of the
  subset: literal characters, ``.`` under DOTALL, sets of characters and ranges, the shorthand
  classes ``\\s \\S \\d \\D \\w \\W``, capturing, named and non-capturing groups, look-aheads,
  ``^`` and ``$`` without MULTILINE, greedy and lazy quantifiers, ordered alternation. A search
  returns the leftmost position where an attempt succeeds, and an attempt explores the
  alternatives and repetition counts in the same order in both, so the first success (the
  match and what each group holds) is the same;
- what the engines disagree on is left out: constructs only ``regex`` has (recursion,
  ``DEFINE``, ``\\K``, ``\\G``, possessive and atomic forms, set operations, nested sets,
  Unicode properties), look-behinds (``regex`` matches them backwards, which can fill their
  groups differently), back-references, inline flags, escapes other than the ones above, and
  literal braces;
- on non-ASCII text they disagree on the shorthand classes (``re``'s ``\\s`` takes
  ``\\x1c``-``\\x1f``, ``regex`` and Python bundle different Unicode versions for ``\\w`` and
  ``\\d``), which is why the twin is only used on ASCII text and is compiled with ``re.ASCII``:
  on ASCII both read ``\\s`` as ``[\\t\\n\\v\\f\\r ]``, ``\\d`` as ``[0-9]`` and ``\\w`` as
  ``[A-Za-z0-9_]``. A non-ASCII character in the pattern can match nothing in ASCII text, in
  either engine.

``tests/test_ascii_twin.py`` runs both engines on random patterns of the subset and random
ASCII text (search from a position, match at one, finditer), and checks the classes character
by character; the differential suite runs the generated modules, twins included, against the
reference.
"""

from __future__ import annotations

import re
import warnings

# Escapes allowed outside and inside sets: the shorthand classes and the control characters.
_CLASS_ESCAPES = frozenset("sSdDwW")
_CHAR_ESCAPES = frozenset("ntrfv")
_GROUP_NAME = re.compile(r"\?P<[A-Za-z_][A-Za-z0-9_]*>")
_COUNT = re.compile(r"\{\d+(?:,\d*)?\}")


class _Outside(Exception):
    """The pattern uses something outside the subset."""


def has_ascii_twin(pattern: str) -> bool:
    """Whether ``pattern`` is in the subset above and compiles in ``re`` without a warning."""
    try:
        _check(pattern)
    except _Outside:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. FutureWarning for what may become a nested set
        try:
            re.compile(pattern, re.ASCII | re.DOTALL)
        except (re.error, Warning, RecursionError, OverflowError):
            return False
    return True


def _check(p: str) -> None:
    i = 0
    n = len(p)
    # Per open group: whether it is a look-ahead (which must not be quantified).
    groups: list[bool] = []
    quantifiable = False  # whether what precedes may take a quantifier
    while i < n:
        c = p[i]
        if c == "\\":
            _escape(p, i)
            i += 2
            quantifiable = True
        elif c == "[":
            i = _set_end(p, i)
            quantifiable = True
        elif c == "(":
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
            quantifiable = False
        elif c == ")":
            if not groups:
                raise _Outside("unbalanced ')'")
            quantifiable = not groups.pop()
            i += 1
        elif c == "|":
            quantifiable = False
            i += 1
        elif c in "*+?{":
            if not quantifiable:
                raise _Outside("a quantifier of nothing, of an assertion, or stacked")
            if c == "{":
                m = _COUNT.match(p, i)
                if m is None:
                    raise _Outside("a literal '{' or a count without a minimum")
                i = m.end()
            else:
                i += 1
            if i < n and p[i] == "?":
                i += 1  # lazy
            quantifiable = False
        elif c in "^$":
            quantifiable = False
            i += 1
        elif c in "]}":
            raise _Outside(f"a literal {c!r}")
        else:
            quantifiable = True  # a literal character or '.'
            i += 1
    if groups:
        raise _Outside("unbalanced '('")


def _escape(p: str, i: int) -> None:
    if i + 1 >= len(p):
        raise _Outside("a trailing backslash")
    e = p[i + 1]
    if e in _CLASS_ESCAPES or e in _CHAR_ESCAPES:
        return
    if e.isascii() and not e.isalnum():
        return  # an escaped punctuation character or space: itself
    raise _Outside(f"the escape \\{e}")


def _set_end(p: str, i: int) -> int:
    """Index after the set starting at ``p[i] == '['``."""
    n = len(p)
    j = i + 1
    if j < n and p[j] == "^":
        j += 1
    if j < n and p[j] == "]":
        j += 1  # a leading ']' is a member
    while j < n and p[j] != "]":
        ch = p[j]
        if ch == "[":
            raise _Outside("a nested set or POSIX class")
        if ch == "\\":
            _escape(p, j)
            j += 2
            continue
        if ch in "&~|-" and j + 1 < n and p[j + 1] == ch:
            raise _Outside("a set operation")
        j += 1
    if j >= n:
        raise _Outside("an unterminated set")
    return j + 1
