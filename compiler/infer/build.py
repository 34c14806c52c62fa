"""The inferred parts put together as a response template, and the checks it must pass before it
is written: it compiles, every rendered probe round-trips through it, ``rtc lint`` (with the
chat template's round trips) finds no error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rtc.compiler.match.probes import Rendered
from rtc.compiler.match.ranking import Outcome, outcome

from .calls import Calls, delimiter
from .layout import Layout, Reasoning
from .text import pattern


def _closes(texts: list[str]) -> dict[str, Any]:
    """The content field's closes: literals, or one pattern where a close has whitespace inside
    (any whitespace matches there)."""
    texts = list(dict.fromkeys(t.strip() for t in texts if t.strip()))
    if not texts:
        return {}
    if any(c.isspace() for t in texts for c in t):
        ordered = sorted(texts, key=len, reverse=True)
        return {"close_pattern": "|".join(pattern(t) for t in ordered)}
    return {"close": texts[0] if len(texts) == 1 else texts}


def reasoning_spec(reasoning: Reasoning) -> dict[str, Any]:
    return {**delimiter("open", reasoning.open), **delimiter("close", reasoning.close)}


def template(
    anchor: str,
    layout: Layout,
    reasoning: Reasoning | None,
    calls: Calls | None,
) -> dict[str, Any]:
    """The response template: reasoning, tool calls, and the content field, which keeps all
    other text as written (pieces joined with nothing, whitespace kept) and ends at the end of
    the turn and at every marker the renders show around content and calls."""
    fields: dict[str, Any] = {}
    if reasoning is not None:
        fields[reasoning.key] = reasoning_spec(reasoning)
    if calls is not None:
        fields["tool_calls"] = calls.spec
    closes = layout.stops + layout.markers + (calls.markers if calls is not None else [])
    fields["content"] = {
        **_closes(closes),
        "repeats": True,
        "join": "",
        "content_args": {"strip": False},
    }
    return {"defaults": {"role": "assistant"}, "start_anchor": anchor, "fields": fields}


def round_trips(spec: dict[str, Any], probes: list[Rendered]) -> list[Outcome]:
    """Each probe parsed by the compiled template (a template that does not compile raises
    ``TemplateError``)."""
    from rtc.compiler import load

    module = load(spec)
    return [outcome(module, p) for p in probes if p.error is None]


def lint_errors(
    spec: dict[str, Any], chat_template: str, special_tokens: Mapping[str, str]
) -> list[Any]:
    """``rtc lint``'s errors on the template, round trips through the chat template included."""
    from rtc.compiler.lint import ERROR, lint

    found = lint(spec, chat_template=chat_template, special_tokens=special_tokens)
    return [f for f in found if f.severity == ERROR]
