"""Naming a parser so that it can travel to other processes: by catalogue name or template.

A module object cannot be pickled, so worker processes (multiprocessing, ``datasets`` with
``num_proc``, Ray tasks) receive a :class:`ParserRef` — a catalogue name or the template itself,
as JSON data — and resolve it once per process: a catalogue module is imported, a template is
compiled in memory by ``rtc.compiler.load`` (cached by its SHA-256).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

_RESOLVED: dict[tuple[str, str], ModuleType] = {}
"""Modules resolved in this process, by ("catalogue", name) or ("template", its JSON text)."""


@dataclass(frozen=True)
class ParserRef:
    """A parser by catalogue name (``ParserRef.catalogue("qwen3")``) or by template.

    Equal references resolve to the same module; the template is kept as canonical JSON text so
    that the reference pickles small and hashes cheaply.
    """

    name: str | None = None
    template_json: str | None = None
    sha256: str = field(default="", compare=False)

    @classmethod
    def catalogue(cls, name: str) -> ParserRef:
        from rtc import generated

        generated.model_types(name)  # raises KeyError listing the known names
        return cls(name=name)

    @classmethod
    def template(cls, template: dict[str, Any] | str | Path) -> ParserRef:
        """From a template dict or a template file (JSON, tokenizer_config.json or its folder).

        The template is compiled here once, so an invalid one fails now, in the caller, with
        ``rtc.compiler.TemplateError`` (or ``SourceError`` for a file that cannot be read).
        """
        from rtc.compiler import load
        from rtc.compiler.sources import read_template

        if not isinstance(template, dict):
            template, _ = read_template(str(template))
        module = load(template)
        ref = cls(
            template_json=json.dumps(template, ensure_ascii=True, separators=(",", ":")),
            sha256=module.TEMPLATE_SHA256,
        )
        _RESOLVED[("template", ref.template_json)] = module  # type: ignore[index]
        return ref

    @classmethod
    def of(cls, parser: ParserRef | str | dict[str, Any] | Path) -> ParserRef:
        """A reference from what users pass: a ref, a catalogue name, a template or its path."""
        if isinstance(parser, ParserRef):
            return parser
        if isinstance(parser, str) and not parser.endswith(".json") and "/" not in parser:
            return cls.catalogue(parser)
        return cls.template(parser)

    def module(self) -> ModuleType:
        """The generated module (imported or compiled once per process)."""
        key = (
            ("catalogue", self.name) if self.name is not None else ("template", self.template_json)
        )
        module = _RESOLVED.get(key)  # type: ignore[arg-type]
        if module is None:
            if self.name is not None:
                from rtc import generated

                module = generated.get(self.name)
            else:
                from rtc.compiler import load

                module = load(json.loads(self.template_json or "null"))
            _RESOLVED[key] = module  # type: ignore[index]
        return module

    def describe(self) -> str:
        return f"catalogue parser {self.name}" if self.name else f"template {self.sha256[:12]}"


class RecordsFunction:
    """What the ``datasets`` and Ray functions share: a parser by name and where fields are.

    Picklable: it holds a :class:`ParserRef` and a ``Fields``, never a module.
    """

    def __init__(
        self,
        parser: ParserRef | str | dict[str, Any] | Path,
        *,
        text_field: str = "text",
        prefix: str | None = None,
        prefix_field: str | None = None,
        tools_field: str | None = None,
    ) -> None:
        from .records import Fields

        self.parser = ParserRef.of(parser)
        self.fields = Fields(text_field, prefix, prefix_field, tools_field)
