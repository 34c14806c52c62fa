"""The generated module's top level: which names it defines, its constants and imports.

Every lowering step that needs a module-level constant asks here, so that names stay unique
(``_identifier`` keeps ``[A-Za-z0-9_]`` of a field name behind a fixed prefix and numbers
repeats), template data reaches the source only through ``py_literal``, and the runtime
imports are exactly what the emitted code uses. Constants are listed in the order they are
asked for, which the steps in ``lower_template`` fix.
"""

from __future__ import annotations

import keyword
import re
from typing import Any

from ..literals import comment_text, py_literal
from ..plan import LiteralConst, Plan, RegexConst
from ..rarity import rarest_index
from ..regex_syntax.fast_paths import literal_prefix
from ..regex_syntax.twin import Twin, re_twin, searches_well


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


def twin_comment(twin: Twin) -> str:
    """What the comment above a twin says about where it runs."""
    if twin.ascii_only:
        return "for ASCII text, where \\d and \\w read alike"
    return "for any text: \\s written out as regex reads it"


def merge_imports(lines: set[str]) -> list[str]:
    """``from M import a`` lines, one per module with its names sorted; sorted by module."""
    names: dict[str, set[str]] = {}
    for line in lines:
        module, _, imported = line.removeprefix("from ").partition(" import ")
        names.setdefault(module, set()).update(x.strip() for x in imported.split(","))
    return [f"from {m} import {', '.join(sorted(names[m]))}" for m in sorted(names)]


class Namespace:
    """Names, constants and runtime imports of the module being lowered into ``plan``."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.names: set[str] = set()
        self.imports: set[str] = set()
        # Patterns with an re twin (compiler.regex_syntax.twin): whether it runs on ASCII text only.
        self.twins: dict[str, bool] = {}

    def engine(self, name: str, text: str) -> str:
        """The expression of the compiled pattern ``name`` to run on ``text`` (a local name):
        its re twin where it has one that may run there, else the pattern itself."""
        if name not in self.twins:
            return name
        if self.twins[name]:
            return f"({name}_RE if {text}.isascii() else {name})"
        return f"{name}_RE"

    def literal(self, value: Any) -> str:
        """``py_literal``, noting when the expression needs the json module."""
        expr = py_literal(value)
        if expr.startswith("_json."):
            self.plan.uses_json = True
        return expr

    def const(self, stem: str) -> str:
        return identifier(stem.upper(), self.names, "_")

    def data(self, stem: str, comment: str, value: Any) -> str:
        """A module-level constant holding template data, referenced by name."""
        name = self.const(stem)
        expr = self.literal(value)
        self.plan.data_consts.append((name, comment, expr))
        return name

    def regex_const(
        self, stem: str, comment: str, pattern: str, searched: bool = False, twin: bool = False
    ) -> str:
        """A compiled pattern; ``searched``: also what long end-of-stream searches need;
        ``twin``: also its re twin where it has one (see :meth:`engine`)."""
        name = self.const(stem)
        const = RegexConst(name, comment, repr(pattern))
        found = None
        if twin and f"{name}_RE" not in self.names and searches_well(pattern):
            found = re_twin(pattern)
        if found is not None:
            self.names.add(f"{name}_RE")
            const.twin_source = repr(found.source)
            const.twin_flags = found.flags
            const.twin_comment = twin_comment(found)
            self.twins[name] = found.ascii_only
            self.plan.uses_re = True
        prefix = literal_prefix(pattern) if searched else None
        if prefix is not None:
            self.names.update((f"{name}_PREFIX", f"{name}_RARE"))
            self.imports.add("from rtc.runtime.matching import LONG_SPAN, search_literal_led")
            const.prefix = repr(prefix)
            const.rare = rarest_index(prefix)
            const.rare_comment = comment_text(prefix[const.rare])
        self.plan.regexes.append(const)
        self.plan.uses_regex = True
        return name

    def literal_name(self, stem: str) -> str:
        """A literal constant's name whose _LEN and _RARE companions are free too."""
        const = self.const(stem)
        while f"{const}_LEN" in self.names or f"{const}_RARE" in self.names:
            const = self.const(stem)
        return const

    def literal_const(self, name: str, comment: str, literal: str) -> None:
        self.names.update((f"{name}_LEN", f"{name}_RARE"))
        rare = rarest_index(literal)
        self.plan.literal_consts.append(
            LiteralConst(name, comment, repr(literal), rare, comment_text(literal[rare]))
        )
        self.imports.add("from rtc.runtime.matching import LONG_SPAN, find_literal")

    def finish(self) -> None:
        """The import lines."""
        self.plan.runtime_imports = merge_imports(self.imports)
