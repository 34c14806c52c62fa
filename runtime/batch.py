"""Per-record outcomes: a batch in which one bad generation never sinks the others.

``parse_response(list)`` keeps the reference's all-or-nothing contract (the first failing text
raises). Offline pipelines need the opposite: one outcome per text, in order, each either the
message or the error that parsing that text raised. Standard library only (production path).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["failure", "parse_batch", "parse_each"]

Parse = Callable[..., Any]
"""A generated module's ``parse_response(text, *, prefix, tools)``."""


def failure(exc: BaseException) -> dict[str, Any]:
    """The outcome of a text whose parsing raised ``exc``."""
    return {"message": None, "error": {"type": type(exc).__name__, "message": str(exc)}}


def parse_each(
    parse: Parse,
    texts: Sequence[Any],
    prefixes: Sequence[Any],
    tools: Sequence[Sequence[Any] | None],
) -> list[dict[str, Any]]:
    """One outcome per text: ``texts[i]`` parsed with ``prefixes[i]`` and ``tools[i]``.

    Only ``Exception``s become outcomes: an interrupt (``KeyboardInterrupt``) or ``SystemExit``
    still stops the whole batch, as it should.
    """
    outcomes: list[dict[str, Any]] = []
    append = outcomes.append
    for text, prefix, record_tools in zip(texts, prefixes, tools, strict=True):
        try:
            append({"message": parse(text, prefix=prefix, tools=record_tools), "error": None})
        except Exception as exc:  # every failure of one record is its outcome
            append(failure(exc))
    return outcomes


def parse_batch(
    parse: Parse, texts: Sequence[Any], prefix: Any, tools: Sequence[Any] | None
) -> list[dict[str, Any]]:
    """``parse_batch`` of a generated module: ``prefix`` is one string for all or one per text.

    Mistakes in the call itself (not in one record) raise, like ``parse_response(list)``: no
    prefix at all, a prefix list of the wrong length, texts that are not a list or tuple.
    """
    if not isinstance(texts, (list, tuple)):
        raise TypeError(f"texts must be a list of strings, got {type(texts).__name__}")
    if prefix is None:
        raise ValueError(
            "a prefix is required: pass the prompt (one for all texts or one per text), "
            'or prefix="" to opt out explicitly'
        )
    if isinstance(prefix, (list, tuple)):
        if len(prefix) != len(texts):
            raise ValueError(
                f"batch of {len(texts)} texts but {len(prefix)} prefixes: pass one prefix per "
                "text, or a single prefix for all"
            )
        prefixes: Sequence[Any] = prefix
    else:
        prefixes = [prefix] * len(texts)
    return parse_each(parse, texts, prefixes, [tools] * len(texts))
