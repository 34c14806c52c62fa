"""The pattern shapes today's fast paths are argued for, by pattern string.

Each function answers exactly what a lowering step asks for now (the search shapes of
``lowering.delimiters`` and ``lowering.eos``, the consumed-text needs of ``lowering.context``,
the always-present groups and parameter shapes of ``lowering.serving``), read off the one
tree. Property tests
showed them equal, on random patterns, to the ad-hoc readers they replaced (``prefilter``, the
scanners of ``lowering.context`` and ``lowering.serving``), except where those misread a
pattern (``{}`` taken for a quantifier, a literal ``{`` after a group taken for one) and, for a
pattern the tree does not model, where the answer here is the conservative one.

The search shapes are argued for a subset, spelling included (a fast path that copies a
pattern's text, such as a first-character class, copies it as written): characters written
plainly or escaped by ``\\`` (punctuation, ``\\n \\t \\r \\f \\v``), the class shorthands
``\\s \\S \\d \\D \\w \\W``, sets of those, groups ``( )``, ``(?: )`` and named ``(?P<n> )``,
``(?<n> )``, alternation and quantifiers, and no assertion of any kind (a match attempt at a
position then depends on the text from there only). The wider analyses of the package
(:func:`~.first.first_chars`, :func:`~.literal.lead_core`, :func:`~.context.context_bound`,
:func:`~.groups.always_groups`) answer for more patterns; a fast path moves to them with its
argument.
"""

from __future__ import annotations

import re

from rtc.runtime.matching import SPACE_CHARS

from . import nodes as n
from .chars import CharSet, accepts
from .context import looks_behind
from .context import start_sensitive as _start_sensitive
from .first import first_chars
from .lengths import can_match_empty
from .literal import exclusive
from .parser import parse

_CHAR_ESCAPES = "ntrfv"
_CLASS_ESCAPES = frozenset("sSdDwW")
# Characters the literal readers take only escaped (each has a meaning of its own somewhere).
_SPECIAL = frozenset("\\.^$*+?{}[]|()")
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_QUANTIFIER = re.compile(r"(?:[*+?]|\{\d*(?:,\d*)?\})[?+]?")


def _escaped(e: str) -> bool:
    """``\\e`` is one of the plain escapes of a character."""
    return e in _CHAR_ESCAPES or (e.isascii() and not e.isalnum())


def _plain_char(tree: n.Tree, node: n.Node, special: frozenset[str]) -> bool:
    """A character written as itself (unless ``special``) or as a plain escape."""
    if not isinstance(node, n.Char) or node.fold:
        return False
    text = tree.source(node)
    if len(text) == 1:
        return text not in special
    return len(text) == 2 and text[0] == "\\" and _escaped(text[1])


def _plain_set(source: str) -> bool:
    """A set whose members are written plainly: no ``[`` inside (nested sets and POSIX
    classes), no set operation, no escape but the plain ones and the class shorthands."""
    body = source[1:-1]
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            e = body[i + 1]
            if not (e in _CLASS_ESCAPES or _escaped(e)):
                return False
            i += 2
            continue
        if c == "[" or (c in "&~|-" and body[i + 1 : i + 2] == c):
            return False
        i += 1
    return True


def _plain(tree: n.Tree) -> bool:
    """Whether the whole pattern is in the fast paths' subset (see the module docstring)."""
    if tree.error is not None or tree.inline:
        return False
    for node in n.walk(tree.root):
        text = tree.source(node)
        if isinstance(node, n.Char):
            if not _plain_char(tree, node, frozenset("{}")):
                return False
        elif isinstance(node, n.Class):
            shorthand = len(text) == 2 and text[0] == "\\" and text[1] in _CLASS_ESCAPES
            if node.fold or not (shorthand or (node.is_set and _plain_set(text))):
                return False
        elif isinstance(node, n.Group):
            head = tree.pattern[node.start : node.head]
            named = node.name is not None and _NAME.fullmatch(node.name) is not None
            if not (
                (node.kind == n.CAPTURE and (head == "(" or named and head[-1] == ">"))
                or (node.kind == n.GROUP and head == "(?:")
            ):
                return False
        elif isinstance(node, n.Repeat):
            if not _QUANTIFIER.fullmatch(tree.pattern[node.body.end : node.end]):
                return False
        elif not isinstance(node, (n.Seq, n.Alt, n.Empty)):
            return False
    return True


def _items(node: n.Node) -> tuple[n.Node, ...]:
    return node.items if isinstance(node, n.Seq) else (node,)


def first_fragments(pattern: str) -> list[str] | None:
    """Fragments matching every possible first character of a match, or None (outside the
    subset, or the pattern can match the empty string): one literal character each (a
    ``str`` of length 1), or the source of a class as written (``\\s``, ``[^>]``)."""
    tree = parse(pattern)
    if not _plain(tree) or can_match_empty(tree):
        return None
    found = first_chars(tree)
    return None if found is None or not found.members else list(found.members)


def _literal_chars(tree: n.Tree, items: tuple[n.Node, ...]) -> str | None:
    """The text of ``items`` if each is a character written plainly (or a plain escape)."""
    if not items or not all(_plain_char(tree, item, _SPECIAL) for item in items):
        return None
    return "".join(item.char for item in items if isinstance(item, n.Char))


def literal_text(pattern: str) -> str | None:
    """The text a pattern made only of ordinary and escaped characters matches, else None.

    Such a pattern (no flags, classes, groups, quantifiers or assertions) matches exactly that
    text and nothing else, like ``str.find`` would find it."""
    tree = parse(pattern)
    if tree.error is not None or tree.inline:
        return None
    return _literal_chars(tree, _items(tree.root))


def literal_prefix(pattern: str) -> str | None:
    """The literal text every match of ``pattern`` begins with, or None (none, or unsure):
    its leading characters, each written plainly and not quantified.

    Only for patterns wholly inside the subset, which has no assertions of any kind: a match
    attempt at a position then depends only on the text from there, which is what lets a
    search jump from one occurrence of the prefix to the next (see
    ``rtc.runtime.matching.search_literal_led``). A top-level alternative has no common
    prefix."""
    tree = parse(pattern)
    if not _plain(tree) or isinstance(tree.root, n.Alt) or can_match_empty(tree):
        return None
    out = []
    for item in _items(tree.root):
        if not _plain_char(tree, item, _SPECIAL):
            break
        assert isinstance(item, n.Char)
        out.append(item.char)
    return "".join(out) or None


def whitespace_led(pattern: str) -> str | None:
    """For a pattern ``\\s*REST`` whose REST cannot begin with whitespace, REST; else None.

    Then the leftmost match of the pattern is the leftmost match of REST extended back over the
    whitespace run before it (never before the search position): a match of REST starts with a
    character that is not whitespace, so no run before a later match of REST can reach back
    past an earlier one. The ``regex`` module is slow to search such patterns itself."""
    tree = parse(pattern)
    lead = _items(tree.root)[0]
    if not (isinstance(lead, n.Repeat) and tree.source(lead) == "\\s*" and lead.start == 0):
        return None
    rest = pattern[lead.end :]
    rest_tree = parse(rest)
    if not _plain(rest_tree) or isinstance(rest_tree.root, n.Alt) or can_match_empty(rest_tree):
        return None
    found = first_chars(rest_tree)
    if found is None or not found.members or found.classes:
        return None
    if any(c in _WHITE_SPACE for c in found.chars):
        return None
    return rest


_WHITE_SPACE = CharSet(("\\s",))  # membership as the regex module reads \s


def lookahead_literal(pattern: str) -> str | None:
    """For ``(?=[\\s\\S]*?L)`` (or ``[\\S\\s]``, or ``.`` under DOTALL) with a plain literal L,
    return L; else None.

    Searched from ``pos``, such a pattern matches (empty, at ``pos``) exactly when L occurs at
    or after ``pos``; otherwise, in partial mode, it is a partial match from ``pos`` to the end.
    ``str.find`` answers that without the regex engine's scan of the whole held text."""
    tree = parse(pattern)
    root = tree.root
    if tree.error is not None or tree.inline or not isinstance(root, n.Group):
        return None
    if root.kind != n.AHEAD or tree.pattern[root.start : root.head] != "(?=":
        return None
    items = _items(root.body)
    skip = items[0]
    if not (
        isinstance(skip, n.Repeat)
        and tree.source(skip) in ("[\\s\\S]*?", "[\\S\\s]*?", ".*?")
        and skip.start == root.head
    ):
        return None
    return _literal_chars(tree, items[1:])


def literal_then_spaces(pattern: str) -> str | None:
    """For ``L\\s*`` with a literal L, L; else None.

    Its leftmost match starts at the first occurrence of L (``\\s*`` may match nothing) and
    ends after the whitespace run that follows it (greedy, and nothing comes after it)."""
    tree = parse(pattern)
    if tree.error is not None or tree.inline:
        return None
    *head, last = _items(tree.root)
    if not (isinstance(last, n.Repeat) and tree.source(last) == "\\s*"):
        return None
    return _literal_chars(tree, tuple(head))


def literal_alternatives(pattern: str) -> tuple[str, ...] | None:
    """For ``L1|L2|...`` (possibly in one ``(?:...)``) of plain literals none of which is a
    prefix of another, the literals; else None.

    At any position at most one of them can match (two matching at one position would make one
    a prefix of the other), so the leftmost match is the leftmost occurrence of any of them,
    whatever the order of the alternatives."""
    tree = parse(pattern)
    if tree.error is not None or tree.inline:
        return None
    root = tree.root
    if isinstance(root, n.Group) and tree.pattern[root.start : root.head] == "(?:":
        root = root.body
    if not isinstance(root, n.Alt):
        return None
    return exclusive([_literal_chars(tree, _items(branch)) for branch in root.branches])


def dollar_alternative(pattern: str) -> tuple[str, bool] | None:
    """For ``R|$`` or ``R|\\Z`` at the top level, ``(R, is_dollar)``; else None.

    Only for R in the subset (no assertions, flags or back-references: a match at a position
    depends only on the text from there) that cannot match the empty string. The leftmost
    match of the whole pattern is then R's leftmost match if it starts at or before the first
    position where the end alternative holds (``$``: before a final newline or at the end;
    ``\\Z``: at the end), R being tried first there; else the empty match at that position."""
    tree = parse(pattern)
    root = tree.root
    if tree.error is not None or not isinstance(root, n.Alt):
        return None
    last = root.branches[-1]
    text = tree.source(last)
    if text not in ("$", "\\Z") or last.end != len(pattern):
        return None
    rest = pattern[: last.start - 1]
    if first_fragments(rest) is None:
        return None
    return rest, text == "$"


def needs_context(pattern: str) -> bool:
    """Whether a match at ``pos`` may depend on text before ``pos`` (conservative): an
    assertion that reads the character before (``^``, ``\\A``, ``\\b``, ``\\B``, ``\\m``,
    ``\\M``), ``\\G``, ``\\K``, look-behinds, and everything not worth reasoning about here:
    inline flags, atomic groups, conditionals, calls, named back-references, sets holding a
    ``[``, and anything the parser does not model."""
    tree = parse(pattern)
    if tree.error is not None or tree.inline:
        return True
    for node in n.walk(tree.root):
        text = tree.source(node)
        if isinstance(node, n.Assert):
            if node.kind not in (n.END, n.END_OR_NEWLINE, n.LINE_END):
                return True
        elif isinstance(node, n.Group):
            head = tree.pattern[node.start : node.head]
            if (
                node.kind in (n.BEHIND, n.NOT_BEHIND, n.ATOMIC)
                or head.startswith("(?")
                and (node.kind == n.GROUP and head != "(?:")
            ):
                return True
        elif isinstance(node, n.Backref):
            if text.startswith("(?P="):
                return True
        elif isinstance(node, n.Class):
            if node.is_set and any(i.source == "[" or i.escape.startswith("[") for i in node.items):
                return True
        elif isinstance(node, (n.Keep, n.Cond, n.Define, n.Call, n.Unknown)):
            return True
    return False


def looks_back(pattern: str) -> bool:
    """Whether a match may read text any distance before the search position: a
    look-behind, or anything the parser does not model (the reverse and word-boundary flags,
    ``\\X``, ...)."""
    tree = parse(pattern)
    return not tree.known or looks_behind(tree)


def start_sensitive(pattern: str) -> bool:
    """Whether a match depends on where the search started (``\\G``), reports a start after
    where its attempt began (``\\K``), or the pattern is not fully modelled."""
    return _start_sensitive(parse(pattern))


def always_groups(pattern: str) -> set[str]:
    """Named groups that take part in every match of ``pattern``, conservatively: groups
    written ``(?P<name>...)`` at the top level of a pattern without a top-level ``|``, not
    made optional by a quantifier (only ``+`` may follow), each name given once; none if the
    pattern has inline flags, comments, conditionals, calls, named back-references, branch
    resets, sets holding a ``[``, or anything the parser does not model."""
    tree = parse(pattern)
    if not tree.known or tree.error is not None or tree.inline or isinstance(tree.root, n.Alt):
        return set()
    for node in n.walk(tree.root):
        if isinstance(node, (n.Cond, n.Define, n.Call)):
            return set()
        if isinstance(node, n.Backref) and tree.source(node).startswith("(?P="):
            return set()
        if isinstance(node, n.Group) and node.kind == n.GROUP:
            if tree.pattern[node.start : node.head] != "(?:":
                return set()
        if isinstance(node, n.Class) and node.is_set:
            if any(i.source == "[" or i.escape.startswith("[") for i in node.items):
                return set()
    written = [
        x.name
        for x in n.walk(tree.root)
        if isinstance(x, n.Group) and x.name and tree.source(x).startswith("(?P<")
    ]
    found = set()
    for item in _items(tree.root):
        group = item
        if isinstance(item, n.Repeat):
            if not tree.pattern[item.body.end : item.end].startswith("+"):
                continue
            group = item.body
        if isinstance(group, n.Group) and group.name and tree.source(group).startswith("(?P<"):
            if written.count(group.name) == 1:
                found.add(group.name)
    return found


def _run(tree: n.Tree, items: tuple[n.Node, ...], i: int) -> tuple[str, int]:
    """The literal text of the plainly written characters from ``items[i]`` on, and the index
    after them."""
    j = i
    while j < len(items) and _plain_char(tree, items[j], _SPECIAL):
        j += 1
    return _literal_chars(tree, items[i:j]) or "", j


def _whitespace_run(tree: n.Tree, items: tuple[n.Node, ...], i: int) -> int:
    """The index after an optional ``\\s*`` at ``items[i]``."""
    return i + 1 if i < len(items) and tree.source(items[i]) == "\\s*" else i


def _named(tree: n.Tree, node: n.Node, name: str) -> n.Node | None:
    """The body of ``node`` if it is the group ``(?P<name>...)``, else None."""
    if not (isinstance(node, n.Group) and node.kind == n.CAPTURE and node.name == name):
        return None
    return node.body if tree.pattern[node.start : node.head] == f"(?P<{name}>" else None


def param_shape(tag_pattern: str) -> str | None:
    """The literal ending each parameter, if matches of ``tag_pattern`` are final as soon as
    they are found in a prefix of the body; else None.

    The shape is ``L1 (?P<key>C+) L2 W1 (?P<value>.*?) W2 L3`` (DOTALL), with literals L1, L2,
    L3, each W empty or ``\\s*``, C a class (a set written plainly, or a shorthand) unable to
    match the first character of L2, and L3 not beginning with whitespace. Argument, for a body
    T and a prefix P of it: a match attempt at q can only put L2 at f(q), the first position
    from q+|L1| where C fails (the key cannot stop earlier, since C matches the character there
    and L2's first cannot), and f grows with q. An attempt that succeeds in P ends at the end of
    the first L3 that starts at or after its value's start, an occurrence that lies in P, so it
    is the same match in T. For an attempt at q before a match M found in P, f(q) <= f(M.start),
    its whitespace run cannot pass M's L3 (which begins with a non-space), so its value starts
    no later than M's L3 and every path it tries ends inside P: it fails or succeeds in T
    exactly as in P. So finditer on P yields the first matches of finditer on T, and nothing in
    T comes between them.
    """
    tree = parse(tag_pattern)
    if tree.error is not None or tree.inline:
        return None
    items = _items(tree.root)
    l1, i = _run(tree, items, 0)
    key = _named(tree, items[i], "key") if l1 and i < len(items) else None
    if not (
        isinstance(key, n.Repeat)
        and (key.low, key.high, key.mode) == (1, None, n.GREEDY)
        and tree.pattern[key.body.end : key.end] == "+"
        and isinstance(key.body, n.Class)
        and not key.body.fold
    ):
        return None
    text = tree.source(key.body)
    if not (
        (len(text) == 2 and text[1] in _CLASS_ESCAPES) or (key.body.is_set and _plain_set(text))
    ):
        return None
    l2, i = _run(tree, items, i + 1)
    i = _whitespace_run(tree, items, i)
    value = _named(tree, items[i], "value") if l2 and i < len(items) else None
    if value is None or tree.source(value) != ".*?":
        return None
    l3, i = _run(tree, items, _whitespace_run(tree, items, i + 1))
    if not l3 or i != len(items) or accepts(key.body, l2[0]) or l3[0] in SPACE_CHARS:
        return None
    return l3
