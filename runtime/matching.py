"""Delimiter matching helpers that generated scanners call for plain literals."""

from __future__ import annotations

from functools import lru_cache

# Above this length the direct method (try each candidate start) could cost O(len(literal)^2)
# on self-overlapping literals such as "aaaa...b"; a prefix automaton keeps it linear.
_DIRECT_MAX = 64


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
