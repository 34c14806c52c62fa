"""What each field of a template looks like in real output, and how to write a value into it.

The lint builds its probe texts from the template's own delimiters: every field gets samples
of its open and close delimiters and an encoder that writes a value (a reasoning text, a reply,
tool calls with typed arguments) into the field's body the way its content parser and transform
read it back. Tool-call fields are recognised by their transform (a ``function`` key) or name;
where a transform takes a value from an open-pattern capture (``{name}``), the capture is
filled in the open delimiter's sample instead.

Everything here is deterministic and small: a handful of samples per delimiter, short texts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rtc.compiler.model import Delimiter, Field, Template
from rtc.runtime.transform import PLACEHOLDER

from ..regex_syntax import samples
from ..tool_decls import function_tool
from .patterns import Sample, literal_or_samples


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


CALL = ToolCall("get_weather", {"city": "Paris", "days": 3})
SECOND_CALL = ToolCall("get_time", {"timezone": "Europe/Paris"})
TEXTS = {
    "reasoning": ("The user wants the weather in Paris.", "I should call the tool."),
    "content": ("It is sunny in Paris today.", "Anything else?"),
    "other": ("Some value.", "Another value."),
}
SCALARS = {"int": "42", "float": "1.5", "bool": "true"}

# JSON schemas for every argument the probes write, so tool-argument typing (`tools=`) runs as
# it does in a server that passes the request's tools.
_PROPERTIES = {
    "city": {"type": "string"},
    "days": {"type": "integer"},
    "timezone": {"type": "string"},
    "metric": {"type": "boolean"},
    "ratio": {"type": "number"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "filter": {"type": "object"},
    "query": {"type": "string"},
    "code": {"type": "string"},
}


def tools_for(names: list[str]) -> list[dict[str, Any]]:
    """OpenAI-style tool definitions for ``names``, each taking every probe argument."""
    return [
        function_tool(name, "A tool the lint's probe texts call.", dict(_PROPERTIES))
        for name in names
    ]


TOOLS = tools_for([CALL.name, SECOND_CALL.name])

# Where a tool call's parts go, by the key they are stored under in a transform.
_NAME_KEYS = ("name", "tool_name", "function_name")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")


def placeholders(node: Any, where: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    """(output location, placeholder path) for every placeholder string in a transform."""
    if isinstance(node, str):
        match = PLACEHOLDER.fullmatch(node)
        return [(where, match.group(1))] if match else []
    if isinstance(node, dict):
        return [p for key, item in node.items() for p in placeholders(item, (*where, key))]
    if isinstance(node, list):
        return [p for i, item in enumerate(node) for p in placeholders(item, (*where, str(i)))]
    return []


def value_for(location: tuple[str, ...], call: ToolCall) -> Any:
    """The part of ``call`` a transform location holds (``function.name`` → the name)."""
    last = location[-1] if location else ""
    if last == "function" or not location:
        return {"name": call.name, "arguments": call.arguments}
    if last in _NAME_KEYS:
        return call.name
    if last in _ARGUMENT_KEYS:
        return call.arguments
    if last == "id":
        return "call_1"
    if last == "type":
        return "function"
    return "x"


def _set_path(target: dict[str, Any], keys: list[str], value: Any) -> Any:
    """``value`` placed at ``keys`` inside ``target`` (the whole value when ``keys`` is empty)."""
    if not keys:
        return value
    node = target
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = value
    return target


def is_tool_field(f: Field) -> bool:
    def has_function(node: Any) -> bool:
        if isinstance(node, dict):
            return "function" in node or any(has_function(v) for v in node.values())
        if isinstance(node, list):
            return any(has_function(v) for v in node)
        return False

    return has_function(f.transform) or "tool" in f.name.lower()


def role_of(f: Field) -> str:
    if is_tool_field(f):
        return "tool"
    name = f.name.lower()
    if any(word in name for word in ("think", "reason", "thought", "analysis")):
        return "reasoning"
    if f.implicit or name == "content":
        return "content"
    return "other"


def _args(f: Field) -> Mapping[str, Any]:
    return f.content_args if isinstance(f.content_args, dict) else {}


def encode_json(value: Any, args: Mapping[str, Any]) -> str:
    """``value`` in the field's JSON dialect (custom string delimiters, unquoted keys)."""
    delims = args.get("string_delims")
    pair = delims[0] if isinstance(delims, list) and delims and len(delims[0]) == 2 else None
    unquoted = bool(args.get("unquoted_keys"))
    if pair is None and not unquoted:
        return json.dumps(value, ensure_ascii=False)

    def write(node: Any) -> str:
        if isinstance(node, dict):
            items = []
            for key, item in node.items():
                bare = unquoted and re.fullmatch(r"\w+", key)
                items.append(f"{key if bare else write(key)}:{write(item)}")
            return "{" + ",".join(items) + "}"
        if isinstance(node, list):
            return "[" + ",".join(write(item) for item in node) + "]"
        if isinstance(node, str) and pair is not None:
            return f"{pair[0]}{node}{pair[1]}"
        return json.dumps(node, ensure_ascii=False)

    return write(value)


def _value_text(value: Any, value_parser: Any) -> str:
    """How one argument value is written so that ``value_parser`` reads it back."""
    if not isinstance(value_parser, dict) or value_parser.get("name", "text") != "json":
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    sub = args if isinstance(args := value_parser.get("args"), dict) else {}
    if isinstance(value, str) and sub.get("allow_non_json") and not sub.get("string_delims"):
        return value
    return encode_json(value, sub)


def encode_xml_inline(arguments: dict[str, Any], args: Mapping[str, Any]) -> str | None:
    tag = args.get("tag_pattern")
    if not isinstance(tag, str):
        return None
    parts = []
    for key, value in arguments.items():
        text = _value_text(value, args.get("value_parser"))
        found = samples(tag, {"key": key, "value": text}, limit=1)
        if not found:
            return None
        parts.append(found[0].text)
    separator = "\n" if parts and parts[0].startswith("<") else ", "
    return separator.join(parts)


def encode_kv_lines(arguments: dict[str, Any], args: Mapping[str, Any]) -> str | None:
    line_sep = args.get("line_sep", "\n")
    kv_sep = args.get("kv_sep", ":")
    if not isinstance(kv_sep, str) or not kv_sep or not (line_sep is None or line_sep):
        return None
    lines = [
        f"{k}{kv_sep} {_value_text(v, args.get('value_parser'))}" for k, v in arguments.items()
    ]
    return (" " if line_sep is None else str(line_sep)).join(lines)


@dataclass
class Shape:
    """One field: its role, delimiter samples and how to write values into its body."""

    field: Field
    role: str
    captures: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.field.name

    def opens(
        self, overrides: Mapping[str, str] | None = None, after: str | None = None
    ) -> list[Sample]:
        """Samples of the open; ``after``: the body written after it, which a look-ahead
        at the end of the open may check."""
        return delimiter_samples(self.field.open, overrides, after)

    def closes(self) -> list[Sample]:
        return delimiter_samples(self.field.close)

    def body(self, payload: Any) -> tuple[str, dict[str, str]] | None:
        """The body text for ``payload`` and the open-pattern captures it needs, or None.

        ``payload`` is a text for text-like fields, a list of :class:`ToolCall` for tool
        fields (several only where one region holds several calls).
        """
        f = self.field
        if self.role != "tool" or not isinstance(payload, list):
            text = SCALARS.get(f.content, payload if isinstance(payload, str) else "")
            if f.content in ("json", "xml-inline", "kv-lines"):
                return None
            return text, {}
        return self._tool_body(payload)

    def _tool_body(self, calls: list[ToolCall]) -> tuple[str, dict[str, str]] | None:
        f = self.field
        spots = placeholders(f.transform) if f.has_transform else [((), "content")]
        overrides: dict[str, str] = {}
        if f.transform_each:
            elements = []
            for call in calls:
                element: dict[str, Any] = {}
                for location, path in spots:
                    _set_path(element, path.split("."), value_for(location, call))
                elements.append(element)
            content: Any = elements
        else:
            if len(calls) != 1:
                return None
            content = None
            holder: dict[str, Any] = {}
            for location, path in spots:
                root, *rest = path.split(".")
                value = value_for(location, calls[0])
                if root in self.captures and not rest:
                    overrides[root] = value if isinstance(value, str) else json.dumps(value)
                elif root == "content":
                    if rest:
                        _set_path(holder, rest, value)
                        content = holder
                    else:
                        content = value
            if content is None:
                content = {}
        body = self._encode(content)
        return None if body is None else (body, overrides)

    def _encode(self, content: Any) -> str | None:
        kind = self.field.content
        args = _args(self.field)
        if kind == "json":
            return encode_json(content, args)
        if not isinstance(content, dict):
            return None
        if kind == "xml-inline":
            return encode_xml_inline(content, args)
        if kind == "kv-lines":
            return encode_kv_lines(content, args)
        return json.dumps(content)


def delimiter_samples(
    delim: Delimiter | None, overrides: Mapping[str, str] | None = None, after: str | None = None
) -> list[Sample]:
    if delim is None:
        return []
    if overrides:
        found = samples(delim.pattern, overrides, limit=4, after=after)
        return found or samples(delim.pattern, overrides, limit=4, verify=False)
    return literal_or_samples(delim.literals, delim.pattern, limit=4, after=after)


def shapes(template: Template) -> list[Shape]:
    out = []
    for f in template.fields:
        captures = f.open.group_names if f.open is not None else ()
        out.append(Shape(f, role_of(f), tuple(captures)))
    return out


def payload_for(shape: Shape, variant: int = 0) -> Any:
    """The standard value of a field: variant 0, or a different variant 1 (a second region)."""
    if shape.role == "tool":
        return [SECOND_CALL] if variant else [CALL]
    return TEXTS.get(shape.role, TEXTS["other"])[1 if variant else 0]
