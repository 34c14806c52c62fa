"""Delimiter matching helpers that generated scanners call for plain literals."""

from __future__ import annotations


def literal_tail(buf: str, pos: int, literal: str) -> int:
    """Start of the leftmost ``j >= pos`` where ``buf[j:]`` is a proper prefix of ``literal``.

    This is where the ``regex`` module reports a partial match of the escaped literal when no
    complete match exists; ``len(buf)`` when there is none (the empty tail).
    """
    n = len(buf)
    first = literal[0]
    j = buf.find(first, max(pos, n - len(literal) + 1))
    while j != -1:
        if literal.startswith(buf[j:]):
            return j
        j = buf.find(first, j + 1)
    return n
