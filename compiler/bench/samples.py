"""Delimiter strings derived from a template: sample strings for patterns, composed texts.

For a pattern, a sample string is generated from its tree (the regex-syntax package; preferring
realistic values for named groups such as ``name``) and verified with ``regex.fullmatch``, or in
place in the composed text when the pattern needs context (look-arounds, ``^``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import regex

from ..regex_syntax import nodes, parse, samples

_MAX_CANDIDATES = 8


def pattern_samples(
    pattern: str, prefer: Callable[[str], list[str]] | None = None
) -> tuple[list[str], bool]:
    """Candidate strings for ``pattern`` and whether they still need checking in context.

    Candidates come from the regex-syntax package's sampler, optional parts included first
    (``(?:\\n\\n)?`` is usually how models write it) and a named group taking the values
    ``prefer`` gives for its name first. Those ``regex.fullmatch`` accepts come back with
    ``False``. A pattern with look-arounds or anchors rarely fullmatches on its own: its
    candidates come back unchecked with ``True``, to be checked where they are placed. An empty
    list means no sample was found.
    """
    tree = parse(pattern)
    if tree.error is not None:
        return [], False
    wanted = prefer or (lambda name: [])
    overrides = {name: values for name in tree.names if (values := wanted(name))}
    found = samples(pattern, overrides, limit=_MAX_CANDIDATES, fuller=True)
    whole = [s.text for s in found if s.witness == s.text and not s.before]
    if whole:
        return whole, False
    if not _needs_context(tree):
        return [], False
    unchecked = samples(pattern, overrides, limit=_MAX_CANDIDATES, fuller=True, verify=False)
    return list(dict.fromkeys(s.text for s in unchecked)), True


def _needs_context(tree: nodes.Tree) -> bool:
    """Whether a match depends on the text around it (assertions, look-arounds, ``\\K``)."""
    return any(
        isinstance(x, (nodes.Assert, nodes.Keep))
        or (isinstance(x, nodes.Group) and x.is_lookaround)
        for x in nodes.walk(tree.root)
    )


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
