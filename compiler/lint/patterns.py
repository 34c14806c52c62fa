"""A template's patterns as the lint uses them: compiled as the reference compiles them, and
sampled (texts a delimiter matches) through the regex-syntax package's one reader."""

from __future__ import annotations

import functools
from typing import Any

import regex

from ..regex_syntax import Sample, samples

__all__ = ["END_ONLY", "Sample", "can_match_empty_at_end", "compiled", "literal_or_samples"]


@functools.lru_cache(maxsize=512)
def compiled(pattern: str) -> regex.Pattern[str]:
    """``pattern`` compiled exactly as the reference compiles a delimiter."""
    return regex.compile(pattern, regex.DOTALL)


END_ONLY = frozenset({"$", "\\Z", "\\z"})
"""Alternatives that match only the empty string at the end of the text."""


def can_match_empty_at_end(pattern: str) -> bool:
    """Whether the pattern matches the empty string at the end of a text (``…|$``)."""
    try:
        return compiled(pattern).search("x", 1) is not None
    except (RecursionError, ValueError):
        return False


def literal_or_samples(literals: tuple[str, ...], pattern: str, **kwargs: Any) -> list[Sample]:
    """Samples of a delimiter: its literals as written, or samples of its pattern."""
    if literals:
        return [Sample(text, text) for text in literals]
    return samples(pattern, **kwargs)
