"""How many characters a pattern, or a part of it, can consume.

Assertions and look-arounds consume nothing and are taken as always true (which only widens
the bounds). A call is the called group's pattern: ``min_length`` is the least fixed point
reached from 0 (each step a valid lower bound, so stopping early stays sound); ``max_length``
is unbounded (None) through a recursive call. An :class:`~.nodes.Unknown` part may consume
anything: 0 at least, no bound at most.
"""

from __future__ import annotations

from collections.abc import Callable

from . import nodes as n

# Rounds of the least fixed point of group minimums through calls. Each round is a lower
# bound, so stopping here is sound (only less precise for deep recursion).
_ROUNDS = 32


def min_length(tree: n.Tree, node: n.Node | None = None) -> int:
    """A lower bound of the characters any match of ``node`` (default: the whole pattern)
    consumes; exact for patterns without assertions, back-references and calls. To measure
    many parts of one pattern, use :func:`min_lengths`."""
    return _min(tree, tree.root if node is None else node, group_minimums(tree))


def min_lengths(tree: n.Tree) -> Callable[[n.Node], int]:
    """``min_length`` for many nodes of one tree: the called groups' minimums, which every call
    of ``min_length`` works out over the whole tree, worked out once (one call per item of a
    long sequence would make that quadratic)."""
    called = group_minimums(tree)
    return lambda node: _min(tree, node, called)


def can_match_empty(tree: n.Tree, node: n.Node | None = None) -> bool:
    """Whether a match may be empty (True when unsure: conservative for every fast path that
    relies on a match holding something). ``\\K`` makes it so: the match reported starts
    where it stands, possibly at its end."""
    if any(isinstance(x, n.Keep) for x in n.walk(tree.root if node is None else node)):
        return True
    return min_length(tree, node) == 0


def group_minimums(tree: n.Tree) -> dict[int, int]:
    """The least characters a call of each called group consumes."""
    numbers = tree.called
    if not numbers:
        return {}
    mins = dict.fromkeys(numbers, 0)
    for _ in range(_ROUNDS):
        new = {number: _min(tree, tree.body(number), mins) for number in numbers}
        if new == mins:
            break
        mins = new
    return mins


def _min(tree: n.Tree, node: n.Node, called: dict[int, int]) -> int:
    if isinstance(node, (n.Char, n.Class)):
        return 1
    if isinstance(node, n.Seq):
        return sum(_min(tree, item, called) for item in node.items)
    if isinstance(node, n.Alt):
        return min(_min(tree, branch, called) for branch in node.branches)
    if isinstance(node, n.Group):
        return 0 if node.is_lookaround else _min(tree, node.body, called)
    if isinstance(node, n.Repeat):
        return node.low * _min(tree, node.body, called) if node.low else 0
    if isinstance(node, n.Cond):
        return min(_min(tree, node.yes, called), _min(tree, node.no, called))
    if isinstance(node, n.Call):
        return called.get(tree.number(node.group), 0)
    return 0  # assertions, \K, DEFINE, back-references (the group may be empty), unknown


def max_length(tree: n.Tree, node: n.Node | None = None) -> int | None:
    """The most characters any match of ``node`` (default: the whole pattern) consumes, or
    None when that is unbounded or unknown."""
    return _Max(tree).of(tree.root if node is None else node)


class _Max:
    def __init__(self, tree: n.Tree, reach: bool = False) -> None:
        self.tree = tree
        self.reach = reach  # count what look-aheads read (else what is consumed)
        self.active: set[int] = set()  # groups whose calls are being followed

    def of(self, node: n.Node) -> int | None:
        if isinstance(node, (n.Char, n.Class)):
            return 1
        if isinstance(node, n.Seq) and self.reach:
            consumed, most = 0, 0
            for item in node.items:
                here, length = self.of(item), max_length(self.tree, item)
                if here is None or length is None:
                    return None
                most, consumed = max(most, consumed + here), consumed + length
            return most
        if isinstance(node, (n.Seq, n.Alt)):
            parts = [self.of(c) for c in n.children(node)]
            if any(p is None for p in parts):
                return None
            known = [p for p in parts if p is not None]
            return sum(known) if isinstance(node, n.Seq) else max(known)
        if isinstance(node, n.Group):
            if node.kind in (n.AHEAD, n.NOT_AHEAD) and self.reach:
                return self.of(node.body)
            return 0 if node.is_lookaround else self.of(node.body)
        if isinstance(node, n.Repeat):
            body = self.of(node.body)
            if body == 0 or node.high == 0:
                return 0
            return None if body is None or node.high is None else body * node.high
        if isinstance(node, n.Cond):
            yes, no = self.of(node.yes), self.of(node.no)
            reads = isinstance(node.test, n.Group) and self.reach  # a look-around test
            test = self.of(node.test) if reads else 0  # type: ignore[arg-type]
            if yes is None or no is None or test is None:
                return None
            return max(yes, no, test)
        if isinstance(node, (n.Call, n.Backref)):
            number = self.tree.number(node.group)
            group = self.tree.body(number)
            return n.following(self.active, number, lambda: self.of(group), None)  # None: recursion
        if isinstance(node, n.Unknown):
            return None
        return 0  # assertions, \K, DEFINE


def max_reach(tree: n.Tree, node: n.Node | None = None) -> int | None:
    """The most characters a match attempt of ``node`` reads from where it starts: what it
    consumes, and what its look-aheads read past that (in partial mode a partial match can
    end there). None when unbounded or unknown."""
    return _Max(tree, reach=True).of(tree.root if node is None else node)
