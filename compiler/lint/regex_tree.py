"""A template's regular expressions read as syntax trees, for samples and analyses.

The reference compiles delimiters with the third-party ``regex`` module; its syntax is a superset
of the standard library's, whose parser (``re._parser``, the same on CPython 3.11 to 3.13) gives a
tree the lint can walk. A pattern that only ``regex`` understands (``\\p{L}``, ``(?|…)``, fuzzy
matching, …) has no tree here: the analyses that need one skip it and say nothing about it, they
never guess.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from re import _constants as sre  # noqa: N812 -- the names below are the parser's own
from re import _parser as sre_parse
from typing import Any

import regex

from ..prefilter import structure

LITERAL = sre.LITERAL
NOT_LITERAL = sre.NOT_LITERAL
ANY = sre.ANY
IN = sre.IN
BRANCH = sre.BRANCH
SUBPATTERN = sre.SUBPATTERN
MAX_REPEAT = sre.MAX_REPEAT
MIN_REPEAT = sre.MIN_REPEAT
POSSESSIVE_REPEAT = sre.POSSESSIVE_REPEAT
ATOMIC_GROUP = sre.ATOMIC_GROUP
ASSERT = sre.ASSERT
ASSERT_NOT = sre.ASSERT_NOT
AT = sre.AT
GROUPREF = sre.GROUPREF
GROUPREF_EXISTS = sre.GROUPREF_EXISTS
MAXREPEAT = sre.MAXREPEAT
REPEATS = (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT)
CHAR_OPS = (LITERAL, NOT_LITERAL, ANY, IN)


@dataclass(frozen=True)
class Tree:
    """A parsed pattern: ``items`` is the parser's top-level sequence of ``(op, arg)`` nodes."""

    pattern: str
    items: Any
    names: dict[int, str]  # group number -> name, for named groups

    def group_number(self, name: str) -> int | None:
        for number, known in self.names.items():
            if known == name:
                return number
        return None


@functools.lru_cache(maxsize=512)
def parse(pattern: str) -> Tree | None:
    """The tree of ``pattern`` as the reference compiles it (DOTALL), or None if unreadable."""
    try:
        items = sre_parse.parse(pattern, re.DOTALL)
    except (re.error, RecursionError, OverflowError, ValueError, TypeError):
        return None
    names = {number: name for name, number in items.state.groupdict.items()}
    return Tree(pattern, items, names)


@functools.lru_cache(maxsize=512)
def compiled(pattern: str) -> regex.Pattern[str]:
    """``pattern`` compiled exactly as the reference compiles a delimiter."""
    return regex.compile(pattern, regex.DOTALL)


def _in_category(category: Any, ch: str) -> bool:
    # Unicode semantics, as in both regex engines for str patterns.
    if category in (sre.CATEGORY_DIGIT, sre.CATEGORY_UNI_DIGIT):
        return ch.isdecimal()
    if category in (sre.CATEGORY_NOT_DIGIT, sre.CATEGORY_UNI_NOT_DIGIT):
        return not ch.isdecimal()
    if category in (sre.CATEGORY_SPACE, sre.CATEGORY_UNI_SPACE):
        return ch.isspace()
    if category in (sre.CATEGORY_NOT_SPACE, sre.CATEGORY_UNI_NOT_SPACE):
        return not ch.isspace()
    if category in (sre.CATEGORY_WORD, sre.CATEGORY_UNI_WORD, sre.CATEGORY_LOC_WORD):
        return ch.isalnum() or ch == "_"
    if category in (sre.CATEGORY_NOT_WORD, sre.CATEGORY_UNI_NOT_WORD, sre.CATEGORY_LOC_NOT_WORD):
        return not (ch.isalnum() or ch == "_")
    if category in (sre.CATEGORY_LINEBREAK, sre.CATEGORY_UNI_LINEBREAK):
        return ch == "\n"
    return ch != "\n"  # the NOT_LINEBREAK categories


def in_set(items: Any, ch: str) -> bool:
    """Whether ``ch`` belongs to the character set ``[...]`` whose parsed items are ``items``."""
    negate = False
    found = False
    code = ord(ch)
    for op, arg in items:
        if op is sre.NEGATE:
            negate = True
        elif op is LITERAL:
            found = found or code == arg
        elif op is sre.RANGE:
            found = found or arg[0] <= code <= arg[1]
        elif op is sre.CATEGORY:
            found = found or _in_category(arg, ch)
        elif op is NOT_LITERAL:
            found = found or code != arg
    return found != negate


def char_matches(op: Any, arg: Any, ch: str) -> bool:
    """Whether the one-character node ``(op, arg)`` accepts ``ch`` (DOTALL: ``.`` takes all)."""
    if op is LITERAL:
        return ord(ch) == arg
    if op is NOT_LITERAL:
        return ord(ch) != arg
    if op is ANY:
        return True
    return in_set(arg, ch)


def group_body_span(pattern: str, name: str) -> tuple[int, int] | None:
    """Where the body of the named group ``(?P<name>…)`` is in ``pattern``'s source text,
    so a suggestion can replace exactly that body and keep the rest of the pattern."""
    for head in (f"(?P<{name}>", f"(?<{name}>"):
        start = pattern.find(head)
        if start < 0:
            continue
        opened_at = None
        for index, char, depth in structure(pattern):
            if index == start:
                opened_at = depth
            elif opened_at is not None and char == ")" and depth == opened_at + 1:
                return start + len(head), index
    return None


def looks_behind(tree: Tree) -> bool:
    """Whether the pattern has a look-behind (which the parser answers from consumed text)."""
    return any(op in (ASSERT, ASSERT_NOT) and arg[0] < 0 for op, arg in walk(tree.items))


def walk(items: Any) -> Any:
    """Every ``(op, arg)`` node of a parsed sequence, depth first, in pattern order."""
    for op, arg in items:
        yield op, arg
        for child in children(op, arg):
            yield from walk(child)


def children(op: Any, arg: Any) -> list[Any]:
    """The sub-sequences directly inside one node."""
    if op is SUBPATTERN:
        return [arg[3]]
    if op in REPEATS:
        return [arg[2]]
    if op is BRANCH:
        return list(arg[1])
    if op in (ASSERT, ASSERT_NOT):
        return [arg[1]]
    if op is ATOMIC_GROUP:
        return [arg]
    if op is GROUPREF_EXISTS:
        return [branch for branch in arg[1:] if branch is not None]
    return []


def top_level_alternatives(pattern: str) -> list[str]:
    """The source text of each top-level alternative of ``pattern`` (``a|b(c|d)`` → a, b(c|d))."""
    cuts = [i for i, char, depth in structure(pattern) if char == "|" and depth == 0]
    bounds = [-1, *cuts, len(pattern)]
    return [pattern[a + 1 : b] for a, b in zip(bounds, bounds[1:], strict=False)]


END_ONLY = frozenset({"$", "\\Z", "\\z"})
"""Alternatives that match only the empty string at the end of the text."""


def can_match_empty_at_end(pattern: str) -> bool:
    """Whether the pattern matches the empty string at the end of a text (``…|$``)."""
    try:
        return compiled(pattern).search("x", 1) is not None
    except (RecursionError, ValueError):
        return False
