"""Delimiter strings derived from a template: sample strings for patterns, composed texts.

For a pattern, a sample string is generated from the parsed regex (preferring realistic values
for named groups such as ``name``) and verified with ``regex.fullmatch``, or in place in the
composed text when the pattern needs context (look-arounds, ``^``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from re import _constants as _sre
from re import _parser as _sre_parse
from typing import Any

import regex

_MAX_CANDIDATES = 8
# Characters tried, in order, for a character class: readable ones first.
_CLASS_CHARS = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ \n-.:/,;!?'\"=<>[]{}()|#\t"
)


class _Unsupported(Exception):
    """A regex construct the sample generator does not handle (the workload is skipped)."""


def _category_has(char: str, category: Any) -> bool:
    name = str(category)
    space = char in " \t\n\r\f\v"
    word = char.isalnum() or char == "_"
    table = {
        "CATEGORY_DIGIT": char.isdigit(),
        "CATEGORY_NOT_DIGIT": not char.isdigit(),
        "CATEGORY_SPACE": space,
        "CATEGORY_NOT_SPACE": not space,
        "CATEGORY_WORD": word,
        "CATEGORY_NOT_WORD": not word,
        "CATEGORY_LINEBREAK": char == "\n",
        "CATEGORY_NOT_LINEBREAK": char != "\n",
    }
    if name not in table:
        raise _Unsupported(name)
    return table[name]


def _class_char(items: Sequence[tuple[Any, Any]]) -> str:
    """A readable character in the class ``[items]``."""
    negate = bool(items) and items[0][0] is _sre.NEGATE
    for char in _CLASS_CHARS:
        hit = False
        for op, av in items:
            if op is _sre.NEGATE:
                continue
            if op is _sre.LITERAL:
                hit = ord(char) == av
            elif op is _sre.RANGE:
                hit = av[0] <= ord(char) <= av[1]
            elif op is _sre.CATEGORY:
                hit = _category_has(char, av)
            else:
                raise _Unsupported(str(op))
            if hit:
                break
        if hit != negate:
            return char
    raise _Unsupported("empty character class")


class _SampleGenerator:
    """Short strings a parsed regex matches, most realistic first (a bounded list).

    Optional parts are included first (``(?:\\n\\n)?`` is usually how models write it), ``*``
    repeats nothing, ``+`` once, alternatives that write something come before empty ones, and a
    named group takes the preferred values given for its name before its generated text.
    """

    def __init__(self, names: dict[int, str], prefer: Callable[[str], list[str]]) -> None:
        self.names = names
        self.prefer = prefer
        self.needs_context = False

    def seq(self, items: Any) -> list[str]:
        out = [""]
        for op, av in items:
            alternatives = self.item(op, av)
            out = [a + b for a in out for b in alternatives][:_MAX_CANDIDATES]
        return out

    def item(self, op: Any, av: Any) -> list[str]:
        if op is _sre.LITERAL:
            return [chr(av)]
        if op is _sre.NOT_LITERAL:
            return ["a" if av != ord("a") else "b"]
        if op is _sre.ANY:
            return ["a"]
        if op is _sre.IN:
            return [_class_char(av)]
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
            low, high, sub = av
            inner = self.seq(sub)
            if low == 0:
                return inner + [""] if high == 1 else [""]
            return [text * low for text in inner]
        if op is _sre.SUBPATTERN:
            group, _add, _del, sub = av
            inner = self.seq(sub)
            name = self.names.get(group) if group is not None else None
            preferred = self.prefer(name) if name else []
            return (preferred + inner)[:_MAX_CANDIDATES]
        if op is _sre.ATOMIC_GROUP:
            return self.seq(av)
        if op is _sre.BRANCH:
            branches = [text for alternative in av[1] for text in self.seq(alternative)]
            ordered = [t for t in branches if t] + [t for t in branches if not t]
            return ordered[:_MAX_CANDIDATES]
        if op is _sre.AT:
            self.needs_context = True
            return [""]
        if op in (_sre.ASSERT, _sre.ASSERT_NOT):
            self.needs_context = True
            return [""]
        raise _Unsupported(str(op))


def pattern_samples(
    pattern: str, prefer: Callable[[str], list[str]] | None = None
) -> tuple[list[str], bool]:
    """Candidate strings for ``pattern`` and whether they still need checking in context.

    Candidates that ``regex.fullmatch`` accepts come back with ``False``. A pattern with
    look-arounds or anchors rarely fullmatches on its own: its candidates come back unchecked with
    ``True``, to be checked where they are placed. An empty list means no sample was found.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = _sre_parse.parse(pattern)
        names = {gid: name for name, gid in parsed.state.groupdict.items()}
        generator = _SampleGenerator(names, prefer or (lambda name: []))
        candidates = list(dict.fromkeys(generator.seq(list(parsed))))
    except Exception:
        # _Unsupported, or a `regex`-only construct (\p{..}, ...) the stdlib parser rejects.
        return [], False
    compiled = regex.compile(pattern, regex.DOTALL)
    matching = [c for c in candidates if compiled.fullmatch(c)]
    if matching:
        return matching, False
    return (candidates, True) if generator.needs_context else ([], False)


@dataclass
class Delim:
    """One delimiter in a composed text: candidate strings and, for patterns, the regex."""

    candidates: list[str]
    pattern: Any | None = None
    """Set when there is a choice to check in place (see ``Composer``)."""


def derive_delimiter(
    spec: dict[str, Any], literal_key: str, pattern_key: str, prefer: Callable[[str], list[str]]
) -> Delim | str | None:
    """The delimiter of ``spec`` (a field, or the template for the anchor), an error message when
    no sample could be derived, or None when the field has no such delimiter."""
    if literal_key in spec:
        raw = spec[literal_key]
        literals = [raw] if isinstance(raw, str) else list(raw)
        return Delim([literals[0]])
    if pattern_key in spec:
        # Candidates that need context are checked where they are placed, and any choice among
        # several candidates too: Composer does both.
        candidates, _in_place = pattern_samples(spec[pattern_key], prefer)
        if not candidates:
            return f"no sample string derived for {pattern_key} {spec[pattern_key]!r}"
        return Delim(candidates, regex.compile(spec[pattern_key], regex.DOTALL))
    return None


class Composer:
    """Builds a text from plain parts and delimiters, choosing for each delimiter the first
    candidate that its pattern matches exactly where it stands (e.g. ``(?:^|<think>\\s*)`` at
    the start of a generation matches the empty string, not ``<think>``)."""

    def __init__(self) -> None:
        self.parts: list[str | Delim] = []

    def add(self, *parts: str | Delim | None) -> None:
        self.parts.extend(part for part in parts if part is not None and part != "")

    def build(self) -> str:
        pieces = [p if isinstance(p, str) else p.candidates[0] for p in self.parts]
        for index, part in enumerate(self.parts):
            if isinstance(part, str) or part.pattern is None or len(part.candidates) == 1:
                continue
            start = sum(len(p) for p in pieces[:index])
            for candidate in part.candidates:
                pieces[index] = candidate
                found = part.pattern.match("".join(pieces), start)
                if found is not None and found.end() == start + len(candidate):
                    break
            else:
                pieces[index] = part.candidates[0]
        return "".join(pieces)


@dataclass
class FieldPlan:
    """A field of the template: its spec and the delimiter samples workloads are built from."""

    name: str
    spec: dict[str, Any]
    content: str
    open: Delim | None
    close: Delim | None
    problem: str | None = None


def no_prefer(name: str) -> list[str]:
    """No preferred text for any named group."""
    return []


def field_plan(name: str, spec: dict[str, Any]) -> FieldPlan:
    problems: list[str] = []
    delims: list[Delim | None] = []
    for literal_key, pattern_key in (("open", "open_pattern"), ("close", "close_pattern")):
        found = derive_delimiter(spec, literal_key, pattern_key, no_prefer)
        if isinstance(found, str):
            problems.append(f"field {name!r}: {found}")
            found = None
        delims.append(found)
    return FieldPlan(
        name=name,
        spec=spec,
        content=spec.get("content", "text"),
        open=delims[0],
        close=delims[1],
        problem="; ".join(problems) or None,
    )
