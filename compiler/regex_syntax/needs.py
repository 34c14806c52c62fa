"""What every match of a pattern needs: the characters the fast path of ``feed()`` looks for.

``needs`` generalises ``lead_core`` to alternations and look-aheads. It answers a weaker
question than a literal core: not the text every match holds, but a set of characters ``core``
such that every match *needs* one of them, and the characters ``lead`` a match attempt may
read before it.

**The claim.** For a pattern with ``Needs(core, lead)``: a complete match reads (consumes, or
looks ahead at) a character of ``core``; and a match attempt that has not yet read one has
read only characters of ``lead``. So in a text without any ``core`` character there is no
complete match, and a partial match (an attempt that ran into the end of the text) covers only
``lead`` characters: one that ends in a character outside ``lead`` has none but the empty one
at the very end.

**Why it holds**, by the structure of the pattern read as the sequence of what it matches in
order (groups matched once opened up, as ``lead_core`` does):

- an item that needs nothing (a zero-width assertion, a look-behind, ``DEFINE``: they read at
  most the character before the position, which the attempt does not consume) is skipped;
- a literal character is needed: the items before it were all matched first, reading only
  ``lead`` characters (each adds its alphabet to ``lead``);
- an alternation is needed where every branch needs something: a match goes through one branch,
  which reads one of that branch's needed characters, after only the lead so far and that
  branch's own lead;
- a look-ahead ``(?=B)`` is needed where ``B`` needs something: it holds only where ``B``
  matches, which reads one of ``B``'s needed characters; an attempt that runs into the end
  inside it has read ``B``'s lead only (the engine may report that text as a partial match);
- a repeat taken at least once is needed where its body needs something (its first pass);
- anything else (an optional item, a class, a negative look-ahead, a back-reference or call)
  may or may not be matched: its characters join ``lead`` (``alphabet``), and the search goes
  on to the next item. Where an alphabet is unknown, or no item is needed, the answer is None.
  Except an optional item whose every match that reads anything begins with one of a few
  punctuation characters (``first_chars``: the ``<`` of ``(?:<|python_tag|>)?``): those join
  ``core`` instead. A complete match still reads a character of the larger ``core``; and an
  attempt that has read none of them has not entered that item (its first character is one),
  so it read nothing of it: the item leads nothing. (Letters and spaces are never moved to
  ``core``: a chunk of prose holds them far more often than it ends in them.)

``\\K`` makes the reported match begin after text the attempt read: None. A case-folded
character is not one character: it counts as a class. A lazy repeat before what is needed makes
the answer None: in partial mode the ``regex`` module reports an attempt that failed inside one
as a partial match running to the end of the text (``b*?a`` on ``"b1"`` gives ``"b1"``), over
characters no match could read.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import nodes as n
from .chars import CharSet
from .first import alphabet, first_chars

_FEW = 4
"""At most this many first characters of an optional item are moved to ``core``."""


@dataclass(frozen=True)
class Needs:
    """Every match reads one of ``core``; an attempt reads only ``lead`` before it."""

    core: frozenset[str]
    lead: CharSet


def needs(tree: n.Tree) -> Needs | None:
    """What every match of ``tree`` needs (see the module docstring), or None."""
    if tree.error or any(isinstance(x, n.Keep) for x in n.walk(tree.root)):
        return None
    return _needs(tree, tree.root)


def _zero_width(node: n.Node) -> bool:
    """Reads nothing the attempt consumes from here on: assertions, look-behinds, DEFINE, the
    empty pattern, and an alternation of only those."""
    if isinstance(node, (n.Assert, n.Define, n.Empty)):
        return True
    if isinstance(node, n.Group) and node.kind in (n.BEHIND, n.NOT_BEHIND):
        return True
    if isinstance(node, n.Alt):
        return all(
            _zero_width(b) or all(_zero_width(x) for x in n.opened(b)) for b in node.branches
        )
    return False


def _needs(tree: n.Tree, node: n.Node) -> Needs | None:
    lead = CharSet()
    entry: set[str] = set()  # the first characters of optional items moved to the core
    for item in n.opened(node):
        if _zero_width(item):
            continue
        found = _item(tree, item)
        if found is not None:
            return Needs(found.core | entry, lead | found.lead)
        if any(isinstance(x, n.Repeat) and x.mode == n.LAZY for x in n.walk(item)):
            return None  # see the module docstring: the engine's partial matches run on
        first = first_chars(tree, item)
        if (
            first is not None
            and not first.classes
            and 0 < len(first.chars) <= _FEW
            and not any(c.isalnum() or c.isspace() for c in first.chars)
        ):
            entry.update(first.chars)
            continue
        chars = alphabet(tree, item)
        if chars is None:
            return None
        lead = lead | chars
    return None


def _item(tree: n.Tree, item: n.Node) -> Needs | None:
    """What ``item`` needs when it is matched at all, or None (then it is lead)."""
    if isinstance(item, n.Char) and not item.fold:
        return Needs(frozenset(item.char), CharSet())
    if isinstance(item, n.Alt):
        branches = [_needs(tree, b) for b in item.branches]
        if any(b is None for b in branches):
            return None
        found = [b for b in branches if b is not None]
        lead = CharSet()
        for b in found:
            lead = lead | b.lead
        return Needs(frozenset().union(*(b.core for b in found)), lead)
    if isinstance(item, n.Group) and item.kind == n.AHEAD:
        return _needs(tree, item.body)
    if isinstance(item, n.Repeat) and item.low >= 1:
        return _needs(tree, item.body)
    return None
