"""Held matches that keep growing: an open delimiter the model follows with endless whitespace.

A delimiter ending in ``\\s*`` (``<tool_call>\\s*``) that matches up to the end of the buffer
is held while streaming: more whitespace may still extend it. A looping model that writes the
open and then nothing but newlines makes the streaming search read the whole held match again
at every chunk: n²/2 characters for n of whitespace. This module proves, per delimiter, when
such a held match stays held whatever is appended from an alphabet ``A``, so that the runtime
can append those chunks without searching (``rtc.runtime.growing.grown``). ``A`` is what the
delimiter's trailing run takes: the characters ``\\s`` matches, when the run accepts all of
them; or every character but a few, for a run of a negated set (``[^<]*``). ``h`` is the held
match's start (the search position: after the general path everything before it was routed),
``n`` the end of the buffer. A branch's ``P`` below must not look ahead, commit (atomic groups,
possessive repeats), recurse, branch on a condition, move the reported start (``\\K``), or test
an assertion that reads the character after a position (``$``, ``\\Z``, ``\\b``...): then a path
through ``P`` that succeeds without reading past ``n`` succeeds the same way on any longer text.

**Runs to the end** (the branch is ``P S``, ``S`` a greedy unbounded repeat of a class accepting
all of ``A``, or ``P S Z``, ``Z`` alternatives each an end assertion or needing a character
outside ``A`` first, one an end assertion: where ``S`` stops at the end, ``Z`` matches there, as
``S`` alone would; checked once: ``G.match(buf, h)`` ends at ``n``, ``G`` the pattern's leading
such branches; or, where every ``P`` is a literal, the held text is the first of them it starts
with, then only ``A``). The regex module's first successful path through ``G`` at ``h`` (which a
non-partial ``match`` and a partial-mode search both report: a partial-mode search prefers a
complete match) is a path through ``P`` ending at some ``e``, then ``S`` taking every ``A``
character after ``e``: it ends at ``n``. Append a chunk of ``A``. Paths tried before that one
failed without reading past ``n`` (then they fail again) or read past ``n`` inside ``P`` (then
``P`` ends at or after ``n``, and ``S`` takes the rest of the chunk: a success ending at the new
end); that path itself still succeeds, ``S`` now also taking the chunk. So the first success
again ends at the buffer's end: a complete match at ``h`` that may still grow, held; no match of
the pattern's later branches is tried before it.

**Waits for a character** (every branch ``P S (?=Y)...`` or ``P (?=R Q)...``: the first
look-ahead after the run ``S``, or the run ``R`` that leads it, needs a character outside ``A``
next (``Y``, ``Q`` cannot match the empty string nor begin with a character of ``A``); checked
once: the held text starts with ``P``'s literal prefix, then holds only ``A``, and ``P`` matches
at ``h`` (or ``P`` is literals and the held text is one of them, then only ``A``; or ``Y`` is
settled, one character class or a pattern each of whose matches ends with a character outside
``A`` and in which nothing reads on, and ``G = P S`` ends at ``n`` as above)). No path completes
at ``h``: every path through ``P`` ends after the literal prefix, where only ``A`` follows to
the end, so the look-ahead's first character can only be sought at the end of the text (it runs
into it: a partial match) or at a character of ``A`` (it fails there). For a one-character ``Y``
the look-ahead reads only that character, which the buffer already held; a settled ``Y`` that
matched on the longer text but not before would have read past the old end, and so consumed a
character of ``A`` last. A branch whose ``P`` consumes nothing (``^``, look-behinds) may have
any ``Y`` if it comes before every branch with a settled ``Y`` (``G`` is each branch ``P
S``): its paths all end at ``h`` and fail or succeed alike after the chunk, and one that
succeeds with its run ending before the end would be ``G``'s first success, which is checked to
end at the end. A path through ``P`` succeeds at ``h`` (it did before the chunk, so it does
after it), so the partial match at ``h`` stays; a partial match holds the text from ``h``.

**Waits inside its look-ahead** (the only branch is ``P (?=X S C)``: ``X`` cannot match the empty
string, begins with a character outside ``A`` and is settled as ``Y`` above, ``S`` a run, ``C``
one character outside ``A``; ``P`` plain as above. llama3's call head waits so for the closing
brace after the arguments' value: ``...:\\s*(?=(?&jv)\\s*\\})``; checked once: ``G = P X S``
matches at ``h`` and ends at ``n``). The held match is partial: a complete one would have been
committed (``C`` stands in the old text, before ``n``, so the match ends at ``P``'s end). After a
chunk of ``A``: a path through ``P`` that reads past the old end ends in the chunk, where ``X``
cannot begin; ``X`` settled matches there as before; ``S`` and then ``C`` need a character outside
``A``, which only the old text holds, so a path that succeeds now succeeded before. ``G``'s path
still runs to the new end, where ``C`` is sought: the partial match stays at ``h``. A delimiter
may hold two checks (this one, and one of the kinds above for its head: ``growths``).

**Waits for a consumed character** (one branch ``P S Y...``: the run ``S`` of ``A``, then ``Y``,
which cannot match the empty string and each of whose matches begins with a character outside
``A``, consumed, not looked at: qwen3.5's ``<function=(?P<name>[^>\n]+)>``; checked once: ``P``
matches at ``h``, and every character from ``h + m`` to the end is in ``A``, ``m`` a lower bound
of the length of ``P``'s matches). A match attempt at any ``q >= h`` puts the first character
of ``Y`` at ``q + m`` or later, where only ``A`` stands, before the chunk and after it: no
complete match starts at or after ``h``. A path through ``P`` ends at ``h + m`` or later
(``P`` is plain, as above: it ends the same after the chunk), ``S`` takes the ``A`` characters
after it to the end, where ``Y`` is sought: the partial match at ``h`` stays, the regex
module's partial-mode search reports it (there is no complete match to prefer).

In every case the state's hold stays ``h``: every complete match of any delimiter starts at
``h`` or later, and waits (a match at or after a pending one is not committed). The general
path would route nothing and commit nothing: appending the chunk is exact.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from rtc.runtime.matching import SPACE_CHARS

from . import nodes as n
from .chars import CharSet, accepts
from .first import first_chars
from .lengths import can_match_empty, max_length, min_length
from .literal import literal_prefix
from .parser import parse


@dataclass(frozen=True)
class Growth:
    """How to check, once, that a held match keeps growing (module docstring), and what it
    may grow by: ``stops`` None, whitespace; else any character but those in ``stops``.

    The held text is the first of ``literals`` it starts with, then only such characters; or
    ``pattern``'s ``match`` at the held text's start ends at the buffer's end (``prefix`` "");
    or it succeeds, and the held text is ``prefix``, then only such characters. ``whole``: the
    pattern is the delimiter's own."""

    literals: tuple[str, ...] = ()
    pattern: str | None = None
    prefix: str = ""
    stops: str | None = None
    whole: bool = False
    complete: bool = False  # the held match is complete (runs to the end), not partial
    # A run of another class (``\w+``, ``[a-z_]*``): the characters it grows by are those the
    # class accepts (its source here; ``stops`` unused). Only for runs to the end.
    run: str = ""
    skip: int = 0  # waits for a consumed character: the held text from here on is all ``A``


_READS_ON = frozenset(
    {n.END, n.END_OR_NEWLINE, n.LINE_END, n.BOUNDARY, n.NOT_BOUNDARY, n.WORD_START, n.WORD_END}
)


def _flat(node: n.Node) -> list[n.Node]:
    """``node`` as the sequence it matches, plain and capturing groups opened up."""
    if isinstance(node, n.Seq):
        return [x for item in node.items for x in _flat(item)]
    if isinstance(node, n.Group) and node.kind in (n.CAPTURE, n.GROUP):
        return _flat(node.body)
    return [node]


def _branches(root: n.Node) -> tuple[n.Node, ...]:
    while isinstance(root, n.Group) and root.kind in (n.GROUP, n.CAPTURE):
        root = root.body
    return root.branches if isinstance(root, n.Alt) else (root,)


def _items(branch: n.Node) -> list[n.Node]:
    return list(branch.items) if isinstance(branch, n.Seq) else [branch]


def _direct(branch: n.Node) -> list[n.Node]:
    """A branch's own items, without the (?(DEFINE)...) groups at either end."""
    items = _items(branch)
    while items and isinstance(items[0], n.Define):
        items.pop(0)
    while items and isinstance(items[-1], n.Define):
        items.pop()
    return items


def _alphabet(node: n.Node) -> str | None:
    """What a greedy unbounded repeat of a class lets a held match grow by: "" for
    whitespace (it accepts every character of ``\\s``), else the characters a negated set of
    single characters stops at (``[^<]*``: "<"); None for any other node."""
    if not (isinstance(node, n.Repeat) and node.high is None and node.mode == n.GREEDY):
        return None
    body = node.body
    if not isinstance(body, n.Class):
        return None
    items = body.items
    if body.negated and items and all(i.escape == "" and i.lo and i.lo == i.hi for i in items):
        if not body.fold:
            return "".join(i.lo for i in items)
    if all(accepts(body, c) for c in SPACE_CHARS):
        return ""
    return None


def _class_run(node: n.Node) -> str | None:
    """The source of the class a greedy unbounded repeat takes (inside capturing or plain
    groups), where ``_alphabet`` has no name for it: a held match running to the end grows by
    what the class accepts, asked of the ``regex`` module at run time."""
    while isinstance(node, n.Group) and node.kind in (n.CAPTURE, n.GROUP):
        node = node.body
    if not (isinstance(node, n.Repeat) and node.high is None and node.mode == n.GREEDY):
        return None
    body = node.body
    if not isinstance(body, n.Class) or body.fold or not body.dotall:
        return None
    return body.source if _alphabet(node) is None else None


def _plain(nodes: list[n.Node]) -> bool:
    """``P``'s condition: nothing in it looks ahead, commits, recurses or reads on."""
    for x in (y for node in nodes for y in n.walk(node)):
        if isinstance(x, (n.Keep, n.Call, n.Cond, n.Define, n.Unknown, n.Backref)):
            return False
        if isinstance(x, n.Group) and x.kind not in (n.CAPTURE, n.GROUP, n.BEHIND, n.NOT_BEHIND):
            return False  # look-aheads, atomic groups
        if isinstance(x, n.Repeat) and x.mode == n.POSSESSIVE:
            return False
        if isinstance(x, n.Assert) and (x.kind in _READS_ON or x.kind == n.SEARCH_START):
            return False
    return True


def _outside(tree: n.Tree, node: n.Node, stops: str) -> bool:
    """``node`` cannot match the empty string, and no match of it begins with a character
    the run may grow by."""
    return not can_match_empty(tree, node) and _begins_outside(tree, node, stops)


def _begins_outside(tree: n.Tree, node: n.Node, stops: str) -> bool:
    """No match of ``node`` begins with a character the run may grow by."""
    first = first_chars(tree, node, complete=True)
    if first is None:
        return False
    if stops:
        return all(len(c) == 1 and c in stops for c in first.members)
    return not any(c in first for c in SPACE_CHARS)


def _union(found: Iterable[CharSet | None]) -> CharSet | None:
    """The union of character sets (None: one is unknown)."""
    out = CharSet()
    for chars in found:
        if chars is None:
            return None
        out = out | chars
    return out


def _literals(items: list[n.Node]) -> tuple[str, ...] | None:
    """The literals ``P`` (as its items) is a set of, in the order they are tried (a literal,
    or one alternation of literals), else None."""
    flat = [x for item in items for x in _flat(item)]
    if len(flat) == 1 and isinstance(flat[0], n.Alt):
        branches = [_flat(b) for b in flat[0].branches]
    else:
        branches = [flat]
    out = []
    for branch in branches:
        if not branch or not all(isinstance(x, n.Char) and not x.fold for x in branch):
            return None
        out.append("".join(x.char for x in branch if isinstance(x, n.Char)))
    return tuple(out)


def _exclusive(texts: tuple[str, ...]) -> bool:
    """No literal is a proper prefix of another."""
    return all(a == b or not b.startswith(a) for a in texts for b in texts)


def _span(pattern: str, items: list[n.Node]) -> str:
    return pattern[items[0].start : items[-1].end] if items else ""


@dataclass(frozen=True)
class _Branch:
    """A branch read as ``P`` then its run (consumed, or leading the first look-ahead)."""

    p: list[n.Node]
    stops: str
    waits: bool  # look-aheads follow the run
    # Appending the run's characters cannot make the first look-ahead match where it did not:
    # it reads one character, or each of its matches ends with a character outside the run's
    # and nothing in it reads on (``_ends_outside``).
    settled: bool
    consumed: bool  # the run is consumed (P S ...), not inside the look-ahead (P (?=R Q))
    run: str = ""  # the run's class (its source) where it is not one ``stops`` names


def _read(tree: n.Tree, branch: n.Node) -> _Branch | None:
    items = _direct(branch)
    if len(items) >= 2 and (stops := _alphabet(items[-2])) is not None:
        if _ends_at_end(tree, items[-1], stops):
            # P S Z, Z matching the empty string at the end: a run to the end as P S.
            return _Branch(items[:-2], stops, False, False, True) if _plain(items[:-2]) else None
    ahead = 0
    while ahead < len(items) and _ahead(items[-1 - ahead]):
        ahead += 1
    body, looks = items[: len(items) - ahead], items[len(items) - ahead :]
    if body and not looks and (run := _class_run(body[-1])) is not None:
        # P S, S a run of another class, to the end (see Growth.run).
        return _Branch(body[:-1], "", False, False, True, run) if _plain(body[:-1]) else None
    if body and (stops := _alphabet(body[-1])) is not None:
        if not _plain(body[:-1]):
            return None
        if not looks:
            return _Branch(body[:-1], stops, False, False, True)
        first = looks[0].body  # type: ignore[attr-defined]
        if not _outside(tree, first, stops):
            return None
        flat = _flat(first)
        one = len(flat) == 1 and isinstance(flat[0], (n.Char, n.Class))
        return _Branch(body[:-1], stops, True, one or _ends_outside(tree, first, stops), True)
    if not looks or not _plain(body):
        return None
    inner = _flat(looks[0].body)  # type: ignore[attr-defined]
    if len(inner) < 2 or (stops := _alphabet(inner[0])) is None:
        return None
    if not _outside(tree, n.Seq(0, 0, tuple(inner[1:])), stops):
        return None
    return _Branch(body, stops, True, False, False)


def _ends_at_end(tree: n.Tree, node: n.Node, stops: str) -> bool:
    """``Z`` after a run: alternatives each either an end assertion (``$``, ``\\Z``), or one
    that needs a character outside the run first (a look-ahead for one too), and at least one
    of the first kind. After the run has taken everything up to the end, the first
    alternative that succeeds there is an end assertion: the match ends at the end."""
    while isinstance(node, n.Group) and node.kind in (n.GROUP, n.CAPTURE):
        node = node.body
    branches = node.branches if isinstance(node, n.Alt) else (node,)
    ends = 0
    for branch in branches:
        flat = _flat(branch)
        if (
            len(flat) == 1
            and isinstance(flat[0], n.Assert)
            and flat[0].kind in (n.END, n.END_OR_NEWLINE)
        ):
            ends += 1
        elif len(flat) == 1 and _ahead(flat[0]):
            if not _outside(tree, flat[0].body, stops):  # type: ignore[attr-defined]
                return False
        elif not _outside(tree, branch, stops):
            return False
    return ends > 0


def _ahead(node: n.Node) -> bool:
    return isinstance(node, n.Group) and node.kind == n.AHEAD


def _modelled(pattern: str) -> n.Tree | None:
    """The pattern's tree, where the reader models all of it (else None)."""
    tree = parse(pattern)
    if tree.error is not None or tree.outside is not None or not tree.known or tree.inline:
        return None
    return tree


@functools.lru_cache(maxsize=512)
def growth(pattern: str) -> Growth | None:
    """How to check that the pattern's held match keeps growing (module docstring), or None
    where no branch allows it."""
    tree = _modelled(pattern)
    if tree is None:
        return None
    branches = _branches(tree.root)
    read = [_read(tree, b) for b in branches]
    if read and all(r is not None and r.waits for r in read):
        return _waiting(tree, pattern, branches, [r for r in read if r is not None])
    lead: list[tuple[n.Node, _Branch]] = []
    for branch, r in zip(branches, read, strict=True):
        if r is None or r.waits:
            break
        lead.append((branch, r))
    if not lead or len({(r.stops, r.run) for _, r in lead}) != 1:
        return None
    stops = lead[0][1].stops or None
    run = lead[0][1].run
    sets = [_literals(r.p) for _, r in lead]
    if all(found is not None for found in sets):
        texts = tuple(t for found in sets for t in found or ())
        return Growth(literals=texts, stops=stops, complete=True, run=run)
    if len(lead) == len(branches):
        return Growth(pattern=pattern, stops=stops, whole=True, complete=True, run=run)
    source = "|".join(pattern[b.start : b.end] for b, _ in lead)
    if parse(source).error is not None:
        return None
    return Growth(pattern=source, stops=stops, complete=True, run=run)


def _ends_outside(
    tree: n.Tree, node: n.Node, stops: str, seen: frozenset[int] = frozenset()
) -> bool:
    """Every match of ``node`` ends with a character the run cannot take, and nothing in it
    (or in a group it calls) tests the character after a position, nor looks ahead but for
    what is like that itself: a match on a longer text that reads past the old end would
    consume a run character last, so every match of it there was a match before (and a
    look-ahead of that kind holds where it held before, and only there)."""
    called: set[int] = set()
    todo = [node]
    while todo:
        x = todo.pop()
        for y in n.walk(x):
            if isinstance(y, n.Group) and y.kind in (n.AHEAD, n.NOT_AHEAD):
                if id(y) in seen or not _ends_outside(tree, y.body, stops, seen | {id(y)}):
                    return False
            elif isinstance(y, n.Group) and y.kind not in (
                n.CAPTURE,
                n.GROUP,
                n.BEHIND,
                n.NOT_BEHIND,
            ):
                return False
            if isinstance(y, (n.Backref, n.Cond, n.Unknown, n.Keep)):
                return False
            if isinstance(y, n.Repeat) and y.mode == n.POSSESSIVE:
                return False
            if isinstance(y, n.Assert) and (y.kind in _READS_ON or y.kind == n.SEARCH_START):
                return False
            if isinstance(y, n.Call) and tree.number(y.group) not in called:
                called.add(tree.number(y.group))
                todo.append(tree.body(tree.number(y.group)))
    last = _lasts(tree, node, set())
    if last is None or not last.members:
        return False
    if stops:
        return all(len(c) == 1 and c in stops for c in last.members)
    return not any(c in last for c in SPACE_CHARS)


def _lasts(tree: n.Tree, node: n.Node, calling: set[int]) -> CharSet | None:
    """Every character a match of ``node`` can end with (None: unknown, or one may be
    empty)."""
    if isinstance(node, (n.Char, n.Class)):
        return CharSet.of(node)
    if isinstance(node, n.Seq):
        out = CharSet()
        for item in reversed(node.items):
            if isinstance(item, (n.Assert, n.Define)) or (
                isinstance(item, n.Group) and item.kind in (n.BEHIND, n.NOT_BEHIND)
            ):
                continue
            optional = isinstance(item, n.Repeat) and item.low == 0 and item.high != 0
            found = _lasts(tree, item.body if optional else item, calling)  # type: ignore[attr-defined]
            if found is None:
                return None
            out = out | found
            if not optional and not can_match_empty(tree, item):
                return out
        return None  # the sequence may match the empty string
    if isinstance(node, n.Alt):
        return _union(_lasts(tree, branch, calling) for branch in node.branches)
    if isinstance(node, n.Group) and node.kind in (n.CAPTURE, n.GROUP):
        return _lasts(tree, node.body, calling)
    if isinstance(node, n.Repeat):
        return None if node.low == 0 else _lasts(tree, node.body, calling)
    if isinstance(node, n.Call):
        number = tree.number(node.group)
        if number in calling:
            return CharSet()  # collected by the visit under way
        return _lasts(tree, tree.body(number), calling | {number})
    return None


def _consumes_nothing(tree: n.Tree, items: list[n.Node]) -> bool:
    return all(max_length(tree, x) == 0 for x in items)


def _waiting(
    tree: n.Tree, pattern: str, branches: tuple[n.Node, ...], read: list[_Branch]
) -> Growth | None:
    """Every branch waits for a character outside the run (module docstring)."""
    if len({r.stops for r in read}) != 1:
        return None
    stops = read[0].stops or None
    sets = [_literals(r.p) for r in read]
    texts = tuple(t for found in sets for t in found or ())
    if all(found is not None for found in sets) and texts and _exclusive(texts):
        return Growth(literals=texts, stops=stops)
    # Branches with a longer look-ahead first, each after a P that consumes nothing.
    longer = [not r.settled for r in read]
    if (
        all(r.consumed for r in read)
        and longer == sorted(longer, reverse=True)
        and all(r.settled or _consumes_nothing(tree, r.p) for r in read)
    ):
        # G: each branch up to its look-aheads.
        source = "|".join(
            _span(pattern, [*r.p, _direct(b)[len(r.p)]]) if r.p else _span(pattern, [_direct(b)[0]])
            for b, r in zip(branches, read, strict=True)
        )
        return Growth(pattern=source, stops=stops) if parse(source).error is None else None
    if len(read) == 1:
        p = read[0].p
        prefix = literal_prefix(parse(_span(pattern, p))) if p else None
        if prefix:
            return Growth(pattern=_span(pattern, p), prefix=prefix, stops=stops)
    return None


@functools.lru_cache(maxsize=512)
def growths(pattern: str) -> tuple[Growth, ...]:
    """Every check by which the pattern's held match keeps growing: ``growth``'s, then, for a
    pattern of one branch, one for a run inside its look-ahead (``_inside_look_ahead``) and
    one for a run before a consumed character outside it (``_before_consumed``)."""
    found = [growth(pattern)]
    tree = _modelled(pattern)
    branches = _branches(tree.root) if tree is not None else ()
    if tree is not None and len(branches) == 1:
        found.append(_inside_look_ahead(pattern, tree, branches[0]))
        found.append(_before_consumed(pattern, tree, branches[0]))
    return tuple(g for g in found if g is not None)


def _before_consumed(pattern: str, tree: n.Tree, branch: n.Node) -> Growth | None:
    """The only branch is ``P S Y...`` (module docstring: waits for a consumed character)."""
    items = [x for item in _direct(branch) for x in _flat(item)]
    for k in range(len(items) - 2, 0, -1):
        stops = _alphabet(items[k])
        if stops is None:
            continue
        p, rest = items[:k], items[k + 1 :]
        y = n.Seq(rest[0].start, rest[-1].end, tuple(rest))
        if not (stops and _plain(p) and _outside(tree, y, stops)):
            return None
        source = _span(pattern, p)
        if parse(source).error is not None:
            return None
        skip = sum(min_length(tree, x) for x in p)
        return Growth(pattern=source, stops=stops, skip=skip) if skip else None
    return None


def _inside_look_ahead(pattern: str, tree: n.Tree, branch: n.Node) -> Growth | None:
    """The only branch is ``P (?=X S C)`` (module docstring: waits inside its look-ahead)."""
    items = _direct(branch)
    if not items or not _ahead(items[-1]) or not _plain(items[:-1]):
        return None
    inner = _flat(items[-1].body)  # type: ignore[attr-defined]
    if len(inner) < 3 or (stops := _alphabet(inner[-2])) is None:
        return None
    x, last = n.Seq(inner[0].start, inner[-3].end, tuple(inner[:-2])), inner[-1]
    if not (isinstance(last, (n.Char, n.Class)) and _outside(tree, last, stops)):
        return None
    if not (_outside(tree, x, stops) and _ends_outside(tree, x, stops)):
        return None
    defines = [d for d in _items(branch) if isinstance(d, n.Define)]
    source = _span(pattern, items[:-1]) + _span(pattern, inner[:-1])
    source += "".join(pattern[d.start : d.end] for d in defines)
    return Growth(pattern=source, stops=stops or None) if parse(source).error is None else None
