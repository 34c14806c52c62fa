"""The validated form of a response template: what the compiler knows after loading it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .content_spec import ContentSpec


@dataclass(frozen=True)
class Delimiter:
    """An open, close or start anchor, as the template wrote it.

    ``literals`` holds the de-duplicated literals in template order for a literal anchor
    (``open``/``close``/``start_anchor``) and is empty for a pattern anchor.
    ``pattern`` is the regex the reference compiles: the escaped literals sorted longest
    first for a literal anchor, the template's pattern otherwise.
    """

    key: str
    pattern: str
    literals: tuple[str, ...]
    can_extend: bool
    group_names: tuple[str, ...]

    @property
    def is_literal(self) -> bool:
        return bool(self.literals)

    @property
    def single_literal(self) -> str | None:
        return self.literals[0] if len(self.literals) == 1 else None


@dataclass(frozen=True)
class Field:
    """One entry of ``fields``; raw values are kept where the reference reads them lazily."""

    name: str
    index: int
    open: Delimiter | None
    close: Delimiter | None
    content: str
    content_args: Any
    spec: ContentSpec  # content and content_args, read once
    repeats: bool
    join: str | None
    optional: bool
    transform: Any
    has_transform: bool
    transform_each: bool

    @property
    def implicit(self) -> bool:
        return self.open is None


@dataclass(frozen=True)
class Template:
    source: dict[str, Any]
    defaults: dict[str, Any]
    fields: tuple[Field, ...]
    implicit: Field | None
    start_anchor: Delimiter
