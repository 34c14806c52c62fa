"""Texts that a delimiter pattern matches, built from the pattern itself.

The lint probes the compiled parser with texts made of the template's own delimiters; for a
pattern delimiter it needs concrete strings the pattern matches. A sample is built by walking the
pattern's tree with one choice at each alternation and optional part; variants change one choice
at a time, so a pattern with an optional tail gives both the short and the long form. Every
sample is checked with the ``regex`` module (the same engine and flags as the reference) and
dropped if the pattern does not match it exactly, unless the caller asked for a deliberately
non-matching group value (``verify=False``), e.g. to show that a tool name is rejected.

Generation is bounded: at most ``limit`` samples, each built from a fixed number of choices, and
repeats are expanded to their minimum (or one) iterations, so the texts stay short.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import regex_tree as rt

# Characters tried, in order, for a character class: plain letters first so samples read like
# text, then digits, punctuation, whitespace and a few non-ASCII characters.
_PREFERRED = (
    "aexo0_1-. \n:/\"'<>|=,;{}[]()#@!?*+&%$^~`\\\t"
    + "".join(chr(c) for c in range(0x41, 0x5B))
    + "".join(chr(c) for c in range(0x61, 0x7B))
    + "é中ü\u00a0\u3000\x00"
)
_MAX_CHOICE_POINTS = 24


@dataclass(frozen=True)
class Sample:
    """``text`` is what the delimiter consumes; ``witness`` adds what a trailing look-ahead needs
    to see after it (the pattern matches ``witness`` at 0 and ends at ``len(text)``)."""

    text: str
    witness: str


class _Builder:
    def __init__(self, tree: rt.Tree, overrides: Mapping[str, str], choices: dict[int, int]):
        self.tree = tree
        self.overrides = overrides
        self.choices = choices
        self.points: list[tuple[int, int]] = []  # (choice point id, number of options)
        self.groups: dict[int, str] = {}
        self.continuation = ""

    def choice(self, key: int, options: int) -> int:
        if len(self.points) < _MAX_CHOICE_POINTS and all(k != key for k, _ in self.points):
            self.points.append((key, options))
        return self.choices.get(key, 0)

    def seq(self, items: Any, at_end: bool) -> str:
        out: list[str] = []
        last = len(items) - 1
        for index, (op, arg) in enumerate(items):
            out.append(self.node(op, arg, at_end and index == last))
        return "".join(out)

    def node(self, op: Any, arg: Any, at_end: bool) -> str:
        if op in rt.CHAR_OPS:
            return _pick_char(op, arg)
        if op is rt.SUBPATTERN:
            number = arg[0]
            name = self.tree.names.get(number) if number else None
            if name is not None and name in self.overrides:
                text = self.overrides[name]
            else:
                text = self.seq(arg[3], at_end)
            if number:
                self.groups[number] = text
            return text
        if op in rt.REPEATS:
            low, high, body = arg
            counts = [low] if low > 0 else [0, 1]
            if low == 0 and high == 0:
                counts = [0]
            count = counts[self.choice(id(arg), len(counts))] if len(counts) > 1 else counts[0]
            return "".join(self.seq(body, at_end and k == count - 1) for k in range(count))
        if op is rt.BRANCH:
            branches = arg[1]
            pick = self.choice(id(arg), len(branches))
            return self.seq(branches[pick], at_end)
        if op is rt.ATOMIC_GROUP:
            return self.seq(arg, at_end)
        if op is rt.ASSERT and arg[0] > 0 and at_end:
            self.continuation = self.seq(arg[1], True) + self.continuation
            return ""
        if op is rt.GROUPREF:
            return self.groups.get(arg, "")
        if op is rt.GROUPREF_EXISTS:
            yes, no = arg[1], arg[2]
            if arg[0] in self.groups and yes is not None:
                return self.seq(yes, at_end)
            return self.seq(no, at_end) if no is not None else ""
        return ""  # anchors, look-behinds, negative look-aheads: zero width


def sample_items(tree: rt.Tree, items: Any) -> str:
    """The plainest text a part (``items``) of ``tree`` matches (not checked on its own)."""
    return _Builder(tree, {}, {}).seq(items, False)


def head_before(tree: rt.Tree, target: Any) -> str:
    """The plainest text that leads the pattern up to the node whose argument is ``target``."""

    def visit(items: Any) -> tuple[str, bool]:
        text = ""
        for op, arg in items:
            if arg is target:
                return text, True
            for child in rt.children(op, arg):
                inner, found = visit(child)
                if found:
                    return text + inner, True
            text += _Builder(tree, {}, {}).node(op, arg, False)
        return text, False

    return visit(tree.items)[0]


def _pick_char(op: Any, arg: Any) -> str:
    if op is rt.LITERAL:
        return chr(arg)
    for ch in _PREFERRED:
        if rt.char_matches(op, arg, ch):
            return ch
    if op is rt.IN:
        for item_op, item in arg:  # a set of exotic ranges only: its first member
            if item_op is rt.sre.RANGE:
                return chr(item[0])
            if item_op is rt.LITERAL:
                return chr(item)
    return "\uffff"


def samples(
    pattern: str,
    overrides: Mapping[str, str] | None = None,
    *,
    limit: int = 6,
    verify: bool = True,
) -> list[Sample]:
    """Up to ``limit`` distinct samples of ``pattern``, the plainest first.

    ``overrides`` gives the text of named groups (e.g. ``{"name": "get_weather"}``). With
    ``verify`` (the default) only samples the pattern matches exactly are kept.
    """
    tree = rt.parse(pattern)
    if tree is None:
        return []
    overrides = overrides or {}
    first = _Builder(tree, overrides, {})
    candidates = [_build(first, tree)]
    for key, options in first.points:
        for option in range(1, options):
            candidates.append(_build(_Builder(tree, overrides, {key: option}), tree))
    out: list[Sample] = []
    for sample in candidates:
        if sample in out or (verify and not _matches(pattern, sample)):
            continue
        out.append(sample)
        if len(out) >= limit:
            break
    return out


def _build(builder: _Builder, tree: rt.Tree) -> Sample:
    text = builder.seq(tree.items, True)
    return Sample(text, text + builder.continuation)


def _matches(pattern: str, sample: Sample) -> bool:
    """Whether the pattern can match exactly ``sample.text`` (seeing ``witness`` after it)."""
    compiled = rt.compiled(pattern)
    try:
        if sample.witness == sample.text:
            return compiled.fullmatch(sample.text) is not None
        match = compiled.match(sample.witness)
    except (RecursionError, ValueError):
        return False
    return match is not None and match.end() == len(sample.text)


def literal_or_samples(literals: tuple[str, ...], pattern: str, **kwargs: Any) -> list[Sample]:
    """Samples of a delimiter: its literals as written, or samples of its pattern."""
    if literals:
        return [Sample(text, text) for text in literals]
    return samples(pattern, **kwargs)
