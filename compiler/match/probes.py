"""The probe conversations, rendered by a chat template into (prompt, assistant turn, expected).

Each probe is an assistant message after one user turn: content only; reasoning then content,
once under each key chat templates read it from (``reasoning_content``, ``thinking``,
``reasoning``, each passed alone so that the key the template reads shows); content then a tool
call; one tool call whose arguments are a string, an integer, a number, a boolean, an array and
an object; two parallel calls; content again without tools offered; and, where the template has
a thinking switch (``enable_thinking`` or ``thinking`` changes its generation prompt), content
with thinking off and reasoning with thinking on.

What a parser must give back is what the chat template wrote (:class:`Expected`): a value the
template does not write into the assistant turn (reasoning dropped from history, calls a
template cannot render) is not expected. A template that cannot render a probe at all leaves
that probe out, with the reason.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rtc.compiler.chat import ChatTemplate, ChatTemplateError, Turn, assistant_turn
from rtc.compiler.chat.turns import USER

REASONING = "The user wants the weather in Paris."
CONTENT = "It is sunny in Paris today."
LEAD_IN = "Let me check the forecast."
TYPED = {
    "city": "Paris",
    "days": 3,
    "ratio": 0.5,
    "metric": True,
    "tags": ["rain", "wind"],
    "filter": {"max": 10},
}
FIXED_NOW = datetime(2025, 7, 26, 12, 0, 0)
"""``strftime_now`` in every render: the same text on every run."""

_TYPES = {"city": "string", "days": "integer", "ratio": "number", "metric": "boolean"}
_TYPES |= {"tags": "array", "filter": "object", "timezone": "string"}


def _tool(name: str, description: str, keys: tuple[str, ...]) -> dict[str, Any]:
    properties: dict[str, Any] = {key: {"type": _TYPES[key]} for key in keys}
    if "tags" in properties:
        properties["tags"]["items"] = {"type": "string"}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": [keys[0]]},
        },
    }


TOOLS = [
    _tool("get_weather", "Get the weather forecast for a city.", tuple(TYPED)),
    _tool("get_time", "Get the local time in a time zone.", ("timezone",)),
]
"""The tools offered to the chat template and passed to parsers (arguments typed as a server
types them)."""


def call(index: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    # Ids are nine alphanumerics: Mistral's templates refuse any other shape.
    return {
        "id": f"call{index:05d}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


WEATHER = call(1, "get_weather", TYPED)
SHORT_WEATHER = call(1, "get_weather", {"city": "Paris", "days": 1})
TIME = call(2, "get_time", {"timezone": "Europe/Paris"})


@dataclass(frozen=True)
class Conversation:
    """One probe before rendering: the assistant ``message`` and how it is rendered."""

    label: str
    message: dict[str, Any]
    tools: bool = True
    kwargs: Mapping[str, Any] = field(default_factory=dict)


def _assistant(**parts: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": "", **parts}


CONVERSATIONS: tuple[Conversation, ...] = (
    Conversation("content", _assistant(content=CONTENT)),
    *(
        Conversation(
            f"reasoning ({key}) and content", _assistant(content=CONTENT, **{key: REASONING})
        )
        for key in ("reasoning_content", "thinking", "reasoning")
    ),
    Conversation(
        "content and a tool call", _assistant(content=LEAD_IN, tool_calls=[SHORT_WEATHER])
    ),
    Conversation("one tool call, typed arguments", _assistant(tool_calls=[WEATHER])),
    Conversation("two parallel tool calls", _assistant(tool_calls=[SHORT_WEATHER, TIME])),
    Conversation("content, no tools offered", _assistant(content=CONTENT), tools=False),
)

THINKING_SWITCHES = ("enable_thinking", "thinking")


@dataclass(frozen=True)
class Expected:
    """What the chat template wrote: reasoning and content (None when not written) and the
    calls as (name, arguments)."""

    reasoning: str | None
    content: str | None
    calls: tuple[tuple[str, Any], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "reasoning": self.reasoning,
            "content": self.content,
            "tool_calls": [{"name": n, "arguments": a} for n, a in self.calls],
        }


@dataclass(frozen=True)
class Rendered:
    """A probe as the chat template wrote it (``error``: why it could not be rendered)."""

    label: str
    prompt: str
    turn: str
    expected: Expected
    tools: list[dict[str, Any]] | None
    message: dict[str, Any]
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None
    continues: bool = True
    prefilled: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"label": self.label}
        if self.error is not None:
            out["error"] = self.error
            return out
        out |= {"prompt": self.prompt, "turn": self.turn, "expected": self.expected.to_json()}
        if self.kwargs:
            out["kwargs"] = dict(self.kwargs)
        if self.prefilled:
            out["prefilled"] = self.prefilled
        return out


def literal_forms(value: Any) -> list[str]:
    """How a chat template may write an argument value: JSON (compact or spaced), or Python
    (``True``, ``['rain', 'wind']``)."""
    if isinstance(value, str):
        return [value]
    forms = [
        json.dumps(value, ensure_ascii=False),
        json.dumps(value, ensure_ascii=False, separators=(",", ":")),
        repr(value),
    ]
    return list(dict.fromkeys(forms))


def expected_of(message: dict[str, Any], turn: str) -> Expected:
    reasoning = next(
        (message[k] for k in ("reasoning_content", "thinking", "reasoning") if k in message), None
    )
    content = message.get("content") or None
    calls = tuple(
        (c["function"]["name"], c["function"]["arguments"])
        for c in message.get("tool_calls", [])
        if c["function"]["name"] in turn
    )
    return Expected(
        reasoning if reasoning and reasoning in turn else None,
        content if content and content in turn else None,
        calls,
    )


def _switched(key: str, on: bool) -> dict[str, Any]:
    """A template variable for ``ChatTemplate.render``'s keyword arguments."""
    return {key: on}


def thinking_switch(chat: ChatTemplate) -> str | None:
    """The keyword that turns thinking on and off in the generation prompt, if the template
    has one."""
    for key in THINKING_SWITCHES:
        try:
            on = chat.render([USER], add_generation_prompt=True, **_switched(key, True))
            off = chat.render([USER], add_generation_prompt=True, **_switched(key, False))
        except ChatTemplateError:
            continue
        if on != off:
            return key
    return None


def conversations(chat: ChatTemplate) -> list[Conversation]:
    """The probes for ``chat``: the fixed ones, and the thinking switch's where it has one."""
    out = list(CONVERSATIONS)
    switch = thinking_switch(chat)
    if switch is not None:
        out.append(
            Conversation(
                "content, thinking off", _assistant(content=CONTENT), kwargs={switch: False}
            )
        )
        out.append(
            Conversation(
                "reasoning and content, thinking on",
                _assistant(content=CONTENT, reasoning_content=REASONING),
                kwargs={switch: True},
            )
        )
    return out


def stop_tokens(special_tokens: Mapping[str, str]) -> tuple[str, ...]:
    """Where a model stops: the tokenizer's end-of-sequence token, when it is known."""
    eos = special_tokens.get("eos_token")
    return (eos,) if eos else ()


def _kimi_ids(message: dict[str, Any]) -> dict[str, Any]:
    """The message with call ids as Kimi's templates write them in place of the name
    (``functions.NAME:INDEX``)."""
    calls = [
        {**c, "id": f"functions.{c['function']['name']}:{i}"}
        for i, c in enumerate(message.get("tool_calls", []))
    ]
    return {**message, "tool_calls": calls}


def _turn(
    chat: ChatTemplate, probe: Conversation, stops: tuple[str, ...]
) -> tuple[Turn, dict[str, Any]]:
    tools = TOOLS if probe.tools else None
    message = probe.message
    turn = assistant_turn(
        chat, message, stops, tools=tools, kwargs=probe.kwargs, alias_reasoning=False
    )
    calls = message.get("tool_calls", [])
    if calls and all(
        c["id"] in turn.text and c["function"]["name"] not in turn.text for c in calls
    ):
        # The template writes the call's id where the name belongs (Kimi's convention).
        message = _kimi_ids(message)
        turn = assistant_turn(
            chat, message, stops, tools=tools, kwargs=probe.kwargs, alias_reasoning=False
        )
    return turn, message


def render(chat: ChatTemplate, probe: Conversation, stops: tuple[str, ...] = ()) -> Rendered:
    tools = TOOLS if probe.tools else None
    try:
        turn, message = _turn(chat, probe, stops)
    except ChatTemplateError as exc:
        empty = Expected(None, None, ())
        return Rendered(probe.label, "", "", empty, tools, probe.message, probe.kwargs, str(exc))
    expected = expected_of(message, turn.text)
    return Rendered(
        probe.label,
        turn.prompt,
        turn.text,
        expected,
        tools,
        message,
        probe.kwargs,
        None,
        turn.continues,
    )


def _reasoning_closes(probes: list[Rendered]) -> dict[str, str]:
    """Per thinking setting, what the template writes after reasoning that the generation
    prompt opened: from a rendered turn that continues its prompt, starts with the reasoning
    and goes on to the content (``\n</think>\n\n`` after a prompt ending ``<think>\n``)."""
    out: dict[str, str] = {}
    for p in probes:
        reasoning, content = p.expected.reasoning, p.expected.content
        if p.error or not p.continues or not reasoning or not content:
            continue
        text = p.turn
        if not text.lstrip().startswith(reasoning) or content not in text:
            continue
        after = text.index(reasoning) + len(reasoning)
        close = text[after : text.index(content, after)]
        if close.strip():
            out.setdefault(_setting(p), close)
    return out


def _setting(probe: Rendered) -> str:
    return json.dumps(dict(probe.kwargs), sort_keys=True)


def _closed(probes: list[Rendered]) -> list[Rendered]:
    """The probes, each turn that does not continue its prompt first closing the reasoning the
    prompt opened, as the template closes it in a turn that does (evidence, not a guess: where
    no rendered turn shows the close, the turn stays as rendered)."""
    closes = _reasoning_closes(probes)
    out = []
    for probe in probes:
        close = closes.get(_setting(probe))
        if probe.error is None and not probe.continues and close is not None:
            if not probe.turn.lstrip().startswith(close.strip()):
                probe = dataclasses.replace(probe, turn=close + probe.turn, prefilled=close)
        out.append(probe)
    return out


def render_probes(chat: ChatTemplate, stops: tuple[str, ...] = ()) -> list[Rendered]:
    """Every probe rendered by ``chat`` (compiled with ``now=lambda: FIXED_NOW`` for the same
    text on every run)."""
    return _closed([render(chat, probe, stops) for probe in conversations(chat)])


def chat_template(source: str, special_tokens: Mapping[str, str] | None = None) -> ChatTemplate:
    """``source`` compiled as the probes render it. Raises :class:`ChatTemplateError`."""
    return ChatTemplate(source, dict(special_tokens or {}), now=lambda: FIXED_NOW)


def render_all(source: str, special_tokens: Mapping[str, str] | None = None) -> list[Rendered]:
    """Every probe rendered by the chat template ``source`` (jinja2). Raises
    :class:`ChatTemplateError` when the template does not compile."""
    tokens = dict(special_tokens or {})
    return render_probes(chat_template(source, tokens), stop_tokens(tokens))


__all__ = ["TOOLS", "Conversation", "Expected", "Rendered", "literal_forms", "render_all"]
