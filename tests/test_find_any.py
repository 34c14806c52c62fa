"""``find_any`` searches growing windows of long spans: the same answer as the reference's
alternation of the escaped literals, longest first (its leftmost match, there the longest)."""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from rtc.runtime.matching import LONG_SPAN, find_any

ALPHABET = "ab<>|"


def _literals(texts: list[str]) -> tuple[tuple[str, int, int], ...]:
    ordered = sorted(set(texts), key=len, reverse=True)  # longest first, as compiled
    return tuple((t, len(t), len(t) - 1) for t in ordered)


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(
    texts=st.lists(st.text(ALPHABET, min_size=1, max_size=5), min_size=1, max_size=4),
    filler=st.text(ALPHABET, max_size=40),
    reps=st.integers(0, 3 * LONG_SPAN // 5),
    pos=st.integers(0, 30),
)
def test_find_any_is_the_alternations_leftmost_longest(
    texts: list[str], filler: str, reps: int, pos: int
) -> None:
    # Long spans (the windowed search) and short ones (one pass), mostly of near-misses.
    buf = filler + "ab<" * reps + filler[::-1]
    literals = _literals(texts)
    pattern = regex.compile("|".join(regex.escape(t) for t, _, _ in literals))
    pos = min(pos, len(buf))
    m = pattern.search(buf, pos)
    want = (m.start(), m.end()) if m else (-1, -1)
    got = find_any(buf, literals, pos, len(buf))
    assert got[0] == want[0] and (got[0] < 0 or got[1] == want[1]), (texts, got, want)
