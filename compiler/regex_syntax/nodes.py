"""The nodes of a parsed pattern.

Every node knows where it was written (``start``, ``end``: its span in the pattern's source), so
an analysis can answer with the pattern's own text (a set as written, the text after a leading
``\\s*``) and a lint suggestion can replace exactly one part. Nodes are immutable; children are
tuples. :func:`children` and :func:`walk` are the one way to visit a tree; :func:`opened` lays out
what a node matches in order.

What a node means is what the ``regex`` module makes of it with ``regex.DOTALL`` and version 0
semantics (how the reference compiles every delimiter). A construct the parser does not model
becomes :class:`Unknown`, and every analysis treats it as "anything may happen here".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Node:
    start: int
    end: int


@dataclass(frozen=True)
class Empty(Node):
    """Matches the empty string (an empty alternative or group body)."""


@dataclass(frozen=True)
class Char(Node):
    """One literal character; ``fold``: matched ignoring case (``(?i)``)."""

    char: str
    fold: bool = False


@dataclass(frozen=True)
class SetItem:
    """One member of a bracketed set: a character (``lo == hi``), a range, or a class escape
    (``escape``: ``\\s``, ``\\d``, ``\\p{L}``, ``[:alpha:]`` as written); ``source``: the member
    as written (``a``, ``\\-``, ``a-z``, ``\\s``)."""

    lo: str = ""
    hi: str = ""
    escape: str = ""
    source: str = ""


@dataclass(frozen=True)
class Class(Node):
    """A test of one character other than a literal: ``.``, ``\\s``, ``\\p{L}``, ``[^>]``.

    ``source`` is the text as written; ``fold`` and ``dotall`` are the flags in effect there.
    ``items`` (bracketed sets only) are the members as written, ``negated`` for ``[^...]``.
    Which characters it accepts is decided by the ``regex`` module itself
    (:func:`rtc.compiler.regex_syntax.chars.accepts`), never re-implemented here.
    """

    source: str
    fold: bool = False
    dotall: bool = True
    negated: bool = False
    items: tuple[SetItem, ...] = ()

    @property
    def is_set(self) -> bool:
        return self.source.startswith("[")

    @property
    def fragment(self) -> str:
        """A standalone ``regex`` pattern (compiled with DOTALL) testing the same character;
        never one character long (one character stands for itself in a set of them)."""
        if self.source == ".":
            return "(?s:.)" if self.dotall else "(?-s:.)"
        return f"(?i:{self.source})" if self.fold else self.source


@dataclass(frozen=True)
class Seq(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt(Node):
    branches: tuple[Node, ...]


CAPTURE = "capture"
GROUP = "group"  # (?:...), also (?flags:...)
ATOMIC = "atomic"  # (?>...)
AHEAD = "ahead"  # (?=...)
NOT_AHEAD = "not_ahead"  # (?!...)
BEHIND = "behind"  # (?<=...)
NOT_BEHIND = "not_behind"  # (?<!...)
LOOKAROUNDS = frozenset({AHEAD, NOT_AHEAD, BEHIND, NOT_BEHIND})


@dataclass(frozen=True)
class Group(Node):
    """A parenthesised group; ``number`` and ``name`` for capturing groups."""

    kind: str
    body: Node
    number: int = 0
    name: str | None = None

    @property
    def is_lookaround(self) -> bool:
        return self.kind in LOOKAROUNDS

    @property
    def head(self) -> int:
        """Where the body starts in the source (after ``(``, ``(?:``, ``(?P<name>``...)."""
        return self.body.start


GREEDY = "greedy"
LAZY = "lazy"
POSSESSIVE = "possessive"


@dataclass(frozen=True)
class Repeat(Node):
    """``body`` repeated ``low`` to ``high`` times (``high`` None: unbounded)."""

    body: Node
    low: int
    high: int | None
    mode: str = GREEDY


# Zero-width assertions, by what they test.
START = "A"  # \A, and ^ without MULTILINE: the start of the text
LINE_START = "^m"  # ^ with MULTILINE
END = "Z"  # \Z (and \z): the end of the text
END_OR_NEWLINE = "$"  # $ without MULTILINE: the end, or before a final newline
LINE_END = "$m"  # $ with MULTILINE
BOUNDARY = "b"  # \b
NOT_BOUNDARY = "B"  # \B
WORD_START = "m"  # \m
WORD_END = "M"  # \M
SEARCH_START = "G"  # \G: where the search began
LOOKS_BEFORE = frozenset({START, LINE_START, BOUNDARY, NOT_BOUNDARY, WORD_START, WORD_END})
"""Assertions that read the character before the position (or that there is none)."""


@dataclass(frozen=True)
class Assert(Node):
    """A zero-width assertion other than a look-around (``kind``: one of the names above)."""

    kind: str


@dataclass(frozen=True)
class Keep(Node):
    """``\\K``: the match reported starts here (what was consumed before it is kept out)."""


@dataclass(frozen=True)
class Backref(Node):
    """``\\1``, ``(?P=name)``, ``\\g<name>``: the text the group last captured
    (``group``: its number or name, see :meth:`Tree.number`)."""

    group: int | str


@dataclass(frozen=True)
class Call(Node):
    """``(?&name)``, ``(?P>name)``, ``(?1)``, ``(?R)``: the group's pattern matched here
    (``group`` 0: the whole pattern)."""

    group: int | str


@dataclass(frozen=True)
class Cond(Node):
    """``(?(test)yes|no)``: ``test`` is a group (number or name: whether it has matched) or a
    look-around node."""

    test: int | str | Group
    yes: Node
    no: Node


@dataclass(frozen=True)
class Define(Node):
    """``(?(DEFINE)...)``: groups defined for calls; it matches the empty string."""

    body: Node


@dataclass(frozen=True)
class Unknown(Node):
    """A construct outside the modelled subset (``why`` says which): anything may happen."""

    why: str


@dataclass(frozen=True)
class Tree:
    """A parsed pattern.

    ``error`` is set when the ``regex`` module refuses the pattern (``root`` is then an
    :class:`Unknown`); ``groups`` maps each capturing group's number to its node (the first
    one written, for a name given twice) and ``names`` each group name to its number.
    ``inline`` holds the spans of comments and inline flags (``(?#...)``, ``(?i)``): they are
    no node, but a reader of the pattern's spelling must know they are there. ``outside`` says
    why the pattern as a whole is not modelled (e.g. verbose mode), if it is not.
    """

    pattern: str
    root: Node
    groups: dict[int, Group] = field(default_factory=dict)
    names: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    inline: tuple[tuple[int, int], ...] = ()
    outside: str | None = None  # why the pattern as a whole is not modelled (root: Unknown)

    @cached_property
    def known(self) -> bool:
        """Whether every construct of the pattern is modelled (no :class:`Unknown` in it). Kept:
        analyses that look at each branch of a long alternation ask once per branch, and a walk
        of the whole tree each time made compiling 2,000 alternatives take minutes."""
        return not any(isinstance(node, Unknown) for node in walk(self.root))

    def source(self, node: Node) -> str:
        return self.pattern[node.start : node.end]

    @cached_property
    def called(self) -> tuple[int, ...]:
        """The numbers of the groups the pattern calls, sorted (kept: analyses that measure
        each part of a long pattern ask for them once per part)."""
        return tuple(sorted({self.number(c.group) for c in walk(self.root) if isinstance(c, Call)}))

    def number(self, group: int | str) -> int:
        """The number of a group given by number or name (forward references included)."""
        return group if isinstance(group, int) else self.names[group]

    def body(self, group: int | str) -> Node:
        """What a call to ``group`` matches: the group's body (0: the whole pattern)."""
        number = self.number(group)
        return self.root if number == 0 else self.groups[number].body


def children(node: Node) -> tuple[Node, ...]:
    """The nodes directly inside ``node``, in pattern order."""
    if isinstance(node, Seq):
        return node.items
    if isinstance(node, Alt):
        return node.branches
    if isinstance(node, (Group, Repeat, Define)):
        return (node.body,)
    if isinstance(node, Cond):
        test = (node.test,) if isinstance(node.test, Group) else ()
        return (*test, node.yes, node.no)
    return ()


def walk(node: Node) -> Iterator[Node]:
    """``node`` and every node inside it, depth first, in pattern order."""
    stack = [node]
    while stack:
        here = stack.pop()
        yield here
        stack.extend(reversed(children(here)))


def opened(node: Node, atomic: bool = True) -> list[Node]:
    """``node`` as the sequence of what it matches in order: sequences, and groups matched
    exactly once (capturing, non-capturing, atomic; ``{1}``), opened up. ``atomic=False``
    keeps atomic groups and possessive ``{1}`` whole: a reader of their choices must not read
    them with what follows (what follows cannot make them give a choice back)."""
    if isinstance(node, Seq):
        return [x for item in node.items for x in opened(item, atomic)]
    if isinstance(node, Group) and node.kind in (
        (CAPTURE, GROUP, ATOMIC) if atomic else (CAPTURE, GROUP)
    ):
        return opened(node.body, atomic)
    if (
        isinstance(node, Repeat)
        and node.low == node.high == 1
        and (atomic or node.mode != POSSESSIVE)
    ):
        return opened(node.body, atomic)
    return [node]


def following(active: set[int], number: int, visit: Callable[[], T], again: T) -> T:
    """``visit()`` (a walk into group ``number``'s body, for a call or a back-reference) with
    the group marked in ``active`` while it runs; ``again`` if the walk is already inside it
    (a cycle)."""
    if number in active:
        return again
    active.add(number)
    try:
        return visit()
    finally:
        active.discard(number)
