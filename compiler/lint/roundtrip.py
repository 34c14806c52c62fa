"""Round trips: assistant messages rendered by the model's chat template, parsed back.

For each message (content; reasoning and content; one tool call with typed arguments;
reasoning and two tool calls) the chat template writes a prompt and an assistant turn
(:func:`rtc.compiler.chat.render_turn`: the turn ends at the template's end-of-turn token).
Parsing that turn with the prompt as ``prefix`` must give the message back; every difference is
a ``round-trip`` finding.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from rtc.compiler.chat import ChatTemplate, ChatTemplateError, render_turn

from .context import Context, quote
from .findings import ERROR, INFO, WARNING, Finding
from .probe import is_raised
from .shapes import TOOLS
from .texts import tool_calls

TYPED_ARGUMENTS = {
    "city": "Paris",
    "days": 3,
    "metric": True,
    "ratio": 0.5,
    "tags": ["rain", "wind"],
    "filter": {"max": 10},
}


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


MESSAGES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("content", {"role": "assistant", "content": "It is sunny in Paris today."}),
    (
        "reasoning and content",
        {
            "role": "assistant",
            "reasoning_content": "The user wants the weather in Paris.",
            "content": "It is sunny in Paris today.",
        },
    ),
    (
        "one tool call",
        {"role": "assistant", "content": "", "tool_calls": [_call("get_weather", TYPED_ARGUMENTS)]},
    ),
    (
        "reasoning and two tool calls",
        {
            "role": "assistant",
            "reasoning_content": "I need the weather and the local time.",
            "content": "",
            "tool_calls": [
                _call("get_weather", {"city": "Paris", "days": 1}),
                _call("get_time", {"timezone": "Europe/Paris"}),
            ],
        },
    ),
)


def _shown_calls(calls: list[tuple[Any, Any]]) -> str:
    return ", ".join(f"{name}({json.dumps(args, ensure_ascii=False)})" for name, args in calls)


def round_trip(ctx: Context, chat: ChatTemplate) -> list[Finding]:
    corpus = ctx.corpus
    by_role: dict[str, Any] = {}
    for shape in corpus.shapes:
        by_role.setdefault(shape.role, shape)
    if corpus.implicit is not None:
        by_role["content"] = (
            corpus.implicit
            if "content" not in corpus.by_name
            else by_role.get("content", corpus.implicit)
        )
    out: dict[tuple[str, str], Finding] = {}
    from .streaming import stop_tokens

    stops = tuple(stop_tokens(ctx))
    for label, message in MESSAGES:
        try:
            prompt, text = render_turn(chat, message, stops, tools=TOOLS)
        except ChatTemplateError as exc:
            key = ("render", label)
            out[key] = ctx.finding(
                "round-trip",
                INFO,
                "chat_template",
                f"the chat template cannot render the message ({label}): {exc}",
                None,
            )
            continue
        result = ctx.probe.one_shot(prompt, text)
        example = ctx.example(text, prefix=prompt)
        if is_raised(result):
            out.setdefault(
                ("raises", ""),
                ctx.finding(
                    "round-trip",
                    ERROR,
                    "fields",
                    f"parsing the chat template's own rendering ({label}) raises "
                    f"{result['exception']}: the whole message is lost.",
                    example,
                ),
            )
            continue
        for key, finding in _differences(ctx, by_role, label, message, text, result, example):
            out.setdefault(key, finding)
    return list(out.values())


def _differences(
    ctx: Context,
    by_role: dict[str, Any],
    label: str,
    message: dict[str, Any],
    text: str,
    result: dict[str, Any],
    example: Any,
) -> Iterator[tuple[tuple[str, str], Finding]]:
    expected: list[tuple[str, Any]] = []
    reasoning = message.get("reasoning_content")
    if reasoning:
        expected.append(("reasoning", reasoning))
    if message.get("content"):
        expected.append(("content", message["content"]))
    if message.get("tool_calls"):
        calls = [(c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]]
        expected.append(("tool", calls))
    seen_fields = set()
    for role, want in expected:
        shape = by_role.get(role)
        path = ctx.field_path(shape.field) if shape is not None else "fields"
        got = result.get(shape.name) if shape is not None else None
        if shape is not None:
            seen_fields.add(shape.name)
        if role == "tool":
            if got is not None and tool_calls(got) == want:
                continue
            written = all(name in text for name, _ in want)
            what = ("the tool calls " if len(want) > 1 else "the tool call ") + quote(
                _shown_calls(want), 100
            )
            shown = quote(_shown_calls(tool_calls(got)), 100) if got is not None else "nothing"
        else:
            if isinstance(got, str) and got.strip() == want.strip():
                continue
            written = want.strip() in text
            what = f"the {role} {quote(want)}"
            shown = (
                quote(got)
                if isinstance(got, str)
                else ("nothing" if got is None else quote(json.dumps(got)))
            )
        if not written:
            yield (path, f"dropped {role}"), ctx.finding(
                "round-trip",
                INFO,
                path,
                f"the chat template does not write {what} ({label}), so it cannot come back "
                f"from the assistant turn (parsed: {shown}).",
                example,
            )
            continue
        yield (path, role), ctx.finding(
            "round-trip",
            WARNING,
            path,
            f"the chat template writes {what} ({label}); parsing the assistant turn back gives "
            f"{shown}.",
            example,
        )
    for name, value in result.items():
        if name == "role" or name in seen_fields or name in ctx.model.defaults:
            continue
        shape = ctx.corpus.by_name.get(name)
        path = ctx.field_path(shape.field) if shape is not None else "fields"
        yield (path, "extra"), ctx.finding(
            "round-trip",
            WARNING,
            path,
            f"parsing the chat template's rendering ({label}) also gives `{name}` = "
            f"{quote(json.dumps(value))}, which the message does not have.",
            example,
        )
