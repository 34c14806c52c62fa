"""A pattern as a position automaton, for reading a held partial match one chunk at a time.

While a delimiter's match is pending from the search position (a call's opening written up to
its name, say), the streaming search runs the ``regex`` module over the held text again at
every chunk, in partial mode: several microseconds a token for a few dozen characters. The
runtime can instead read each chunk once with the pattern's position (Glushkov) automaton
(``rtc.runtime.pending``). This module builds it from the tree, for the patterns whose every
construct is a character test, a sequence, an alternation, a plain or capturing group, a
greedy or lazy repeat or a negative look-ahead (a gate on the moves that cross it, see
``Positions``): without the look-aheads, what such a pattern matches is a regular language,
which the automaton's states read exactly, whatever order the engine tries its paths in.
Anything else (another assertion, a look-behind, a positive look-ahead, a back-reference, a
call, an atomic group or possessive repeat, ``\\K``) has no automaton, nor a pattern that
matches the empty string (its match at the search position is complete from the start). The
compiler's :data:`~.runs.GUARD` before a ``\\s*``-led pattern is read past (see
:func:`positions`).

Each character test is a *position*: ``tests[p]`` a character, or a standalone fragment
(``\\s``, ``[^<]``, ``(?i:a)``) tested by the ``regex`` module itself. A match is a word
``c1..ck`` read through positions ``p1..pk`` with ``p1`` in ``first``, each next one in the
``follow`` of the one before, ``pk`` in ``last``, and each ``ci`` accepted by ``tests[pi]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from . import nodes as n
from .chars import fragment
from .parser import parse
from .runs import GUARD

# The most positions an automaton may have: a bounded repeat is written out once per copy
# (``\s{0,200}`` is 200 positions), and beyond this the search is left as it is.
MAX_POSITIONS = 256


# What a node reads, as the builder sees it: (the gate sets of its empty paths, none where it
# cannot match the empty string; its first positions; its last positions), each position with
# the gates (negative look-aheads) crossed between it and the node's start or end.
_Read = tuple[set[frozenset[int]], set[tuple[int, frozenset[int]]], set[tuple[int, frozenset[int]]]]


@dataclass(frozen=True)
class Positions:
    """A pattern's position automaton (see the module docstring).

    ``gated``: the moves (from ``-1``, the start, or a position, to a position) that cross
    negative look-aheads, with those look-aheads' indexes in ``gates``: each the position
    automaton of the look-ahead's body with its assertions and look-arounds read as matching
    the empty string (so it matches at least where the body does)."""

    tests: tuple[str, ...]
    first: tuple[int, ...]
    follow: tuple[tuple[int, ...], ...]
    last: tuple[int, ...]
    gated: dict[tuple[int, int], tuple[int, ...]] = field(default_factory=dict)
    gates: tuple[Positions, ...] = ()
    # The pattern's trailing look-ahead is read as consumed (see ``positions``' ``ahead``).
    ahead: bool = False
    # The rest of a \s*-led pattern: the start reads whitespace without moving (the scanner
    # backs a match over it; see rtc.runtime.pending and ``starts_with_space``).
    lead: bool = False

    def starts_with_space(self) -> bool:
        """Whether a match may begin with a character ``\\s`` matches (then the whitespace
        before a match cannot be read apart from it: ``lead`` must stay off). Asked of the
        runtime's automaton, whose ``Steps`` refuses such a pattern with a lead."""
        from rtc.runtime.matching import SPACE_STR
        from rtc.runtime.pending import begins_with

        return begins_with(self.pieces, self.jumps, self.first, self.last, SPACE_STR) is not None

    @property
    def pieces(self) -> tuple[str | tuple[str], ...]:
        """``tests`` as written out in a module: runs of literal characters as one string (a
        position each, read one after the other: a run ends where a position jumps), each
        class as a 1-tuple holding its fragment."""
        out: list[str | tuple[str]] = []
        run = ""
        for p, test in enumerate(self.tests):
            if len(test) == 1:
                run += test
                if self.follow[p] != (p + 1,):
                    out.append(run)
                    run = ""
                continue
            if run:
                out.append(run)
                run = ""
            out.append((test,))
        if run:
            out.append(run)
        return tuple(out)

    @property
    def jumps(self) -> dict[int, tuple[int, ...]]:
        """``follow`` where it is not the next position alone (a literal run reads on)."""
        return {p: f for p, f in enumerate(self.follow) if f != (p + 1,)}


class _Outside(Exception):
    """A construct the automaton does not model (see the module docstring)."""


class _Builder:
    """``loose``: assertions and look-arounds read as the empty string (a look-ahead's body)."""

    def __init__(self, loose: bool = False) -> None:
        self.loose = loose
        self.tests: list[str] = []
        self.follow: list[dict[int, set[frozenset[int]]]] = []
        self.gates: list[Positions] = []

    def position(self, test: str) -> int:
        if len(self.tests) >= MAX_POSITIONS:
            raise _Outside("too many positions")
        self.tests.append(test)
        self.follow.append({})
        return len(self.tests) - 1

    def link(
        self, last: set[tuple[int, frozenset[int]]], first: set[tuple[int, frozenset[int]]]
    ) -> None:
        for p, before in last:
            for q, after in first:
                self.follow[p].setdefault(q, set()).add(before | after)

    def build(self, node: n.Node) -> _Read:
        if isinstance(node, n.Empty) or (self.loose and isinstance(node, (n.Assert, n.Keep))):
            return {frozenset()}, set(), set()
        if isinstance(node, n.Char) and not node.fold:
            p = self.position(node.char)
            return set(), {(p, frozenset())}, {(p, frozenset())}
        if isinstance(node, (n.Char, n.Class)):
            p = self.position(fragment(node))
            return set(), {(p, frozenset())}, {(p, frozenset())}
        if isinstance(node, n.Seq):
            result: _Read = ({frozenset()}, set(), set())
            for item in node.items:
                result = self.then(result, self.build(item))
            return result
        if isinstance(node, n.Alt):
            parts = [self.build(branch) for branch in node.branches]
            return (
                set().union(*(part[0] for part in parts)),
                set().union(*(part[1] for part in parts)),
                set().union(*(part[2] for part in parts)),
            )
        if isinstance(node, n.Group) and node.kind in (n.CAPTURE, n.GROUP):
            return self.build(node.body)
        if isinstance(node, n.Group) and node.is_lookaround and self.loose:
            return {frozenset()}, set(), set()
        if isinstance(node, n.Group) and node.kind == n.NOT_AHEAD:
            return self.gate(node.body)
        if isinstance(node, n.Repeat) and node.mode != n.POSSESSIVE:
            return self.repeat(node)
        raise _Outside(type(node).__name__)

    def gate(self, body: n.Node) -> _Read:
        """A negative look-ahead: an empty path that crosses it (see ``Positions.gated``)."""
        inner = _Builder(loose=True)
        empty, first, last = inner.build(body)
        if empty:
            raise _Outside("a look-ahead that always fails")
        found = inner.positions(first, last)
        if found not in self.gates:  # (one automaton for a look-ahead written twice)
            if len(self.gates) >= 8:
                raise _Outside("too many look-aheads")
            self.gates.append(found)
        return {frozenset({self.gates.index(found)})}, set(), set()

    def then(self, a: _Read, b: _Read) -> _Read:
        """``a`` then ``b``."""
        self.link(a[2], b[1])
        first = set(a[1])
        for gates in a[0]:
            first.update((q, gates | after) for q, after in b[1])
        last = set(b[2])
        for gates in b[0]:
            last.update((p, before | gates) for p, before in a[2])
        return {x | y for x in a[0] for y in b[0]}, first, last

    def repeat(self, node: n.Repeat) -> _Read:
        """``body{low,high}`` as ``low`` copies then ``high - low`` optional ones, or, unbounded,
        with the last copy looping back to itself (``x{2,}`` is ``x x+``, ``x*`` is ``(x+)?``).
        Lazy and greedy repeats match the same words: only the order of trying differs."""
        result: _Read = ({frozenset()}, set(), set())
        copies = node.low if node.high is None else node.high
        if node.high is None and node.low == 0:
            copies = 1
        for k in range(copies):
            empty, first, last = self.build(node.body)
            looped = node.high is None and k == copies - 1
            if looped:
                self.link(last, first)
            if k >= node.low or (looped and node.low == 0):
                empty = empty | {frozenset()}
            result = self.then(result, (empty, first, last))
        return result

    def positions(
        self, first: set[tuple[int, frozenset[int]]], last: set[tuple[int, frozenset[int]]]
    ) -> Positions:
        """The automaton built (a move is gated where every way to it crosses a gate: the
        gates of its least gated way, the way a match may take; see ``Positions.gated``)."""
        gated: dict[tuple[int, int], tuple[int, ...]] = {}
        starts: dict[int, set[frozenset[int]]] = {}
        for q, gates in first:
            starts.setdefault(q, set()).add(gates)
        follow = []
        for p, moves in [(-1, starts), *enumerate(self.follow)]:
            for q, ways in moves.items():
                if frozenset() not in ways:
                    least = min(ways, key=lambda way: (len(way), sorted(way)))
                    gated[p, q] = tuple(sorted(least))
            if p >= 0:
                follow.append(tuple(sorted(moves)))
        return Positions(
            tuple(self.tests),
            tuple(sorted(starts)),
            tuple(follow),
            tuple(sorted({p for p, _ in last})),
            gated,
            tuple(self.gates),
        )


def positions(pattern: str, ahead: bool = False) -> Positions | None:
    """The position automaton of ``pattern`` (compiled with ``regex.DOTALL``), or None where it
    has none (see the module docstring).

    A pattern behind the compiler's :data:`~.runs.GUARD` (``runs.run_skipping``) is read as
    the pattern alone: a path started at the search position passes the guard there (``\\G``
    holds), and for the paths that may complete, reading the guard as the empty string only
    adds matches.

    ``ahead``: a positive look-ahead that ends the pattern, ``P(?=Q)``, is read as ``PQ``, for
    ``pending``'s question (is a match pending from the search position, with no complete one
    anywhere): a match of ``P(?=Q)`` is complete exactly where one of ``PQ`` is, and a path of
    ``PQ`` from the search position that reads the whole text and wants more is one the
    ``regex`` module reads to the end of the text too, in ``P`` or in the look-ahead (a
    look-ahead undecided at the end of the text makes the match partial). The same for each
    branch of an alternation that ends so, ``A|P(?=Q)`` as ``A|PQ`` (qwen3_coder's close): a
    match of the alternation is complete where one of some branch is, and a path of one
    branch that reads the whole text is one the module reads through that branch. Not for
    what reads where matches end (lint): the match itself ends before ``Q``."""
    tree = parse(pattern)
    if tree.error is not None or tree.outside is not None or not tree.known:
        return None
    root = tree.root
    if isinstance(root, n.Seq) and len(root.items) == 2 and tree.source(root.items[0]) == GUARD:
        root = root.items[1]
    read_on = False
    if ahead:
        root, read_on = _read_on(root)
    builder = _Builder()
    try:
        empty, first, last = builder.build(root)
    except (_Outside, RecursionError):
        return None
    if empty:
        return None
    found = builder.positions(first, last)
    return replace(found, ahead=True) if read_on else found


def _read_on(node: n.Node) -> tuple[n.Node, bool]:
    """``node`` with its trailing positive look-ahead read as consumed, ``P(?=Q)`` as ``PQ``,
    and each branch's where it is an alternation (see :func:`positions`' ``ahead``); and
    whether one was. A look-ahead alone (no ``P``: a branch that may match the empty string)
    is left as it is, which has no automaton. A plain or capturing group around it all is read
    through (after the compiler's guard, ``\\s*``-led alternatives come so: deepseek_v4's
    call close, ``GUARD(?:\\s*</…invoke>\\s*(?=<…invoke)|…)``): its body ends where the pattern
    does, and the group only groups (its flags, if any, stay on it)."""
    if isinstance(node, n.Group) and node.kind in (n.GROUP, n.CAPTURE):
        body, changed = _read_on(node.body)
        if changed:
            return replace(node, body=body), True
    if isinstance(node, n.Seq) and len(node.items) > 1:
        final = node.items[-1]
        if isinstance(final, n.Group) and final.kind == n.AHEAD:
            return n.Seq(node.start, node.end, (*node.items[:-1], final.body)), True
    if isinstance(node, n.Alt):
        branches = [_read_on(branch) for branch in node.branches]
        if any(changed for _, changed in branches):
            return n.Alt(node.start, node.end, tuple(branch for branch, _ in branches)), True
    return node, False
