"""The literal text a pattern's matches must hold: the whole text, a prefix, or a core.

The streaming fast paths search for literals with ``str.find`` (memchr-fast) rather than run
the regex engine over every chunk. What makes that exact is a literal every match must hold at
a known place; this module finds it.

**Lead and core** (:func:`lead_core`). The pattern is read as the sequence of what it must
match in order (groups that are neither optional nor repeated are opened up: their contents
are matched in sequence too). The *core* is the first run of literal characters in that
sequence; zero-width assertions and look-behinds between them are skipped (they consume
nothing and read at most one character on, so the characters stay adjacent in the text), and a
look-ahead ends the core (it may read on past it). Everything before the core is the *lead*.

The claim: every match, and every match attempt that gets as far as the core, consumes
``LEAD_TEXT + core + ...``, where every character of ``LEAD_TEXT`` is in ``lead`` and
``lead_min <= len(LEAD_TEXT) <= lead_max``. ``lead`` is the union of every character test in
the lead's parts (a back-reference or call counts with its group's characters); ``lead_min``
and ``lead_max`` add up their shortest and longest matches. It holds because each item of a
sequence matches right after the one before it, and assertions in the lead only remove
matches. A look-ahead in the lead consumes nothing but, in partial mode, can make the engine
report a partial match over the text it read: its characters count in ``lead`` and its reach
in ``lead_max`` (which is therefore "the most characters an attempt reads before the core").

Examples: ``\\s*<tool_call>`` has lead ``\\s`` and core ``<tool_call>``;
``(?:<｜DSML｜tool_calls>\\s*)?<｜DSML｜invoke name="...`` has as lead the characters of
``<｜DSML｜tool_calls>`` and ``\\s``, and core ``<｜DSML｜invoke name="``.

So a text without the core holds no complete match, and a partial match at the end of a text
is a run of at most ``lead_max`` lead characters followed by a proper prefix of the core (or
by nothing). The answer is "unknown" (None) when the top level is an alternation (no core is
shared), when no literal character is required before something the parser does not model
(:class:`~.nodes.Unknown`) or before the end (a case-folded character, ``(?i)``, is not
literal), and when the pattern uses ``\\K`` (the match it reports would begin after text it
consumed).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from . import nodes as n
from .chars import CharSet
from .first import alphabet
from .lengths import max_length, max_reach, min_length


@dataclass(frozen=True)
class LeadCore:
    """Every match is ``LEAD_TEXT + core + ...`` with each character of ``LEAD_TEXT`` in
    ``lead`` and ``lead_min <= len(LEAD_TEXT) <= lead_max``; every partial match is a run of
    at most ``lead_max`` characters of ``lead`` followed by a proper prefix of ``core`` (or
    holds the core whole)."""

    lead: CharSet  # every character a match attempt reads before the core
    lead_min: int  # the fewest characters a match consumes before the core
    lead_max: int | None  # the most characters an attempt reads before it (None: no bound)
    core: str
    core_start: int  # where the core is written in the pattern
    core_end: int


def _zero_width(node: n.Node) -> bool:
    """Consumes nothing and never reads past the current position: assertions (one character
    on either side at most), look-behinds, ``DEFINE``. (A look-ahead reads on, ``\\K``
    moves the reported start: both are handled apart.)"""
    return isinstance(node, (n.Assert, n.Define, n.Empty)) or (
        isinstance(node, n.Group) and node.kind in (n.BEHIND, n.NOT_BEHIND)
    )


def _literal(node: n.Node) -> bool:
    return isinstance(node, n.Char) and not node.fold


def _add(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def lead_core(tree: n.Tree) -> LeadCore | None:
    """The lead and core of ``tree`` (see the module docstring), or None."""
    if any(isinstance(x, n.Keep) for x in n.walk(tree.root)):
        return None
    items = n.opened(tree.root)
    lead = CharSet()
    lead_min = 0
    consumed: int | None = 0  # the most characters the lead's parts so far consume
    reads: int | None = 0  # the most characters they read (a look-ahead reads on)
    for index, item in enumerate(items):
        if _literal(item):
            return _core(items, index, lead, lead_min, reads)
        if _zero_width(item):
            continue
        if any(isinstance(x, n.Repeat) and x.mode == n.LAZY for x in n.walk(item)):
            # In partial mode the regex module reports an attempt that failed inside a lazy
            # repeat as a partial match running to the end of the text (b*?a on "b1" gives
            # "b1"), over characters the lead does not hold.
            return None
        chars = alphabet(tree, item)
        if chars is None:
            return None
        lead = lead | chars
        lead_min += min_length(tree, item)
        reach = max_reach(tree, item)
        reads = (
            None
            if reads is None or consumed is None or reach is None
            else max(reads, consumed + reach)
        )
        consumed = _add(consumed, max_length(tree, item))
    return None


def _core(
    items: list[n.Node], index: int, lead: CharSet, lead_min: int, lead_max: int | None
) -> LeadCore:
    chars: list[str] = []
    start = end = items[index].start
    for item in items[index:]:
        if _literal(item):
            assert isinstance(item, n.Char)
            chars.append(item.char)
            end = item.end
        elif not _zero_width(item):
            break  # a look-ahead ends the core too: it may read past the core's next character
    return LeadCore(lead, lead_min, lead_max, "".join(chars), start, end)


def literal_prefix(tree: n.Tree) -> str | None:
    """The literal text every match begins with (the core of a pattern with no lead)."""
    found = lead_core(tree)
    return found.core if found is not None and found.lead_max == 0 else None


def leading_literals(tree: n.Tree) -> tuple[str, ...] | None:
    """Literals one of which begins the text at the start of every match of ``tree``, or None
    (not known).

    Read off the pattern's first items, as a match attempt at a position reads them:
    literal characters (``A...``: every match begins with ``A``); a greedy optional group
    (``(?:A...)?B...``, as tool-call openers are written: ``A`` where the group is taken, else
    ``B``; ``AB`` where the group is the literal ``A`` alone, as in ``\\n?</response>``); a
    choice (``A...|B...``, ``(?:A|B)\\s*``: one of its branches' literals, each branch read
    with what follows the choice); an atomic group (``(?>A|AB)``: a match begins where its body
    matches, so with one of its body's literals, read without what follows: a choice made there
    is never taken back, so ``AB`` then what follows need not be a match where ``A`` comes
    first); a look-ahead with nothing after it (``(?=A)``, ``(?=<a>|<b>)``, as a branch:
    ``</t>|(?=<t>)``). The attempt matches
    those literals character by character, so a partial match (the attempt runs into the end of
    the text) is a proper prefix of one of them, or begins with one. Only ``(?(DEFINE)...)``
    and empty items may stand before them (they match nothing and read nothing). Not for a lazy
    group (in partial mode the regex module reports an attempt that failed inside a lazy repeat
    as a partial match over text it did not match), nor for patterns with ``\\K``."""
    if tree.error is not None or tree.outside is not None:
        return None
    if any(isinstance(x, n.Keep) for x in n.walk(tree.root)):
        return None
    found = _starts(n.opened(tree.root, atomic=False))
    return tuple(dict.fromkeys(found)) if found else None


def _starts(items: list[n.Node]) -> list[str] | None:
    """The literals every match of the sequence ``items`` begins with (see
    :func:`leading_literals`), or None."""
    items = [x for x in items if not isinstance(x, (n.Define, n.Empty))]
    if not items:
        return None
    first, rest = items[0], items[1:]
    if isinstance(first, n.Alt):
        found: list[str] = []
        for branch in first.branches:
            inside = _starts(n.opened(branch, atomic=False) + rest)
            if not inside:
                return None
            found += inside
        return found
    if isinstance(first, n.Repeat) and first.low == 0 and first.high == 1:
        if first.mode == n.LAZY:
            return None
        inside, after = _starts(n.opened(first.body, atomic=False)), _starts(rest)
        if not (inside and after):
            return None
        body = n.opened(first.body, atomic=False)
        if body and all(_literal(item) for item in body):
            # A group that is one literal (``\n?</response>``): where it is taken, the match
            # goes on with what follows at once, so it begins with the two together (and a
            # partial match there is a proper prefix of them, or begins with one).
            text = "".join(item.char for item in body if isinstance(item, n.Char))
            return [text + after_text for after_text in after] + after
        return inside + after
    # Read by its body alone: an atomic group or possessive {1} (what follows cannot make it
    # give a choice back), and a look-ahead only when last (an attempt that runs into the end
    # of the text inside one goes on after it as though it matched, and what follows may then
    # fail on text already there: no partial match, where the look-ahead alone has one).
    if (
        isinstance(first, n.Group)
        and (first.kind == n.ATOMIC or (first.kind == n.AHEAD and not rest))
        or isinstance(first, n.Repeat)
        and first.low == first.high == 1
    ):
        return _starts(n.opened(first.body, atomic=False))
    leading = _leading(items)
    return [leading] if leading else None


def _leading(items: list[n.Node]) -> str:
    """The literal characters ``items`` begin with (after ``DEFINE`` groups)."""
    chars: list[str] = []
    for item in items:
        if isinstance(item, (n.Define, n.Empty)) and not chars:
            continue
        if not _literal(item):
            break
        assert isinstance(item, n.Char)
        chars.append(item.char)
    return "".join(chars)


def literal_text(tree: n.Tree, node: n.Node | None = None) -> str | None:
    """The one text ``node`` (default: the whole pattern) matches, if it is a fixed literal:
    characters in sequence, through groups matched once; no assertion, class or choice."""
    items = n.opened(tree.root if node is None else node)
    if not items or not all(_literal(item) for item in items):
        return None
    return "".join(item.char for item in items if isinstance(item, n.Char))


# Zero-width tests whose answer can depend on text after the position or on where the range ends.
_READS_ON = frozenset(
    {n.END, n.END_OR_NEWLINE, n.LINE_END, n.BOUNDARY, n.NOT_BOUNDARY, n.WORD_START, n.WORD_END}
)


def literal_suffix(tree: n.Tree) -> str | None:
    """The literal text every match ends with, when nothing in the pattern reads text beyond
    it (no look-ahead, no end anchor, no word boundary, anywhere: called groups included);
    else None.

    Then no match ends after the last occurrence of that text, and a search bounded there
    (``endpos`` at the end of that occurrence) finds the same matches: a path that succeeds
    ends by then, and a path that reads further fails in both texts, since nothing can see
    where the range ends. A body repeating the start of a tag whose end never comes
    (``<parameter=k> x <parameter=k> x ...``) is then not read to its end from every start."""
    if tree.error is not None or not tree.known:
        return None
    for node in n.walk(tree.root):
        if isinstance(node, n.Group) and node.kind in (n.AHEAD, n.NOT_AHEAD):
            return None
        if isinstance(node, n.Assert) and node.kind in _READS_ON:
            return None
        if isinstance(node, n.Cond) and isinstance(node.test, n.Group):
            return None  # its test is a look-around (walk visits it, but be plain about it)
    return _tail(tree.root)[0] or None


def _tail(node: n.Node) -> tuple[str, bool]:
    """The literal text every match of ``node`` ends with, and whether that is all of it
    (through groups matched once; of an alternation, the branches' common ending)."""
    if isinstance(node, n.Char):
        return ("", False) if node.fold else (node.char, True)
    if isinstance(node, n.Empty):
        return "", True
    if isinstance(node, n.Group) and node.kind in (n.CAPTURE, n.GROUP, n.ATOMIC):
        return _tail(node.body)
    if isinstance(node, n.Seq):
        text = ""
        for item in reversed(node.items):
            part, whole = _tail(item)
            text = part + text
            if not whole:
                return text, False
        return text, True
    if isinstance(node, n.Alt):
        tails = [_tail(branch) for branch in node.branches]
        common = tails[0][0]
        for part, _ in tails[1:]:
            while not part.endswith(common):
                common = common[1:]
        whole = all(whole and part == common for part, whole in tails)
        return common, whole
    return "", False


def literal_alternatives(tree: n.Tree) -> tuple[str, ...] | None:
    """For ``L1|L2|...`` (the alternation possibly in one group) of fixed literals none of
    which is a prefix of another, the literals (repeats dropped); else None.

    At any position at most one of them can match (two matching at one position would make one
    a prefix of the other), so the leftmost match is the leftmost occurrence of any of them,
    whatever the order of the alternatives."""
    root = tree.root
    if isinstance(root, n.Group) and root.kind in (n.CAPTURE, n.GROUP, n.ATOMIC):
        root = root.body
    if not isinstance(root, n.Alt):
        return None
    return exclusive([literal_text(tree, branch) for branch in root.branches])


def exclusive(literals: list[str | None]) -> tuple[str, ...] | None:
    """The literals (repeats dropped) if each is known and none is a prefix of another."""
    if any(lit is None for lit in literals):
        return None
    found = tuple(dict.fromkeys(lit for lit in literals if lit is not None))
    # In sorted order the strings between a literal and a longer one it begins all begin with
    # it too, so a prefix pair shows among neighbours: linear checks instead of every pair.
    ordered = sorted(found)
    if any(b.startswith(a) for a, b in itertools.pairwise(ordered)):
        return None
    return found


def literal_runs(tree: n.Tree) -> list[str]:
    """The texts of the pattern's runs of adjacent characters matched as written (not
    case-folded), in every sequence, group and branch: ``<\\|im_end\\|>|\\s*<tool_call>`` has
    ``<|im_end|>`` and ``<tool_call>``. What a model must write where the pattern matches
    (a special token named in a delimiter, say) stands whole in one of them."""
    found: list[str] = []

    def read(node: n.Node) -> None:
        if isinstance(node, n.Seq):
            run = ""
            for item in node.items:
                if isinstance(item, n.Char) and not item.fold:
                    run += item.char
                    continue
                if run:
                    found.append(run)
                    run = ""
                read(item)
            if run:
                found.append(run)
        elif isinstance(node, n.Char) and not node.fold:
            found.append(node.char)
        elif isinstance(node, n.Alt):
            for branch in node.branches:
                read(branch)
        elif isinstance(node, n.Cond):
            read(node.yes)
            read(node.no)
        elif isinstance(node, (n.Group, n.Repeat, n.Define)):
            read(node.body)

    if tree.error is None:
        read(tree.root)
    return found
