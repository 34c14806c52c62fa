"""Searches over a long span of one buffer, remembered while their result is still ahead.

One pass of the parsing loop (``loop.run``) over a buffer holding many regions searches, at the
start of each region, for the delimiters its state watches, each from the search position to
the end of the buffer. A delimiter that does not occur (a close literal the model never wrote,
a call open in prose) is then sought to the end again in every region, and a large ``feed()``
costs the square of its length on a looping generation: the whole text of a response read by
``parse_openai``, or by ``parse_response`` where one end-of-stream pass is not exact.

The result of a search from ``pos`` (the leftmost match, or none) stays the answer for every
later position up to the match's start: while the buffer is unchanged, whether a match (or, in
partial mode, a partial one) starts at a position depends only on the text, not on where the
search started. That holds for literals and for patterns that neither anchor at the search
start (``\\G``) nor report a start after where their attempt began (``\\K``), and that do not
show the regex module's end-before-start defect; the compiler remembers only those
(``Watch.remembered``). The loop makes a memo for one pass (the buffer does not change during
it) over a span of ``LONG_SPAN`` characters or more, and passes the empty ``NO_MEMO`` over a
shorter one, where a search costs a bounded amount: then these are the plain searches.

Each slot holds ``(pos, start, ...)``: the search position and the match's start (-1: none).
"""

from __future__ import annotations

from typing import Any

from .matching import LONG_SPAN, Literals, find_any, find_literal

NO_MEMO: list[Any] = []
"""The memo of a pass over a short span: nothing is remembered."""


def _valid(r: Any, pos: int) -> bool:
    """Whether remembered result ``r`` answers a search from ``pos``: it was searched from
    ``pos`` or before, and its match (if any) starts at ``pos`` or after."""
    return r is not None and r[0] <= pos and (r[1] < 0 or r[1] >= pos)


def find_ahead(memo: list[Any], slot: int, buf: str, literal: str, pos: int) -> int:
    """``buf.find(literal, pos)``, remembered in ``memo[slot]``."""
    if not memo:
        return buf.find(literal, pos)
    r = memo[slot]
    if _valid(r, pos):
        return int(r[1])
    i = buf.find(literal, pos)
    memo[slot] = (pos, i)
    return i


def find_rare_ahead(
    memo: list[Any], slot: int, buf: str, literal: str, pos: int, stop: int, rare: int
) -> int:
    """``buf.find(literal, pos, stop)``, over a long span by its rarest character
    (``matching.find_literal``), remembered in ``memo[slot]`` when the search reached the end
    of the buffer or found the literal (the leftmost occurrence from ``pos`` either way; a
    miss short of the end says nothing about the text after ``stop``)."""
    if memo:
        r = memo[slot]
        if _valid(r, pos):
            return int(r[1])
    i = (
        buf.find(literal, pos, stop)
        if stop - pos < LONG_SPAN
        else find_literal(buf, literal, pos, stop, rare)
    )
    if memo and (i >= 0 or stop >= len(buf)):
        memo[slot] = (pos, i)
    return i


def any_ahead(
    memo: list[Any], slot: int, buf: str, literals: Literals, pos: int
) -> tuple[int, int]:
    """``matching.find_any(buf, literals, pos, len(buf) + 1)`` (the leftmost occurrence, the
    longest there: the same from any earlier position), remembered in ``memo[slot]``."""
    if not memo:
        return find_any(buf, literals, pos, len(buf) + 1)
    r = memo[slot]
    if _valid(r, pos):
        return r[1], r[2]
    i, j = find_any(buf, literals, pos, len(buf) + 1)
    memo[slot] = (pos, i, j)
    return i, j


def search_ahead(
    memo: list[Any], slot: int, pattern: Any, buf: str, pos: int, partial: bool
) -> Any:
    """``pattern.search(buf, pos, partial=partial)``, remembered in ``memo[slot]``."""
    if not memo:
        return pattern.search(buf, pos, partial=partial)
    r = memo[slot]
    if _valid(r, pos):
        return r[2]
    m = pattern.search(buf, pos, partial=partial)
    memo[slot] = (pos, -1 if m is None else m.start(), m)
    return m
