"""Whether a parsed message is what the chat template wrote, and if not, its first difference.

Reasoning and content are compared without their surrounding whitespace (a chat template's line
breaks around a block are layout, and an empty value counts as absent); the reasoning may come
under any of ``reasoning_content``, ``thinking`` and ``reasoning``. Tool calls are compared in
order, by name and by arguments as JSON values (arguments given as a JSON string are decoded
first). A value the chat template wrote as a Python literal (``['rain', 'wind']``) may also come
back as that literal's text: no content parser turns Python into JSON values, so the text is
all a parser can give. Any other key with a value is a difference.
"""

from __future__ import annotations

import json
from typing import Any

from rtc.compiler.chat import REASONING_KEYS

from .probes import Expected, literal_forms

KNOWN_KEYS = {"role", "content", "tool_calls", *REASONING_KEYS}


def _text(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip() or None
    return value


def _shown(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return json.dumps(text if len(text) <= limit else text[: limit - 1] + "…", ensure_ascii=False)


def parsed_calls(value: Any) -> list[tuple[Any, Any]]:
    """(name, arguments) of each call in a ``tool_calls`` value (OpenAI's ``function`` shape or
    a bare ``{"name", "arguments"}``; lists of lists flattened); anything else as (None, it)."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    flat = [c for item in items for c in (item if isinstance(item, list) else [item])]
    out: list[tuple[Any, Any]] = []
    for item in flat:
        function = item.get("function", item) if isinstance(item, dict) else None
        if not isinstance(function, dict):
            out.append((None, item))
            continue
        arguments = function.get("arguments", function.get("parameters"))
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                pass
        out.append((function.get("name"), {} if arguments is None else arguments))
    return out


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def _same_arguments(want: Any, got: Any) -> bool:
    if not isinstance(want, dict) or not isinstance(got, dict) or set(want) != set(got):
        return _json(want) == _json(got)
    for key, value in want.items():
        other = got[key]
        if _json(other) == _json(value):
            continue
        if isinstance(other, str) and not isinstance(value, str) and other in literal_forms(value):
            continue
        return False
    return True


def _calls_text(calls: list[tuple[Any, Any]]) -> str:
    return ", ".join(f"{n}({json.dumps(a, ensure_ascii=False)})" for n, a in calls) or "none"


def difference(expected: Expected, message: dict[str, Any]) -> str | None:
    """The first way ``message`` differs from ``expected`` (None: it does not)."""
    reasoning = next((_text(message.get(k)) for k in REASONING_KEYS if _text(message.get(k))), None)
    if reasoning != _text(expected.reasoning):
        return f"reasoning: expected {_shown(expected.reasoning)}, got {_shown(reasoning)}"
    content = _text(message.get("content"))
    if content != _text(expected.content):
        return f"content: expected {_shown(expected.content)}, got {_shown(content)}"
    got = parsed_calls(message.get("tool_calls"))
    want = list(expected.calls)
    same = len(got) == len(want) and all(
        g[0] == w[0] and _same_arguments(w[1], g[1]) for g, w in zip(got, want, strict=True)
    )
    if not same:
        return f"tool calls: expected {_shown(_calls_text(want))}, got {_shown(_calls_text(got))}"
    for key, value in message.items():
        if key not in KNOWN_KEYS and value not in (None, "", [], {}):
            return f"also gives {key} = {_shown(value)}"
    return None
