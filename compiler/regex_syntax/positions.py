"""A pattern as a position automaton, for reading a held partial match one chunk at a time.

While a delimiter's match is pending from the search position (a call's opening written up to
its name, say), the streaming search runs the ``regex`` module over the held text again at
every chunk, in partial mode: several microseconds a token for a few dozen characters. The
runtime can instead read each chunk once with the pattern's position (Glushkov) automaton
(``rtc.runtime.pending``). This module builds it from the tree, for the patterns whose every
construct is a character test, a sequence, an alternation, a plain or capturing group or a
greedy or lazy repeat: what such a pattern matches is a regular language, which the
automaton's states read exactly, whatever order the engine tries its paths in. Anything else
(an assertion, a look-around, a back-reference, a call, an atomic group or possessive repeat,
``\\K``) has no automaton, nor a pattern that matches the empty string (its match at the search
position is complete from the start).

Each character test is a *position*: ``tests[p]`` a character, or a standalone fragment
(``\\s``, ``[^<]``, ``(?i:a)``) tested by the ``regex`` module itself. A match is a word
``c1..ck`` read through positions ``p1..pk`` with ``p1`` in ``first``, each next one in the
``follow`` of the one before, ``pk`` in ``last``, and each ``ci`` accepted by ``tests[pi]``.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import nodes as n
from .chars import fragment
from .parser import parse

# The most positions an automaton may have: a bounded repeat is written out once per copy
# (``\s{0,200}`` is 200 positions), and beyond this the search is left as it is.
MAX_POSITIONS = 256


@dataclass(frozen=True)
class Positions:
    """A pattern's position automaton (see the module docstring)."""

    tests: tuple[str, ...]
    first: tuple[int, ...]
    follow: tuple[tuple[int, ...], ...]
    last: tuple[int, ...]

    @property
    def pieces(self) -> tuple[str | tuple[str], ...]:
        """``tests`` as written out in a module: runs of literal characters as one string (a
        position each), each class as a 1-tuple holding its fragment."""
        out: list[str | tuple[str]] = []
        run = ""
        for test in self.tests:
            if len(test) == 1:
                run += test
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
    def __init__(self) -> None:
        self.tests: list[str] = []
        self.follow: list[set[int]] = []

    def position(self, test: str) -> int:
        if len(self.tests) >= MAX_POSITIONS:
            raise _Outside("too many positions")
        self.tests.append(test)
        self.follow.append(set())
        return len(self.tests) - 1

    def link(self, last: frozenset[int], first: frozenset[int]) -> None:
        for p in last:
            self.follow[p].update(first)

    def build(self, node: n.Node) -> tuple[bool, frozenset[int], frozenset[int]]:
        """(nullable, first positions, last positions) of ``node``, its positions added."""
        if isinstance(node, n.Empty):
            return True, frozenset(), frozenset()
        if isinstance(node, n.Char) and not node.fold:
            p = self.position(node.char)
            return False, frozenset({p}), frozenset({p})
        if isinstance(node, (n.Char, n.Class)):
            p = self.position(fragment(node))
            return False, frozenset({p}), frozenset({p})
        if isinstance(node, n.Seq):
            result: tuple[bool, frozenset[int], frozenset[int]] = (True, frozenset(), frozenset())
            for item in node.items:
                result = self.then(result, self.build(item))
            return result
        if isinstance(node, n.Alt):
            parts = [self.build(branch) for branch in node.branches]
            return (
                any(part[0] for part in parts),
                frozenset().union(*(part[1] for part in parts)),
                frozenset().union(*(part[2] for part in parts)),
            )
        if isinstance(node, n.Group) and node.kind in (n.CAPTURE, n.GROUP):
            return self.build(node.body)
        if isinstance(node, n.Repeat) and node.mode != n.POSSESSIVE:
            return self.repeat(node)
        raise _Outside(type(node).__name__)

    def then(
        self,
        a: tuple[bool, frozenset[int], frozenset[int]],
        b: tuple[bool, frozenset[int], frozenset[int]],
    ) -> tuple[bool, frozenset[int], frozenset[int]]:
        """``a`` then ``b``."""
        self.link(a[2], b[1])
        return (
            a[0] and b[0],
            a[1] | b[1] if a[0] else a[1],
            b[2] | a[2] if b[0] else b[2],
        )

    def repeat(self, node: n.Repeat) -> tuple[bool, frozenset[int], frozenset[int]]:
        """``body{low,high}`` as ``low`` copies then ``high - low`` optional ones, or, unbounded,
        with the last copy looping back to itself (``x{2,}`` is ``x x+``, ``x*`` is ``(x+)?``).
        Lazy and greedy repeats match the same words: only the order of trying differs."""
        result: tuple[bool, frozenset[int], frozenset[int]] = (True, frozenset(), frozenset())
        copies = node.low if node.high is None else node.high
        if node.high is None and node.low == 0:
            copies = 1
        for k in range(copies):
            nullable, first, last = self.build(node.body)
            looped = node.high is None and k == copies - 1
            if looped:
                self.link(last, first)
            if k >= node.low or (looped and node.low == 0):
                nullable = True
            result = self.then(result, (nullable, first, last))
        return result


def positions(pattern: str) -> Positions | None:
    """The position automaton of ``pattern`` (compiled with ``regex.DOTALL``), or None where it
    has none (see the module docstring)."""
    tree = parse(pattern)
    if tree.error is not None or tree.outside is not None or not tree.known:
        return None
    builder = _Builder()
    try:
        nullable, first, last = builder.build(tree.root)
    except (_Outside, RecursionError):
        return None
    if nullable:
        return None
    return Positions(
        tuple(builder.tests),
        tuple(sorted(first)),
        tuple(tuple(sorted(f)) for f in builder.follow),
        tuple(sorted(last)),
    )
