"""The characters a match can begin with, and every character a part of a pattern can consume.

``first_chars`` is what a scanner's pass-through test needs: when the pattern cannot match the
empty string, every complete or partial match consumes a first character, and that character
is in the set; so a chunk holding none of them cannot begin a match. Assertions and
look-arounds consume nothing and are taken as always true (the set can only grow), but what a
look-ahead reads first counts (a partial match can end inside it); a
back-reference can begin with whatever its group can; a call with whatever the called group
can (a fixed point over the calls, which only add members). Unknown parts make it unknown, and
so does a lazy repeat where a match can begin (the engine's partial matches run on from there).
"""

from __future__ import annotations

from . import nodes as n
from .chars import CharSet
from .lengths import _min, group_minimums

# Rounds of the fixed point over calls (sets only grow, and there are finitely many
# fragments, so it settles; past this many rounds the answer is "unknown").
_ROUNDS = 32


class _Unknown(Exception):
    pass


def first_chars(tree: n.Tree, node: n.Node | None = None, complete: bool = False) -> CharSet | None:
    """Every character a match of ``node`` (default: the whole pattern) that consumes text
    can begin with; None if unknown. ``\\K`` makes it unknown: the reported match then begins
    later than the text it consumed first. ``complete``: of complete matches only (a lazy
    repeat then counts as its body does: the regex module's partial reports from lazy repeats
    only add partial matches)."""
    if any(isinstance(x, n.Keep) for x in n.walk(tree.root)):
        return None
    try:
        return _First(tree, complete).of(tree.root if node is None else node)
    except _Unknown:
        return None


class _First:
    def __init__(self, tree: n.Tree, complete: bool = False) -> None:
        self.tree = tree
        self.complete = complete
        self.mins = group_minimums(tree)
        self.called: dict[int, CharSet] = {}
        self.active: set[int] = set()  # groups whose back-references are being followed
        numbers = sorted({tree.number(c.group) for c in n.walk(tree.root) if isinstance(c, n.Call)})
        if numbers:
            self.called = {number: CharSet() for number in numbers}
            for _ in range(_ROUNDS):
                new = {number: self.of(tree.body(number)) for number in numbers}
                if new == self.called:
                    break
                self.called = new
            else:
                raise _Unknown

    def nullable(self, node: n.Node) -> bool:
        return _min(self.tree, node, self.mins) == 0

    def of(self, node: n.Node) -> CharSet:
        if isinstance(node, (n.Char, n.Class)):
            return CharSet.of(node)
        if isinstance(node, n.Seq):
            out = CharSet()
            for item in node.items:
                out = out | self.of(item)
                if not self.nullable(item):
                    break
            return out
        if isinstance(node, n.Alt):
            out = CharSet()
            for branch in node.branches:
                out = out | self.of(branch)
            return out
        if isinstance(node, n.Group):
            # A look-ahead consumes nothing, but in partial mode the engine reports a partial
            # match where a look-ahead reads to the end of the text: what it reads first counts.
            if node.kind in (n.BEHIND, n.NOT_BEHIND):
                return CharSet()
            return self.of(node.body)
        if isinstance(node, n.Repeat):
            if node.mode == n.LAZY and not self.complete:
                # In partial mode the regex module reports an attempt that failed in a lazy
                # repeat as a partial match from where it began, whatever is there
                # (``\bb*?[^a]a`` on "a"): a first character it cannot know.
                raise _Unknown
            return CharSet() if node.high == 0 else self.of(node.body)
        if isinstance(node, n.Cond):
            test = self.of(node.test) if isinstance(node.test, n.Group) else CharSet()
            return test | self.of(node.yes) | self.of(node.no)
        if isinstance(node, n.Backref):
            # What the group captured; a cycle of back-references adds nothing new (the
            # characters reachable first are collected by the visit already under way).
            number = self.tree.number(node.group)
            group = self.tree.body(number)
            return n.following(self.active, number, lambda: self.of(group), CharSet())
        if isinstance(node, n.Call):
            return self.called[self.tree.number(node.group)]
        if isinstance(node, n.Unknown):
            raise _Unknown
        return CharSet()  # assertions, \K, DEFINE


def alphabet(tree: n.Tree, node: n.Node) -> CharSet | None:
    """Every character a match attempt of ``node`` can read going forward: consume, or look
    at in a look-ahead (None if unknown)."""
    seen: set[int] = set()
    out = CharSet()
    stack = [node]
    while stack:
        here = stack.pop()
        if isinstance(here, (n.Char, n.Class)):
            out = out | CharSet.of(here)
        elif isinstance(here, n.Unknown):
            return None
        elif isinstance(here, (n.Backref, n.Call)):
            number = tree.number(here.group)
            if number not in seen:
                seen.add(number)
                stack.append(tree.body(number))
        elif isinstance(here, n.Group) and here.kind in (n.BEHIND, n.NOT_BEHIND):
            continue  # reads back, never on
        elif isinstance(here, n.Cond) and isinstance(here.test, n.Group):
            stack += [here.yes, here.no]
        elif not isinstance(here, n.Define):
            stack += reversed(n.children(here))
    return out
