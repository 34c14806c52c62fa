"""Delimiter matching helpers that generated scanners call for plain literals."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, cast

# The characters the regex module's `\s` matches: Unicode's White_Space property (unchanged
# since Unicode 6.3). str.isspace() also accepts \x1c-\x1f; tests/test_prefilter.py checks
# this set against the installed regex, code point by code point. A set lookup is several
# times cheaper than matching one character with the engine.
SPACE_CHARS = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)

# The same characters as one string: `str.rstrip(SPACE_STR)` removes a trailing run of them
# (the fast path of feed() holds back such a run, the possible start of a \s*-led delimiter).
SPACE_STR = "".join(sorted(SPACE_CHARS))

# The whitespace run after a literal, as the regex module reads `\s*` (a subset of what
# str.isspace() accepts, so `isspace()` is a cheap test before matching it): those characters
# written out for Python's re, whose own \s also takes \x1c-\x1f, and which matches a short
# run with less set-up than the regex module.
SPACES = re.compile("[" + "".join(sorted(SPACE_CHARS)) + "]*")

# SPACES.match, typed as what it is: a run that may be empty matches at every position, so it
# never returns None (generated scanners take ``.end()`` of it directly).
match_spaces = cast("Callable[[str, int], re.Match[str]]", SPACES.match)

# Above this length the direct method (try each candidate start) could cost O(len(literal)^2)
# on self-overlapping literals such as "aaaa...b"; a prefix automaton keeps it linear.
_DIRECT_MAX = 64
# Spans of text shorter than this are searched with str.find directly: the detour of
# find_literal pays off only once the general search has enough text to be slow.
LONG_SPAN = 512
# find_any's first window: a few delimiters long, so that a text repeating one literal of a
# list costs each other literal about this much per occurrence.
_FIRST_WINDOW = 4


def literal_tail(buf: str, pos: int, literal: str) -> int:
    """Start of the leftmost ``j >= pos`` where ``buf[j:]`` is a proper prefix of ``literal``.

    This is where the ``regex`` module reports a partial match of the escaped literal when no
    complete match exists; ``len(buf)`` when there is none (the empty tail).
    """
    n = len(buf)
    if len(literal) > _DIRECT_MAX:
        return _tail_by_automaton(buf, max(pos, n - len(literal) + 1), literal)
    first = literal[0]
    j = buf.find(first, max(pos, n - len(literal) + 1))
    while j != -1:
        if literal.startswith(buf[j:]):
            return j
        j = buf.find(first, j + 1)
    return n


@lru_cache(maxsize=64)
def _failure(literal: str) -> tuple[int, ...]:
    """KMP failure function: longest proper border of each prefix of ``literal``."""
    fail = [0] * len(literal)
    k = 0
    for i in range(1, len(literal)):
        while k and literal[i] != literal[k]:
            k = fail[k - 1]
        if literal[i] == literal[k]:
            k += 1
        fail[i] = k
    return tuple(fail)


def _tail_by_automaton(buf: str, start: int, literal: str) -> int:
    # Run the prefix automaton over buf[start:]; the state at the end is the length of the
    # longest suffix of buf[start:] that is a prefix of the literal. No complete match can
    # occur (the caller found none), so the state never reaches len(literal).
    fail = _failure(literal)
    k = 0
    for c in buf[start:]:
        while k and c != literal[k]:
            k = fail[k - 1]
        if c == literal[k]:
            k += 1
        if k == len(literal):  # defensive: a complete match would not be a partial one
            k = fail[k - 1]
    return len(buf) - k


# After this many candidates that were not the literal, the text is dense with the chosen
# character: finish with str.find, so hostile text costs at most this many extra steps.
_MAX_FALSE_HITS = 8


def find_literal(buf: str, literal: str, pos: int, end: int, at: int) -> int:
    """``buf.find(literal, pos, end)`` for long spans of text, by way of one character.

    CPython finds a single character with ``memchr`` (tens of times faster than its general
    substring search), so look for ``literal[at]``, a character the compiler picked as rare in
    model output, and check the literal around each hit. Every occurrence of the literal at
    ``p`` puts that character at ``p + at``, and hits come in increasing order, so the first
    hit that checks out is the first occurrence.
    """
    key = literal[at]
    i = buf.find(key, pos + at, end)
    misses = 0
    while i >= 0:
        if buf.startswith(literal, i - at, end):
            return i - at
        misses += 1
        if misses == _MAX_FALSE_HITS:
            # No occurrence starts at or before i - at (each would have been a hit).
            return buf.find(literal, i - at + 1, end)
        i = buf.find(key, i + 1, end)
    return -1


def search_literal_led(pattern: Any, buf: str, pos: int, prefix: str, at: int) -> Any:
    """``pattern.search(buf, pos)`` for a pattern whose every match begins with ``prefix``.

    Only for patterns without assertions (the compiler checks): a match attempt at ``i`` then
    depends on nothing but the text from ``i``, so the leftmost match is the first attempt that
    succeeds at an occurrence of the prefix, found with :func:`find_literal`.
    """
    n = len(buf)
    misses = 0
    while True:
        i = find_literal(buf, prefix, pos, n, at) if n - pos > LONG_SPAN else buf.find(prefix, pos)
        if i < 0:
            return None
        m = pattern.match(buf, i)
        if m is not None:
            return m
        misses += 1
        if misses == _MAX_FALSE_HITS:
            return pattern.search(buf, i + 1)
        pos = i + 1


Literals = tuple[tuple[str, int, int], ...]
"""A literal list for ``find_any``: (literal, its length, index of its rarest character),
longest first (a stable sort: literals of equal length keep their order)."""


def find_any(buf: str, literals: Literals, pos: int, stop: int) -> tuple[int, int]:
    """``(start, end)`` of the leftmost occurrence at or after ``pos`` and before ``stop`` of
    any of ``literals``, the longest one at that position; ``(-1, -1)`` if there is none.

    This is the match of the reference's alternation of the escaped literals sorted longest
    first: its leftmost match starts where the first occurrence of any literal starts, and
    there the first alternative that matches is the longest literal that occurs there.

    The literals are looked for in windows of the text that grow fourfold from ``pos``
    (``_FIRST_WINDOW`` characters first): an occurrence that starts in a window is the leftmost
    one if it is the leftmost there. So a call costs each literal a few times the distance to
    the nearest occurrence of any, not the rest of the text: a text that repeats one literal
    of a list while another never occurs (a looping model writing ``<|eot_id|>``) is searched
    in linear time, not quadratic. A span shorter than ``LONG_SPAN`` is searched in one pass
    (its cost is bounded; a stream's searches are mostly that short).
    """
    if stop - pos < LONG_SPAN:
        return _find_any_before(buf, literals, pos, stop)  # short: one pass costs less
    width = _FIRST_WINDOW
    while True:
        bound = stop if stop - pos <= width else pos + width
        found = _find_any_before(buf, literals, pos, bound)
        if found[0] >= 0 or bound == stop:
            return found
        width *= 4


def _find_any_before(buf: str, literals: Literals, pos: int, stop: int) -> tuple[int, int]:
    """:func:`find_any` for occurrences starting before ``stop``, searching the whole range.
    Each literal is looked for only before the best start so far (at the same start, the
    literal found earlier is the longer one)."""
    best = end = -1
    for literal, length, rare in literals:
        limit = (stop if best < 0 else best) - 1 + length
        if limit - pos < LONG_SPAN:
            i = buf.find(literal, pos, limit)
        else:
            i = find_literal(buf, literal, pos, limit, rare)
        if i >= 0:
            best, end = i, i + length
    return best, end


def tail_any(buf: str, pos: int, literals: Literals) -> int:
    """Where the ``regex`` module reports a partial match of the alternation of ``literals``
    when none of them occurs completely: the leftmost ``literal_tail``; ``len(buf)`` if none."""
    best = len(buf)
    for literal, _, _ in literals:  # a loop: a generator and min() cost more on short lists
        i = literal_tail(buf, pos, literal)
        if i < best:
            best = i
    return best


def still_pending(whole: str, pending: tuple[tuple[str, bool], ...]) -> tuple[str, bool] | None:
    r"""Whether ``whole`` (the held text, then the chunk) is, after its leading whitespace for a
    \s*-led watch, a non-empty proper prefix of one of the state's pending literals: the first
    such literal and whether it is led, or None."""
    stripped = None
    for literal, led in pending:
        if led:
            if stripped is None:
                stripped = whole.lstrip(SPACE_STR)
            text = stripped
        else:
            text = whole
        if text and len(text) < len(literal) and literal.startswith(text):
            return literal, led
    return None


def one_search(*delimiters: tuple[Any, bool, bool]) -> re.Pattern[str]:
    """One ``re`` alternation of a state's delimiters, one group each, in order: for each,
    its literal (a str) or literal list (``Literals``), whether a ``\\s*`` leads it and
    whether one follows it, ``\\s`` written out as the ``regex`` module reads it. Built
    from the module's own literal constants, so a literal is written once in a module."""
    spaces = "[" + "".join(re.escape(c) for c in sorted(SPACE_CHARS)) + "]*"
    parts = []
    for literals, led, followed in delimiters:
        texts = [literals] if literals.__class__ is str else [x for x, _, _ in literals]
        body = "|".join(re.escape(x) for x in texts)
        if len(texts) > 1:
            body = f"(?:{body})"
        parts.append(f"({spaces if led else ''}{body}{spaces if followed else ''})")
    return re.compile("|".join(parts))


# The longest literal ``Starts`` keeps the prefixes of (a template's delimiter may be 200 KB).
MAX_PREFIXED = 128


class Starts:
    """:func:`starts_hold` for one state's literals, with what it reads worked out once: the
    first characters of the literals (one ``str.find`` each, instead of one per literal), their
    proper prefixes as sets (a held rest is looked up, not compared with every literal), and the
    shortest literal's length (a chunk shorter than it holds none whole). Where a literal begins
    with whitespace (a led literal's run could then reach back over it), or is longer than
    ``MAX_PREFIXED``, ``starts_hold`` itself answers. ``tests/test_fast_path.py`` checks the
    two agree."""

    __slots__ = (
        "starts",
        "led",
        "_literals",
        "_shortest",
        "_firsts",
        "_prefixes",
        "_led",
        "_plain",
    )

    def __init__(self, starts: tuple[str, ...], led: tuple[str, ...]) -> None:
        self.starts = starts
        self.led = led
        self._literals = starts + led
        self._shortest = min(map(len, self._literals))
        self._firsts = "".join(sorted({literal[0] for literal in self._literals}))
        # (The prefix sets hold about n²/2 characters per literal of n: past MAX_PREFIXED,
        # starts_hold answers, in constant memory.)
        self._plain = not any(c in SPACE_CHARS for c in self._firsts) and all(
            len(x) <= MAX_PREFIXED for x in self._literals
        )
        short = self._plain
        self._prefixes = frozenset(x[:i] for x in starts if short for i in range(1, len(x)))
        self._led = frozenset(x[:i] for x in led if short for i in range(1, len(x)))

    def hold(self, text: str) -> int:
        """``starts_hold(text, starts, led)``."""
        if not self._plain:
            return starts_hold(text, self.starts, self.led)
        if len(text) >= self._shortest:
            for literal in self._literals:
                if literal in text:
                    return -1
        hold = len(text)
        for first in self._firsts:
            k = text.find(first)
            while 0 <= k < hold:
                rest = text[k:]
                # (A led literal's partial match begins at the whitespace run before it: the
                # leftmost of the two readings, so it is asked first.)
                if rest in self._led:
                    while k and text[k - 1] in SPACE_CHARS:
                        k -= 1
                    hold = k
                    break
                if rest in self._prefixes:
                    hold = k
                    break
                k = text.find(first, k + 1)
        if self.led:
            end = len(text.rstrip(SPACE_STR))
            if end < hold:
                hold = end
        return hold


def starts_hold(text: str, starts: tuple[str, ...], led: tuple[str, ...] = ()) -> int:
    """Where the general path holds ``text`` (from the search position) back in a state whose
    delimiters' matches begin with one of ``starts``, or with a whitespace run and then one of
    ``led`` (``fast_path.Fast.starts``): -1 where one of them occurs (a match may be there: the
    general path decides); else the leftmost position from which the rest of the text is a
    proper prefix of one of them (for ``led``, the whitespace run before such a prefix, or
    before the end, where it begins), ``len(text)`` for none."""
    hold = len(text)
    for literals, back in ((starts, False), (led, True)):
        for literal in literals:
            first = literal[0]
            k = text.find(first)
            while k >= 0:
                rest = text[k : k + len(literal)]
                if literal.startswith(rest):
                    if len(rest) == len(literal):
                        return -1
                    if back:
                        while k and text[k - 1] in SPACE_CHARS:
                            k -= 1
                    if k < hold:
                        hold = k
                    break  # (the rest reaches the end: no later occurrence is complete)
                k = text.find(first, k + 1)
    if led:
        end = len(text.rstrip(SPACE_STR))
        if end < hold:
            hold = end
    return hold
