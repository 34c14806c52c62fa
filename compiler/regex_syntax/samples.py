"""Texts a pattern matches, built from its tree: the lint's probe delimiters, the benchmark's.

A sample is built by walking the tree with one choice at each alternation and optional part;
variants change one choice at a time, so a pattern with an optional tail gives both the short
and the long form. A named group takes the text the caller gives for it (e.g. a tool name), a
back-reference the text its group took, a call the called group's pattern (choices deeper
than a few calls take the first option, so recursion ends where the first option does:
``{}`` for a JSON value), a ``DEFINE`` group and assertions nothing. A look-ahead that ends
the pattern is sampled as the text that must follow (the sample's ``witness``), a look-behind
that begins it as the text that must precede (the sample's ``before``), and what a ``\\K``
keeps out of the match goes to ``before`` too.

Every sample is checked with the ``regex`` module (the engine and flags of the reference) and
dropped if the pattern does not match it exactly (seeing its witness, or the text ``after`` it
that the caller will write, e.g. the body a look-ahead checks), unless the caller asked for
unchecked samples (``verify=False``), e.g. to show that a tool name is rejected.

Generation is bounded: at most ``limit`` samples, each built from a fixed number of choices,
and repeats are expanded to their minimum (or one) iterations, so the texts stay short.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import regex

from . import nodes as n
from .chars import accepts
from .lengths import min_lengths
from .parser import parse

# Characters tried, in order, for a class: plain letters first so samples read like text, then
# digits, punctuation, whitespace and a few non-ASCII characters.
_PREFERRED = (
    "aexo0_1-. \n:/\"'<>|=,;{}[]()#@!?*+&%$^~`\\\t"
    + "".join(chr(c) for c in range(0x41, 0x5B))
    + "".join(chr(c) for c in range(0x61, 0x7B))
    + "é中ü\u00a0\u3000\x00"
)
_MAX_CHOICE_POINTS = 24
_MAX_CALL_DEPTH = 3  # deeper calls take every first option
_MAX_CALLS = 64  # calls followed in one sample (a bound on its size)


@dataclass(frozen=True)
class Sample:
    """``text`` is what the match covers; ``witness`` is ``text`` and what a trailing
    look-ahead needs to see after it; ``before`` is what must come before ``text`` (what a
    leading look-behind reads, then what the pattern consumes before a ``\\K``). In
    ``before + witness`` the pattern matches exactly ``text``, right after ``before``."""

    text: str
    witness: str
    before: str = ""


Overrides = Mapping[str, "str | Sequence[str]"]
"""Text for named groups: a string is the group's text; a sequence lists texts to try, in
order, before the group's own."""


class _NoSample(Exception):
    pass


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> regex.Pattern[str]:
    return regex.compile(pattern, regex.DOTALL)


@dataclass(frozen=True)
class _Built:
    sample: Sample
    behind: int  # how much of ``before`` comes before the match attempt (a look-behind's)


class _Builder:
    """Writes one sample of a tree; ``choices`` picks an option at some choice points (the
    first option elsewhere), and the points met are recorded for the variants."""

    def __init__(
        self,
        tree: n.Tree,
        overrides: Overrides,
        choices: dict[tuple[int, int], int],
        fuller: bool,
        memo: dict[int, bool],
    ) -> None:
        self.tree = tree
        self.min_length = min_lengths(tree)
        self.overrides = overrides
        self.choices = choices
        self.fuller = fuller
        self.memo = memo  # shared by the builders of one pattern's samples
        self.points: list[tuple[tuple[int, int], int]] = []  # (choice point, options)
        self.groups: dict[int, str] = {}
        self.continuations: list[str] = []
        self.out: list[str] = []
        self.length = 0  # characters written so far
        self.kept: int | None = None  # where the last \K stood
        self.behind = ""  # what a look-behind before anything written needs
        self.aside = 0  # inside look-arounds (their text is no part of the sample)
        self.depth = 0
        self.calls = 0

    def write(self, text: str) -> None:
        self.out.append(text)
        self.length += len(text)

    def written_since(self, start: int) -> str:
        return "".join(self.out)[start:]

    def apart(self, node: n.Node, at_end: bool) -> str:
        """The text ``node`` would write, written aside (a look-around's body)."""
        out, length, kept = self.out, self.length, self.kept
        self.out, self.length = [], 0
        self.aside += 1
        try:
            self.node(node, at_end)
            return "".join(self.out)
        finally:
            self.out, self.length, self.kept = out, length, kept
            self.aside -= 1

    def choice(self, node: n.Node, options: int) -> int:
        if options < 2:
            return 0
        key = (id(node), self.depth)  # nodes of one tree: ids are stable while it is used
        if self.depth > _MAX_CALL_DEPTH:
            return 0
        if len(self.points) < _MAX_CHOICE_POINTS and all(k != key for k, _ in self.points):
            self.points.append((key, options))
        return self.choices.get(key, 0)

    def node(self, node: n.Node, at_end: bool) -> None:
        if isinstance(node, n.Char):
            self.write(node.char)
        elif isinstance(node, n.Class):
            self.write(_pick(node))
        elif isinstance(node, n.Seq):
            self.seq(node.items, at_end)
        elif isinstance(node, n.Alt):
            branches = self.ordered(node.branches)
            self.node(branches[self.choice(node, len(branches))], at_end)
        elif isinstance(node, n.Group):
            self.group(node, at_end)
        elif isinstance(node, n.Repeat):
            self.repeat(node, at_end)
        elif isinstance(node, n.Backref):
            self.write(self.groups.get(self.tree.number(node.group), ""))
        elif isinstance(node, n.Call):
            self.call(node, at_end)
        elif isinstance(node, n.Cond):
            self.conditional(node, at_end)
        elif isinstance(node, n.Keep):
            if not self.aside:
                self.kept = self.length
        elif isinstance(node, n.Unknown):
            raise _NoSample(node.why)
        # assertions and DEFINE write nothing

    def seq(self, items: Sequence[n.Node], at_end: bool) -> None:
        # Items after the last one that consumes text still stand at the end (a look-ahead
        # followed by a DEFINE group checks what follows the whole match).
        consuming = [i for i, item in enumerate(items) if self.consumes(item)]
        last = consuming[-1] if consuming else -1
        for i, item in enumerate(items):
            self.node(item, at_end and i >= last)

    def consumes(self, node: n.Node) -> bool:
        """Whether ``node`` may consume a character (a call or back-reference may)."""
        key = id(node)
        if key not in self.memo:
            self.memo[key] = any(
                isinstance(x, (n.Char, n.Class, n.Backref, n.Call, n.Unknown))
                for x in _forward(node)
            )
        return self.memo[key]

    def ordered(self, branches: Sequence[n.Node]) -> list[n.Node]:
        """Alternatives in the order tried: as written, or (fuller, outside deep calls) those
        that must write something first."""
        if not self.fuller or self.depth > _MAX_CALL_DEPTH:
            return list(branches)
        return sorted(branches, key=lambda b: self.min_length(b) == 0)

    def group(self, node: n.Group, at_end: bool) -> None:
        if node.kind == n.AHEAD:
            if at_end and not self.aside:
                self.continuations.append(self.apart(node.body, True))
            return
        if node.kind == n.BEHIND:
            if self.length == 0 and not self.aside and not self.behind:
                self.behind = self.apart(node.body, False)
            return
        if node.is_lookaround:
            return
        start = self.length
        given = self.overrides.get(node.name) if node.name is not None else None
        if isinstance(given, str):
            self.write(given)
        elif given:
            options = [*given, None]
            picked = options[self.choice(node, len(options))]
            if picked is not None:
                self.write(picked)
            else:
                self.node(node.body, at_end)
        else:
            self.node(node.body, at_end)
        if node.kind == n.CAPTURE:
            self.groups[node.number] = self.written_since(start)

    def repeat(self, node: n.Repeat, at_end: bool) -> None:
        if node.high == 0:
            return
        if node.low > 0:
            count = node.low
        else:
            # fuller: an optional part is written first, except deep in calls, where the
            # plainest choice ends a recursion
            fuller = self.fuller and node.high == 1 and self.depth <= _MAX_CALL_DEPTH
            counts = [1, 0] if fuller else [0, 1]
            count = counts[self.choice(node, 2)]
        for k in range(count):
            self.node(node.body, at_end and k == count - 1)

    def call(self, node: n.Call, at_end: bool) -> None:
        self.calls += 1
        if self.calls > _MAX_CALLS:
            raise _NoSample("too many calls")
        self.depth += 1
        try:
            self.node(self.tree.body(node.group), at_end)
        finally:
            self.depth -= 1

    def conditional(self, node: n.Cond, at_end: bool) -> None:
        if isinstance(node.test, n.Group):
            self.node((node.yes, node.no)[self.choice(node, 2)], at_end)
            return
        taken = self.tree.number(node.test) in self.groups
        self.node(node.yes if taken else node.no, at_end)

    def built(self) -> list[_Built]:
        """The sample, once for each text a trailing look-ahead may need after it."""
        self.node(self.tree.root, True)
        whole = "".join(self.out)
        kept = self.kept or 0
        text, before = whole[kept:], self.behind + whole[:kept]
        if not self.continuations:
            return [_Built(Sample(text, text, before), len(self.behind))]
        options = ["".join(self.continuations), *self.continuations]
        return [
            _Built(Sample(text, text + after, before), len(self.behind))
            for after in dict.fromkeys(options)
        ]


def _forward(node: n.Node) -> list[n.Node]:
    """``node`` and what is inside it, but not inside look-arounds and ``DEFINE`` (which
    consume nothing)."""
    out = []
    stack = [node]
    while stack:
        here = stack.pop()
        out.append(here)
        if not (isinstance(here, n.Group) and here.is_lookaround or isinstance(here, n.Define)):
            stack.extend(n.children(here))
    return out


def _pick(node: n.Class) -> str:
    for ch in _PREFERRED:
        if accepts(node, ch):
            return ch
    for item in node.items:  # a set of exotic ranges only: its first member
        if item.lo and not node.negated and accepts(node, item.lo):
            return item.lo
    raise _NoSample(f"no character found for {node.source}")


def samples(
    pattern: str,
    overrides: Overrides | None = None,
    *,
    limit: int = 6,
    verify: bool = True,
    fuller: bool = False,
    after: str | None = None,
) -> list[Sample]:
    """Up to ``limit`` distinct samples of ``pattern``, the plainest first (``fuller``: with
    optional parts included first, as models usually write them).

    ``overrides`` gives the text of named groups (e.g. ``{"name": "get_weather"}``). With
    ``verify`` (the default) only samples the pattern matches exactly are kept: seeing their
    own witness, or else ``after`` (the text the caller writes next) after them.
    """
    tree = parse(pattern)
    if tree.error is not None:
        return []
    given = overrides or {}
    memo: dict[int, bool] = {}
    first = _Builder(tree, given, {}, fuller, memo)
    try:
        candidates = first.built()
    except (_NoSample, RecursionError):
        return []
    for key, options in first.points:
        for option in range(1, options):
            try:
                candidates += _Builder(tree, given, {key: option}, fuller, memo).built()
            except (_NoSample, RecursionError):
                continue
    out: list[Sample] = []
    for found in candidates:
        sample = found.sample
        if verify:
            checked = _checked(pattern, found, after)
            if checked is None:
                continue
            sample = checked
        if sample in out:
            continue
        out.append(sample)
        if len(out) >= limit:
            break
    return out


def _checked(pattern: str, found: _Built, after: str | None) -> Sample | None:
    """The sample if the pattern, tried right after its look-behind's text, matches exactly
    its text seeing its witness, else the sample with ``after`` as what follows if that works,
    else None."""
    sample = found.sample
    search = _compiled(pattern)
    witnesses = [sample.witness] + ([sample.text + after] if after is not None else [])
    start = len(sample.before)
    for witness in witnesses:
        full = sample.before + witness
        try:
            if witness == sample.text:
                match = search.fullmatch(full, found.behind)
            else:
                match = search.match(full, found.behind)
        except (RecursionError, ValueError):
            continue
        if match is not None and match.span() == (start, start + len(sample.text)):
            return Sample(sample.text, witness, sample.before)
    return None


def plainest(tree: n.Tree, node: n.Node) -> str:
    """The plainest text a part of ``tree`` matches on its own (unchecked; "" where none is
    known): what a sample would hold there."""
    builder = _Builder(tree, {}, {}, False, {})
    try:
        return builder.apart(node, False)
    except (_NoSample, RecursionError):
        return ""


def text_before(tree: n.Tree, target: n.Node) -> str:
    """The plainest text that leads the pattern up to ``target`` (a node of ``tree``)."""

    def visit(node: n.Node) -> tuple[str, bool]:
        if node is target:
            return "", True
        if isinstance(node, n.Seq):
            text = ""
            for item in node.items:
                inner, found = visit(item)
                if found:
                    return text + inner, True
                text += plainest(tree, item)
            return text, False
        for child in n.children(node):
            inner, found = visit(child)
            if found:
                return inner, True
        return "", False

    return visit(tree.root)[0]
