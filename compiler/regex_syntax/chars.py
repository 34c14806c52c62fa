"""Which characters a one-character node accepts, and sets of characters as analyses give them.

Membership is decided by the ``regex`` module itself: a node's standalone fragment (``\\s``,
``[^>]``, ``(?i:a)``) is compiled with ``regex.DOTALL`` and asked. What ``\\s``, ``\\w`` or
``\\p{L}`` hold depends on the Unicode version the installed ``regex`` bundles; asking it keeps
every analysis exactly as wide as the engine that runs the pattern.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import regex

from . import nodes as n


@functools.lru_cache(maxsize=512)
def _compiled(fragment: str) -> regex.Pattern[str]:
    return regex.compile(fragment, regex.DOTALL)


def fragment(node: n.Char | n.Class) -> str:
    """A standalone pattern that tests one character as ``node`` does."""
    if isinstance(node, n.Class):
        return node.fragment
    text = regex.escape(node.char)
    return f"(?i:{text})" if node.fold else text


def accepts(node: n.Char | n.Class, ch: str) -> bool:
    """Whether ``node`` matches the one character ``ch``."""
    if isinstance(node, n.Char) and not node.fold:
        return ch == node.char
    return _member(fragment(node), ch)


@functools.lru_cache(maxsize=65536)
def _member(fragment: str, ch: str) -> bool:
    return _compiled(fragment).fullmatch(ch) is not None


@dataclass(frozen=True)
class CharSet:
    """A set of characters as ``members``, in pattern order and without repeats: a member of
    one character stands for itself, a longer one is a standalone fragment testing one
    character (``\\s``, ``[^>]``, ``(?i:a)``, ``(?s:.)``)."""

    members: tuple[str, ...] = ()

    def __contains__(self, ch: str) -> bool:
        return ch in self.chars or any(_member(c, ch) for c in self.classes)

    def __or__(self, other: CharSet) -> CharSet:
        return CharSet(tuple(dict.fromkeys(self.members + other.members)))

    @property
    def chars(self) -> tuple[str, ...]:
        """The literal characters."""
        return tuple(m for m in self.members if len(m) == 1)

    @property
    def classes(self) -> tuple[str, ...]:
        """The class fragments."""
        return tuple(m for m in self.members if len(m) > 1)

    @property
    def source(self) -> str:
        """One pattern matching exactly one character of the set (empty for the empty set)."""
        return class_source("".join(self.chars), list(self.classes))

    @staticmethod
    def of(node: n.Char | n.Class) -> CharSet:
        if isinstance(node, n.Char) and not node.fold:
            return CharSet((node.char,))
        return CharSet((fragment(node),))


def class_source(chars: str, classes: list[str]) -> str:
    """One regex matching any of ``chars`` or any of the class fragments."""
    parts = ["[" + "".join(_escape_in_set(c) for c in chars) + "]"] if chars else []
    return "|".join(parts + classes)


def _escape_in_set(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else c
