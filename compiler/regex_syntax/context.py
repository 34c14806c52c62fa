"""How far before the search position a pattern's matches can look, and what else ties a match
to where the search started.

A scanner that drops consumed text keeps ``context_bound`` characters before its search
position; searching the trimmed buffer then gives the same answers as searching the whole one.

**The bound** (:func:`context_bound`). A match attempt starts at the search position ``s``
(or later). Only these constructs read text before the position where they stand: ``\\b``,
``\\B``, ``\\m``, ``\\M`` and a multi-line ``^`` read the one character before it; ``\\A`` and
a plain ``^`` ask whether there is one (so one kept character keeps them from holding at a
trimmed buffer's start); a look-behind whose body matches at most ``L`` characters reads ``L``
characters back (its body matched from ``L`` back: plus whatever the assertions inside it read
before that). Where such a construct stands after at least ``k`` consumed characters, it reads
at most ``max(0, reach - k)`` before ``s``: ``k`` is the least any path to it consumes
(:func:`~.lengths.min_length` of what comes before it in its sequence), so the bound holds on
every path. A repeat's body is bounded by its first iteration (later ones stand further on); a
call by its group's bound taken from the group's start (0 consumed: the worst case), which a
recursive call cannot raise. Everything else (characters, back-references, which read what
this match consumed, ``$``, ``\\Z``, look-aheads' own position) reads nothing before ``s``.

It is unknown (None) for a look-behind with no length bound (``(?<=a+)``, a call inside it)
and for anything the parser does not model (:class:`~.nodes.Unknown`, e.g. the reverse and
word flags, ``\\X``).

``\\G`` and ``\\K`` read nothing before ``s`` but make a match depend on where the search
started (``\\G``) or report a start other than where the attempt began (``\\K``):
:func:`start_sensitive`.
"""

from __future__ import annotations

from . import nodes as n
from .lengths import max_length, min_lengths


class _Unbounded(Exception):
    pass


def context_bound(tree: n.Tree) -> int | None:
    """The most characters before the search position a match can read (None: unbounded or
    unknown). See the module docstring for the argument."""
    try:
        return _Reach(tree).of(tree.root, 0)
    except _Unbounded:
        return None


class _Reach:
    def __init__(self, tree: n.Tree) -> None:
        self.tree = tree
        self.min_length = min_lengths(tree)
        self.groups: dict[int, int] = {}  # a called group's reach from its own start
        self.active: set[int] = set()

    def of(self, node: n.Node, k: int) -> int:
        """What ``node`` reads before the attempt's start, standing after ``k`` characters."""
        if isinstance(node, n.Assert):
            return max(0, 1 - k) if node.kind in n.LOOKS_BEFORE else 0
        if isinstance(node, n.Seq):
            out = 0
            for item in node.items:
                out = max(out, self.of(item, k))
                k += self.min_length(item)
            return out
        if isinstance(node, n.Alt):
            return max(self.of(branch, k) for branch in node.branches)
        if isinstance(node, n.Group):
            if node.kind in (n.BEHIND, n.NOT_BEHIND):
                width = max_length(self.tree, node.body)
                if width is None:
                    raise _Unbounded
                return max(0, width + self.of(node.body, 0) - k)
            return self.of(node.body, k)
        if isinstance(node, n.Repeat):
            return self.of(node.body, k) if node.high != 0 else 0
        if isinstance(node, n.Cond):
            test = self.of(node.test, k) if isinstance(node.test, n.Group) else 0
            return max(test, self.of(node.yes, k), self.of(node.no, k))
        if isinstance(node, n.Call):
            return max(0, self.group(self.tree.number(node.group)) - k)
        if isinstance(node, n.Unknown):
            raise _Unbounded
        return 0  # characters, classes, back-references, \K, DEFINE (its groups: by calls)

    def group(self, number: int) -> int:
        # A recursive call adds nothing: the group's reach from its own start is the worst
        # case for every call, and the visit already under way measures it. A result found
        # while another group's visit is under way may lack what that group reads (cut
        # there as recursion), so only a visit that started with nothing under way is kept.
        if number in self.groups:
            return self.groups[number]
        if number in self.active:
            return 0
        outermost = not self.active
        self.active.add(number)
        reach = self.of(self.tree.body(number), 0)
        self.active.discard(number)
        if outermost:
            self.groups[number] = reach
        return reach


def looks_behind(tree: n.Tree) -> bool:
    """Whether the pattern has a look-behind."""
    return any(
        isinstance(x, n.Group) and x.kind in (n.BEHIND, n.NOT_BEHIND) for x in n.walk(tree.root)
    )


def start_sensitive(tree: n.Tree) -> bool:
    """Whether a match depends on where the search started (``\\G``) or reports a start after
    where its attempt began (``\\K``), or the pattern is not modelled at all (e.g. the reverse
    flag; the parts modelled as unknown inside a pattern, ``\\X``, ``\\R``, do neither)."""
    return tree.outside is not None or any(
        isinstance(x, n.Keep) or (isinstance(x, n.Assert) and x.kind == n.SEARCH_START)
        for x in n.walk(tree.root)
    )


def settles_where_it_starts(tree: n.Tree) -> bool:
    """Whether a start-sensitive pattern (``start_sensitive``) still lets one end-of-stream
    pass stand for a partial pass and the end-of-stream pass after it, when it is the only
    delimiter watched in its state (``lowering.context`` says when that is). Its ``\\G`` only
    opens each top-level branch (a match is attempted where the search starts, nowhere else)
    and its ``\\K`` comes only after everything it consumes (a match's reported start is then
    its end).

    Then, in that state at position p, the partial pass finds: a complete match ending before
    the end (committed by both passes alike); nothing complete or partial at p (both take the
    rest of the text as the region's: the end-of-stream search at the end finds at most an
    empty match there, which is not taken, as the one pass does not take it at p either); a
    partial match, which ran into the end before any ``\\K`` (reported from p: the partial
    pass stops at p, and the end-of-stream pass goes on from p, as the one pass does); or a
    complete match ending at the end that may still grow, reported at the end after a ``\\K``
    (the partial pass routes the text up to the end, and the empty match left at the end is
    not taken; the one pass finds that match starting at the end and does not take it either)
    or from p without one (as for a partial match)."""
    if tree.outside is not None or not tree.known:
        return False
    root = tree.root
    branches = root.branches if isinstance(root, n.Alt) else (root,)
    for branch in branches:
        items = branch.items if isinstance(branch, n.Seq) else (branch,)
        for i, x in enumerate(items):
            for y in n.walk(x):
                if isinstance(y, n.Assert) and y.kind == n.SEARCH_START and (i or y is not x):
                    return False
    return _keep_last(tree, root, True)


def _keep_last(tree: n.Tree, node: n.Node, nothing_after: bool) -> bool:
    """No ``\\K`` in ``node`` is followed by anything that consumes (``nothing_after``: what
    comes after ``node`` in the pattern consumes nothing)."""
    if isinstance(node, n.Keep):
        return nothing_after
    if isinstance(node, n.Seq):
        for i, item in enumerate(node.items):
            rest = all(max_length(tree, x) == 0 for x in node.items[i + 1 :])
            if not _keep_last(tree, item, nothing_after and rest):
                return False
        return True
    if isinstance(node, n.Alt):
        return all(_keep_last(tree, b, nothing_after) for b in node.branches)
    if isinstance(node, n.Group) and not node.is_lookaround:
        return _keep_last(tree, node.body, nothing_after)
    return not any(isinstance(y, n.Keep) for y in n.walk(node))
