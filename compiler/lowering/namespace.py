"""The generated module's top level: its names, constants and imports.

Every lowering step that needs a module-level constant asks here, so that names stay unique
(``identifier`` keeps ``[A-Za-z0-9_]`` of a field name behind a fixed prefix and numbers
repeats), template data reaches the source only through ``py_literal``, and the imports are
exactly what the emitted code uses. Constants are listed in the order they are asked for,
which ``lower_template`` fixes.
"""

from __future__ import annotations

import ast
import keyword
import re
from dataclasses import replace
from typing import Any

from ..literals import comment_text, py_literal
from ..plan import (
    Constant,
    ContentPattern,
    Imports,
    Literal,
    LiteralList,
    Pattern,
    TagsFunction,
    Twin,
    ValueFunction,
)
from ..rarity import rarest_index
from ..regex_syntax import re_twin, searches_well
from ..regex_syntax.fast_paths import literal_prefix
from ..regex_syntax.json_value import JsonShape, json_shape
from ..regex_syntax.positions import Positions, positions


def identifier(name: str, taken: set[str], prefix: str) -> str:
    """A readable, unique identifier derived from a field name (never trusted as-is)."""
    stem = re.sub(r"[^0-9a-zA-Z_]", "_", name)[:40].strip("_") or "field"
    candidate = f"{prefix}{stem}"
    if keyword.iskeyword(candidate):
        candidate += "_"
    unique = candidate
    n = 2
    while unique in taken:
        unique = f"{candidate}_{n}"
        n += 1
    taken.add(unique)
    return unique


def twin_note(twin: Twin) -> str:
    """What the comment above a twin says about where it runs."""
    if twin.ascii_only:
        return "for ASCII text, where \\d and \\w read alike"
    return "for any text: \\s written out as regex reads it"


class Namespace:
    """Names, constants and imports of the module being lowered."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.imports = Imports()
        self.literals: list[Literal] = []
        self.literal_lists: list[LiteralList] = []
        self.patterns: list[Pattern] = []
        self.steps: dict[str, Positions | JsonShape] = {}
        self.constants: list[Constant] = []
        # Content parsers precompiled from content_args (lowering.content).
        self.content_patterns: list[ContentPattern] = []
        self.value_functions: list[ValueFunction] = []
        self.tags_functions: list[TagsFunction] = []

    def literal(self, value: Any) -> str:
        """``py_literal``, noting when the expression needs the json module."""
        expr = py_literal(value)
        if expr.startswith("_json."):
            self.imports.json = True
        return expr

    def name(self, stem: str, *companions: str) -> str:
        """A new constant name; ``companions``: suffixes (``_LEN``...) that must be free too."""
        while True:
            name = identifier(stem.upper(), self.names, "_")
            extra = [name + c for c in companions]
            if not any(e in self.names for e in extra):
                self.names.update(extra)
                return name

    def data(self, stem: str, comment: str, value: Any) -> str:
        """A module-level constant holding template data, referenced by name."""
        name = self.name(stem)
        self.constants.append(Constant(name, comment, self.literal(value)))
        return name

    def pattern_steps(self, const: Pattern, lead: bool = False) -> str | None:
        """``NAME_STEPS``, the position automaton of pattern constant ``NAME``
        (``regex_syntax.positions``), or its JSON value reader (``regex_syntax.json_value``),
        or None where it has neither. ``lead``: the pattern is the rest of a ``\\s*``-led one:
        its automaton reads the whitespace before it (``Positions.lead``), or there is none
        where a match of the rest may begin with whitespace, or where the same constant's
        automaton is asked for the other way too."""
        known = self.steps.get(const.name)
        if known is None:
            source = ast.literal_eval(const.source)
            automaton = positions(source, ahead=True)
            found: Positions | JsonShape | None
            if automaton is not None:
                found = automaton
                if lead:
                    if automaton.starts_with_space():
                        return None
                    found = replace(automaton, lead=True)
                    self.imports.add("matching", "SPACE_STR")
                self.imports.add("pending", "Steps")
            elif (found := json_shape(source)) is not None:
                # Recursion has no position automaton; the catalogue's JSON value grammar
                # is read with a stack (runtime.pending_json).
                self.imports.add("pending_json", "JsonSteps")
            if found is None:
                return None
            self.steps[const.name] = found
        elif isinstance(known, Positions) and known.lead != lead:
            return None
        return f"{const.name}_STEPS"

    def content_pattern(self, found: ContentPattern) -> None:
        """A content parser's compiled pattern (or patterns)."""
        self.content_patterns.append(found)
        if found.twin is not None:
            self.imports.re = True
        else:
            self.imports.regex = True

    def literal_const(self, stem: str, comment: str, text: str) -> Literal:
        """``NAME = text`` with ``NAME_LEN`` and ``NAME_RARE``."""
        name = self.name(stem, "_LEN", "_RARE")
        rare = rarest_index(text)
        const = Literal(name, comment, repr(text), len(text), rare, comment_text(text[rare]), text)
        self.literals.append(const)
        return const

    def literal_list(self, stem: str, comment: str, literals: tuple[str, ...]) -> LiteralList:
        """A literal list for ``find_any``: longest first (stable), with lengths and rarest
        characters; with ``NAME_RE``, their alternation in that order compiled by ``re``, when
        none is empty (for short spans at the end of the stream)."""
        ordered = sorted(dict.fromkeys(literals), key=len, reverse=True)
        name = self.name(stem, "_RE")
        items = tuple((self.literal(x), len(x), rarest_index(x)) for x in ordered)
        alternation = ""
        if all(ordered):
            alternation = self.literal("|".join(re.escape(x) for x in ordered))
            self.imports.re = True
        found = LiteralList(
            name, comment, items, alternation, max(map(len, ordered)), tuple(ordered)
        )
        self.literal_lists.append(found)
        return found

    def pattern(
        self, stem: str, comment: str, source: str, led: bool = False, twin: bool = False
    ) -> Pattern:
        """A compiled pattern; ``led``: also the literal every match begins with, for long
        searches; ``twin``: also its re twin where it has one (``regex_syntax.twin``)."""
        name = self.name(stem, "_RE", "_PREFIX", "_PREFIX_LEN", "_PREFIX_RARE", "_STEPS")
        found = None
        if twin and searches_well(source):
            made = re_twin(source)
            if made is not None:
                found = Twin(repr(made.source), made.ascii_only)
                self.imports.re = True
        prefix = None
        text = literal_prefix(source) if led else None
        if text is not None:
            rare = rarest_index(text)
            prefix = Literal(
                f"{name}_PREFIX", "", repr(text), len(text), rare, comment_text(text[rare]), text
            )
            self.imports.add("matching", "LONG_SPAN", "find_literal", "search_literal_led")
        const = Pattern(name, comment, repr(source), found, prefix)
        self.patterns.append(const)
        self.imports.regex = True
        return const
