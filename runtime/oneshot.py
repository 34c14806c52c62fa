"""``parse_response`` for generated modules: one text, or a batch (a declared extension)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .engine import CompiledParser, parse_once


def parse_one(
    parser_cls: type[CompiledParser], text: Any, prefix: Any, tools: Sequence[Any] | None
) -> dict[str, Any]:
    if parser_cls._whole_pass_exact:
        return parse_once(parser_cls, text, prefix, tools)
    parser = parser_cls(prefix, tools=tools)
    parser.feed(text)
    return parser.finalize()[0]


def parse_response(
    parser_cls: type[CompiledParser], text: Any, prefix: Any, tools: Sequence[Any] | None
) -> Any:
    """Exactly the reference's one feed + finalize for a string; a list of texts is a batch."""
    if not isinstance(text, list):
        return parse_one(parser_cls, text, prefix, tools)
    if prefix is None:
        parser_cls(None)  # raises the reference's ValueError about the missing prefix
    if isinstance(prefix, list):
        if len(prefix) != len(text):
            raise ValueError(
                f"batch of {len(text)} texts but {len(prefix)} prefixes: pass one prefix per "
                "text, or a single prefix for all"
            )
        prefixes = prefix
    else:
        prefixes = [prefix] * len(text)
    return [parse_one(parser_cls, t, p, tools) for t, p in zip(text, prefixes, strict=True)]
