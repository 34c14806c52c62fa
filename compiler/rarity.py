"""Which character of a delimiter literal is rarest in model output.

Long end-of-stream searches look for one character of a literal first (see
``rtc.runtime.matching.find_literal``); the fewer false hits that character has in real
generations, the closer the search runs to ``memchr`` speed. The choice only affects speed:
any character of the literal gives the same answer, and dense false hits end in ``str.find``.
"""

from __future__ import annotations

import unicodedata

# ASCII, most frequent first in a mix of English prose, Markdown, code and JSON (a rough
# order; only the relative order of neighbours matters, and only for speed).
_COMMON = (
    " etaoinsrhldcumfpgwybv,.\nkETSAIOCx0\"1-NRLDM:2(_)PBF'3=HW/5498U67GYj*q#Vz{}[]K<>`J|"
    "Q;X!?Z&+%$@\\^~\t"
)
_RANK = {c: len(_COMMON) - i for i, c in enumerate(_COMMON)}
# Letters and digits of other scripts are common in text written in those scripts; other
# non-ASCII characters (symbols, punctuation, special-token marks) are rare.
_OTHER_WORD = 40


def _commonness(c: str) -> int:
    rank = _RANK.get(c)
    if rank is not None:
        return rank
    if c.isascii():
        return 0  # control characters
    if ord(c) & 0xFF == 0:
        # CPython finds a wide character by its low byte with memchr, except when that byte
        # is zero (too many false hits in wide text); then it compares character by character.
        return len(_COMMON)
    category = unicodedata.category(c)
    if category[0] in "LN" or c.isspace():
        return _OTHER_WORD
    return 0


def rarest_index(literal: str) -> int:
    """Index of the rarest character of ``literal`` (the last one among equals)."""
    best = 0
    for i, c in enumerate(literal):
        if _commonness(c) <= _commonness(literal[best]):
            best = i
    return best
