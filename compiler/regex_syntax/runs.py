"""Whitespace runs: where a search may skip the inside of a run, and which patterns a
trailing run leads.

A looping model writes long runs of whitespace. A pattern that takes ``\\s*`` first is tried by
the ``regex`` module at every position of such a run, and each attempt reads the rest of the
run: a search over a run of n characters costs n²/2. Two facts about a pattern's tree avoid
that, both about the characters ``\\s`` matches (W below) and about each top-level alternative
(*branch*) of the pattern.

**Skipping the inside of a run** (:func:`skips_runs`). Call a position p *inside a run* when
the characters at p-1 and at p are both in W. The claim: an attempt at a position inside a run
that succeeds (a complete match; in partial mode, also a partial one) implies that the attempt
at p-1 succeeds too (complete, or partial or complete). Then a search never needs the attempts
inside a run: by induction down to the first position of the run (or the position where the
search starts, if that is later), the attempt there succeeds whenever one inside does, and it
comes first, so the leftmost match (and the leftmost partial match) never starts inside a run.
The claim holds when every branch is one of:

- *closed to whitespace*: it cannot begin at a character of W (its first item is a character
  or class accepting none of W; or the branch cannot match the empty string and every
  character a match can begin with, ``first_chars``, is outside W; or its first item is a
  look-ahead whose body is like that): the attempt fails at p, reading only p;
- *behind a non-space*: its first item is a look-behind whose body ends in a character or
  class accepting none of W, or a negative look-behind of a class accepting all of W
  (``(?<!\\s)``): it fails wherever the character before is in W, so at p;
- *whitespace-led*: optional items (``X?``, ``X*``... none of whose matches can begin with a
  character of W, so at p they consume nothing) and then an unbounded repeat of a class that
  accepts all of W (``\\s*`` or ``\\s+``), not inside an atomic group: an attempt at p that
  succeeds passes the optional items without consuming, the repeat takes the characters from
  p to some k, and the rest matches from k. At p-1 the optional items can consume nothing either
  (they can always be skipped), the repeat can take p-1 and then p to k (backtracking tries
  every length, whatever the order), and the rest at k is the same attempt (look-behinds in
  it read the same text): the attempt at p-1 succeeds the same way (and in partial mode,
  runs into the end of the text the same way).

A search for ``GUARD`` followed by the pattern then finds the same leftmost match as the
pattern, with the same span and groups: the guard (``\\G``, where the search starts, or not
inside a run) is zero-width and reads only the characters at p-1 and p, so at every position
it allows the attempt is the pattern's own, and at the others (inside a run) it fails at once
where the pattern's attempt could not have been the leftmost success. So a search over a run
of n characters costs about 2n instead of n²/2.

**A held run stays held** (:func:`runs_stay`): where every branch is closed to whitespace (not
by a look-behind) or whitespace-led after look-behinds, a partial match over a run of W keeps
running into the end of the text as more of W is appended (see the function).

**A trailing run leads a match** (:func:`run_led`): a whitespace-led branch whose ``\\s*`` is
greedy or possessive. In text where no match can complete (the streaming fast path's chunks:
no character every match needs), the attempt at the first character of a trailing run of W
skips the optional items and takes the run to the end of the text: a partial match starts
there. (A lazy run is left out: the ``regex`` module reports partial matches of lazy repeats
over text no match could read.)
"""

from __future__ import annotations

import functools

from rtc.runtime.matching import SPACE_CHARS

from . import nodes as n
from .chars import accepts
from .first import first_chars
from .lengths import can_match_empty
from .parser import parse

GUARD = "(?:\\G|(?<!\\s)|(?!\\s))"
"""Holds where a search starts and wherever the position is not inside a whitespace run."""


def _branches(tree: n.Tree) -> tuple[n.Node, ...]:
    root = tree.root
    while isinstance(root, n.Group) and root.kind in (n.GROUP, n.CAPTURE):
        root = root.body
    return root.branches if isinstance(root, n.Alt) else (root,)


def _items(node: n.Node) -> list[n.Node]:
    """``node`` as the sequence of what it matches, capturing and plain groups opened up
    (an atomic group stays whole: backtracking into it is not free)."""
    if isinstance(node, n.Seq):
        return [x for item in node.items for x in _items(item)]
    if isinstance(node, n.Group) and node.kind in (n.CAPTURE, n.GROUP):
        return _items(node.body)
    return [node]


def _no_space(node: n.Node) -> bool:
    """A character or class that accepts no character of W."""
    if isinstance(node, n.Char):
        return not node.fold and node.char not in SPACE_CHARS
    if isinstance(node, n.Class):
        return not any(accepts(node, c) for c in SPACE_CHARS)
    return False


def _every_space(node: n.Node) -> bool:
    """A character class that accepts every character of W (``\\s``)."""
    return isinstance(node, n.Class) and all(accepts(node, c) for c in SPACE_CHARS)


def _begins_without_space(tree: n.Tree, node: n.Node) -> bool:
    """No match of ``node`` begins at a character of W (and none is empty)."""
    items = _items(node)
    if items and _no_space(items[0]):
        return True
    if can_match_empty(tree, node):
        return False
    first = first_chars(tree, node)
    return first is not None and not any(c in first for c in SPACE_CHARS)


def _closed(tree: n.Tree, items: list[n.Node]) -> bool:
    """The branch fails at a character of W, or where the character before is one."""
    head = items[0]
    if isinstance(head, n.Group) and head.kind == n.AHEAD:
        return _begins_without_space(tree, head.body)
    if isinstance(head, n.Group) and head.kind == n.BEHIND:
        body = _items(head.body)
        return bool(body) and _no_space(body[-1])
    if isinstance(head, n.Group) and head.kind == n.NOT_BEHIND:
        body = _items(head.body)
        return len(body) == 1 and _every_space(body[0])
    return _no_space(head) or _begins_without_space(tree, n.Seq(0, 0, tuple(items)))


def _spaces_at(tree: n.Tree, items: list[n.Node]) -> int | None:
    """The index of the ``\\s*`` of a whitespace-led branch (see the module docstring)."""
    for i, item in enumerate(items):
        if not isinstance(item, n.Repeat):
            return None
        body = item.body
        if item.high is None and item.low <= 1 and _every_space(body):
            return i  # \s* or \s+: from p-1 it takes p-1 and what it took from p
        if item.low != 0:
            return None
        first = first_chars(tree, body)
        if first is None or any(c in first for c in SPACE_CHARS):
            return None
    return None


def _modelled(tree: n.Tree) -> bool:
    return tree.error is None and tree.outside is None and tree.known and not tree.inline


def skips_runs(tree: n.Tree) -> bool:
    """Whether a search may skip the positions inside whitespace runs (module docstring).
    Back-references and conditionals are left out: an optional item that matched empty at p
    and was skipped at p-1 leaves its group set in one attempt and unset in the other."""
    if not _modelled(tree):
        return False
    if any(isinstance(x, (n.Backref, n.Cond)) for x in n.walk(tree.root)):
        return False
    for branch in _branches(tree):
        items = _items(branch)
        if not items:
            return False
        if _spaces_at(tree, items) is None and not _closed(tree, items):
            return False
    return True


def run_skipping(pattern: str, tree: n.Tree) -> str | None:
    """``pattern`` behind :data:`GUARD` where :func:`skips_runs` holds and some branch is
    whitespace-led (else there are no runs to skip); else None."""
    if not skips_runs(tree):
        return None
    if not any(_spaces_at(tree, _items(b)) is not None for b in _branches(tree)):
        return None
    return f"{GUARD}(?:{pattern})"


def run_led(tree: n.Tree, branch: n.Node) -> bool:
    """Whether ``branch`` is whitespace-led, its run taken greedily or possessively (module
    docstring: in text where no match can complete, an attempt at the first character of a
    trailing run of W takes the run to the end of the text: a partial match starts there)."""
    if not _modelled(tree):
        return False
    items = _items(branch)
    at = _spaces_at(tree, items)
    return at is not None and _greedy(items[at])


def _greedy(node: n.Node) -> bool:
    """A repeat taken greedily or possessively (not lazily)."""
    return isinstance(node, n.Repeat) and node.mode != n.LAZY


def _behind(node: n.Node) -> bool:
    return isinstance(node, n.Group) and node.kind in (n.BEHIND, n.NOT_BEHIND)


@functools.lru_cache(maxsize=512)
def runs_stay(pattern: str) -> bool:
    """Whether a run of W from which the pattern has a partial match keeps it while more of W
    is appended: every branch either cannot begin at a character of W (look-behinds before
    that aside: closed to whitespace), or is whitespace-led after look-behinds, its run taken
    greedily or possessively. An attempt at a character of W that ran into the end of the text
    then went through the second kind: its look-behinds read only text before the position
    (unchanged), and its run takes what is appended too, to the new end."""
    tree = parse(pattern)
    if not _modelled(tree):
        return False
    for branch in _branches(tree):
        items = _items(branch)
        i = 0
        while i < len(items) and _behind(items[i]):
            i += 1
        rest = items[i:]
        if not rest:
            return False
        at = _spaces_at(tree, rest)
        if at is not None and _greedy(rest[at]):
            continue
        if not _closed(tree, rest):
            return False
    return True
