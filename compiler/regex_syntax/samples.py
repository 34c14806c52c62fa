"""Texts a pattern matches, built from its tree: the lint's probe delimiters, the benchmark's.

A sample is built by walking the tree with one choice at each alternation and optional part;
variants change one choice at a time, so a pattern with an optional tail gives both the short
and the long form. A named group takes the text the caller gives for it (e.g. a tool name), a
back-reference the text its group took, a call the called group's pattern (choices deeper
than a few calls take the first option, so recursion ends where the first option does:
``{}`` for a JSON value), a ``DEFINE`` group and assertions nothing. A look-ahead that ends
the pattern is sampled as the text that must follow (the sample's ``witness``).

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
    """``text`` is what the pattern consumes; ``witness`` adds what a trailing look-ahead needs
    to see after it (the pattern matches ``witness`` at 0 and ends at ``len(text)``)."""

    text: str
    witness: str


Overrides = Mapping[str, "str | Sequence[str]"]
"""Text for named groups: a string is the group's text; a sequence lists texts to try, in
order, before the group's own."""


class _NoSample(Exception):
    pass


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> regex.Pattern[str]:
    return regex.compile(pattern, regex.DOTALL)


class _Builder:
    def __init__(
        self,
        tree: n.Tree,
        overrides: Overrides,
        choices: dict[tuple[int, int], int],
        fuller: bool,
        memo: dict[int, bool],
    ) -> None:
        self.tree = tree
        self.overrides = overrides
        self.choices = choices
        self.fuller = fuller
        self.points: list[tuple[tuple[int, int], int]] = []  # (choice point, options)
        self.groups: dict[int, str] = {}
        self.continuations: list[str] = []
        self.depth = 0
        self.calls = 0
        self.memo = memo  # shared by the builders of one pattern's samples

    def choice(self, node: n.Node, options: int) -> int:
        if options < 2:
            return 0
        key = (node.start, self.depth)
        if self.depth > _MAX_CALL_DEPTH:
            return 0
        if len(self.points) < _MAX_CHOICE_POINTS and all(k != key for k, _ in self.points):
            self.points.append((key, options))
        return self.choices.get(key, 0)

    def node(self, node: n.Node, at_end: bool) -> str:
        if isinstance(node, n.Char):
            return node.char
        if isinstance(node, n.Class):
            return _pick(node)
        if isinstance(node, n.Seq):
            return self.seq(node.items, at_end)
        if isinstance(node, n.Alt):
            branches = self.ordered(node.branches)
            return self.node(branches[self.choice(node, len(branches))], at_end)
        if isinstance(node, n.Group):
            return self.group(node, at_end)
        if isinstance(node, n.Repeat):
            return self.repeat(node, at_end)
        if isinstance(node, n.Backref):
            return self.groups.get(self.tree.number(node.group), "")
        if isinstance(node, n.Call):
            return self.call(node, at_end)
        if isinstance(node, n.Cond):
            return self.conditional(node, at_end)
        if isinstance(node, n.Unknown):
            raise _NoSample(node.why)
        return ""  # assertions, \K, DEFINE

    def seq(self, items: Sequence[n.Node], at_end: bool) -> str:
        # Items after the last one that consumes text still stand at the end (a look-ahead
        # followed by a DEFINE group checks what follows the whole match).
        consuming = [i for i, item in enumerate(items) if self.consumes(item)]
        last = consuming[-1] if consuming else -1
        return "".join(self.node(item, at_end and i >= last) for i, item in enumerate(items))

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
        """Alternatives in the order tried: as written, or (fuller) those that write
        something first."""
        if not self.fuller:
            return list(branches)
        return sorted(branches, key=lambda b: not self.consumes(b))

    def group(self, node: n.Group, at_end: bool) -> str:
        if node.kind == n.AHEAD:
            if at_end:
                self.continuations.append(self.node(node.body, True))
            return ""
        if node.is_lookaround:
            return ""
        given = self.overrides.get(node.name) if node.name is not None else None
        if isinstance(given, str):
            text = given
        elif given:
            options = [*given, None]
            picked = options[self.choice(node, len(options))]
            text = picked if picked is not None else self.node(node.body, at_end)
        else:
            text = self.node(node.body, at_end)
        if node.kind == n.CAPTURE:
            self.groups[node.number] = text
        return text

    def repeat(self, node: n.Repeat, at_end: bool) -> str:
        if node.high == 0:
            return ""
        if node.low > 0:
            count = node.low
        else:
            counts = [1, 0] if self.fuller and node.high == 1 else [0, 1]
            count = counts[self.choice(node, 2)]
        return "".join(self.node(node.body, at_end and k == count - 1) for k in range(count))

    def call(self, node: n.Call, at_end: bool) -> str:
        self.calls += 1
        if self.calls > _MAX_CALLS:
            raise _NoSample("too many calls")
        self.depth += 1
        try:
            return self.node(self.tree.body(node.group), at_end)
        finally:
            self.depth -= 1

    def conditional(self, node: n.Cond, at_end: bool) -> str:
        if isinstance(node.test, n.Group):
            return self.node((node.yes, node.no)[self.choice(node, 2)], at_end)
        taken = self.tree.number(node.test) in self.groups
        return self.node(node.yes if taken else node.no, at_end)


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
    candidates: list[Sample] = []
    memo: dict[int, bool] = {}
    first = _Builder(tree, given, {}, fuller, memo)
    points: list[tuple[tuple[int, int], int]] = []
    try:
        candidates += _built(first, tree)
        points = first.points
    except (_NoSample, RecursionError):
        return []
    for key, options in points:
        for option in range(1, options):
            try:
                candidates += _built(_Builder(tree, given, {key: option}, fuller, memo), tree)
            except (_NoSample, RecursionError):
                continue
    out: list[Sample] = []
    for sample in candidates:
        if verify:
            found = _checked(pattern, sample, after)
            if found is None:
                continue
            sample = found
        if sample in out:
            continue
        out.append(sample)
        if len(out) >= limit:
            break
    return out


def _built(builder: _Builder, tree: n.Tree) -> list[Sample]:
    """The builder's sample, once for each text a trailing look-ahead may need after it."""
    text = builder.node(tree.root, True)
    if not builder.continuations:
        return [Sample(text, text)]
    joined = "".join(builder.continuations)
    options = [joined, *builder.continuations]
    return [Sample(text, text + c) for c in dict.fromkeys(options)]


def _checked(pattern: str, sample: Sample, after: str | None) -> Sample | None:
    """``sample`` if the pattern matches exactly its text seeing its witness, else the sample
    with ``after`` as what follows if that works, else None."""
    compiled = _compiled(pattern)
    witnesses = [sample.witness] + ([sample.text + after] if after is not None else [])
    for witness in witnesses:
        try:
            if witness == sample.text:
                found = compiled.fullmatch(witness) is not None
            else:
                match = compiled.match(witness)
                found = match is not None and match.end() == len(sample.text)
        except (RecursionError, ValueError):
            continue
        if found:
            return Sample(sample.text, witness)
    return None
