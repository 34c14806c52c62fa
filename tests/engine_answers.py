"""Answers the serving-engine plugin tests send through an engine, and the message shape they
compare (no engine needed): a qwen3 prompt and three typed tools, three calls in one answer, and
an answer whose call is rejected (a trailing comma in its JSON)."""

from __future__ import annotations

from typing import Any


def shape(message: dict[str, Any]) -> dict[str, Any]:
    """content, reasoning, tool calls (name, arguments) in order: a message without ids."""
    calls = [
        (c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or []
    ]
    return {
        "content": message.get("content") or None,
        "reasoning": message.get("reasoning") or None,
        "tool_calls": calls,
    }


QWEN3_PROMPT = "<|im_start|>user\nWeather in Paris and Rome?<|im_end|>\n<|im_start|>assistant\n"
WEATHER = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    }
    for name in ("get_weather", "get_forecast", "get_time")
]


def call(name: str, arguments: str) -> str:
    """A qwen3 tool call."""
    return f'<tool_call>\n{{"name": "{name}", "arguments": {arguments}}}\n</tool_call>'


THREE_CALLS = (
    "<think>Three tools.</think>I will check."
    + call("get_weather", '{"city": "Paris"}')
    + call("get_forecast", '{"city": "Rome", "days": "3"}')
    + call("get_time", '{"city": "Oslo"}')
)
REJECTED = "<think>Hm.</think>Here:" + call("get_weather", '{"city": "Paris",}') + "Done."
