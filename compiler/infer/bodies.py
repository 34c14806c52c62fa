"""Finding one tool call in a rendered turn, by its name and its arguments, and the format of
its body.

Formats, tried in this order, each read back with the format's own content parsers:

- ``object``: a JSON object holding the name and the arguments under whatever keys the template
  writes (``{"name": …, "arguments": {…}}``, ``{"tool_name": …, "parameters": {…}}``);
- ``arguments``: the name, then the arguments as a JSON object (``NAME<｜tool▁sep｜>{…}``), or
  in the dialect the template writes (unquoted keys, its own string quotes:
  ``{city:<|"|>Paris<|"|>}``);
- ``pythonic``: ``NAME(key=value, …)`` with Python or JSON literals;
- ``parameters``: the name, then each parameter between what the template writes around keys
  and values (``<parameter=K>V</parameter>``, ``<arg_key>K</arg_key><arg_value>V</arg_value>``,
  ``K: V`` lines).

A call sits in a block from ``start`` (its first character: the object's brace, or the name) to
``end`` (after its arguments); what surrounds it is read by :mod:`.calls`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

import regex

from rtc.compiler.match.probes import literal_forms
from rtc.runtime.content import parse_json

from .evidence import Evidence, Unproven
from .text import common_prefix, common_suffix, pattern, shown, tokens

_DECODER = json.JSONDecoder()

PY_VALUE = (
    r"(?(DEFINE)(?P<pv>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""
    r"|\[(?:\s*(?&pv)\s*,?)*\s*\]|\{(?:\s*(?&pv)\s*:\s*(?&pv)\s*,?)*\s*\}"
    r"|\((?:\s*(?&pv)\s*,?)*\s*\)|[^\s,()\[\]{}'\"=]+))"
)
"""A Python or JSON literal: quoted strings, lists, dicts, tuples (nested), bare words."""
_PY_ARGUMENT = regex.compile(PY_VALUE + r"\s*(?P<key>\w+)\s*=\s*(?P<value>(?&pv))\s*(?P<sep>,|\))")


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


@dataclass
class Call:
    start: int
    end: int


@dataclass
class Format:
    """A body format, and what the template writes between the name and the body of each call
    seen (``after_name``: the same text, or one varying only where the template writes an id
    or an index)."""

    kind: str
    keys: tuple[str, str] = ("name", "arguments")
    after_name: list[str] = field(default_factory=list)
    tag: str = ""  # parameters, pythonic: the xml-inline tag pattern
    before: str = ""  # parameters: what precedes each key
    after: str = ""  # parameters: what follows each value
    content_args: dict[str, Any] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)


# -- JSON ------------------------------------------------------------------------------------


def object_call(
    text: str, name: str, arguments: Any, start: int = 0
) -> tuple[int, int, str, str] | None:
    """(start, end, name key, arguments key) of a JSON object holding the call."""
    at = text.find(name, start)
    while at >= 0:
        for begin in range(at, start - 1, -1):
            if text[begin] != "{":
                continue
            try:
                value, end = _DECODER.raw_decode(text, begin)
            except ValueError:
                continue
            if end <= at or not isinstance(value, dict):
                continue
            keys = _call_keys(value, name, arguments)
            if keys is not None:
                return begin, end, *keys
        at = text.find(name, at + 1)
    return None


def _call_keys(value: dict[str, Any], name: str, arguments: Any) -> tuple[str, str] | None:
    name_key = next((k for k, v in value.items() if v == name), None)
    if name_key is None:
        return None
    for key, item in value.items():
        if isinstance(item, str):
            try:
                item = json.loads(item)
            except ValueError:
                continue
        if key != name_key and _json(item) == _json(arguments):
            return name_key, key
    return None


def _json_after(text: str, start: int, arguments: Any) -> tuple[int, int] | None:
    """(start, end) of the first JSON object after ``start`` equal to ``arguments``."""
    at = text.find("{", start)
    while at >= 0:
        try:
            value, end = _DECODER.raw_decode(text, at)
        except ValueError:
            value, end = None, at
        if value is not None and _json(value) == _json(arguments):
            return at, end
        at = text.find("{", at + 1)
    return None


def _quotes(text: str, start: int, arguments: dict[str, Any]) -> tuple[str, str] | None:
    """The quotes the template writes around a string argument, when they are not ``"``."""
    for value in arguments.values():
        if not isinstance(value, str):
            continue
        at = text.find(value, start)
        if at < 0:
            return None
        before = [t for t in tokens(text[start:at]) if not t.isspace()]
        after = tokens(text[at + len(value) :])
        left = before[-1] if before else ""
        right = after[0] if after else ""
        if left[-1:] in ("'", '"') and len(left) > 1 and left[-1] != left[0]:
            left = left[-1]
        if right[:1] in ("'", '"'):
            right = right[0]
        if left and right and (left, right) != ('"', '"') and left[0] in "<['\"":
            return left, right
        return None
    return None


def _dialect_after(
    text: str, start: int, arguments: dict[str, Any]
) -> tuple[int, int, dict[str, Any]] | None:
    """(start, end, json content_args) of the arguments written in a JSON dialect."""
    brace = text.find("{", start)
    if brace < 0:
        return None
    quotes = _quotes(text, brace, arguments)
    first_key = next(iter(arguments), "")
    args: dict[str, Any] = {}
    if quotes is not None:
        args["string_delims"] = [list(quotes)]
    if first_key and regex.match(r"\{\s*" + regex.escape(first_key) + r"\s*:", text[brace:]):
        args["unquoted_keys"] = True
    if not args:
        return None
    end = text.find("}", brace)
    while end >= 0:
        try:
            value = parse_json(text[brace : end + 1], args)
        except ValueError:
            value = None
        if value is not None and _json(value) == _json(arguments):
            return brace, end + 1, args
        end = text.find("}", end + 1)
    return None


# -- parameters ----------------------------------------------------------------------------


def _value_at(text: str, start: int, value: Any) -> tuple[int, int] | None:
    """The first place after ``start`` where the template wrote ``value`` (JSON or Python)."""
    best: tuple[int, int] | None = None
    forms = literal_forms(value) + ([str(value).lower()] if isinstance(value, bool) else [])
    for form in forms:
        at = text.find(form, start)
        if at >= 0 and (
            best is None or at < best[0] or (at == best[0] and at + len(form) > best[1])
        ):
            best = (at, at + len(form))
    return best


def parameters(
    text: str, start: int, arguments: dict[str, Any]
) -> list[tuple[int, int, int, int]] | None:
    """(key start, key end, value start, value end) of each argument after ``start``, in the
    order written."""
    found = []
    for key, value in arguments.items():
        at = text.find(key, start)
        if at < 0:
            return None
        place = _value_at(text, at + len(key), value)
        if place is None:
            return None
        found.append((at, at + len(key), *place))
    found.sort()
    for (_, _, _, end), (nxt, _, _, _) in zip(found, found[1:], strict=False):
        if nxt < end:
            return None  # a key inside the previous value: not a parameter list
    return found


def generalize(variants: list[str]) -> str:
    """A pattern matching each of ``variants`` (texts the template writes in one place): the
    text itself where they agree, ``\\d+`` or ``\\w+`` where they differ by an index or an id,
    a short lazy gap elsewhere."""
    if all(v == variants[0] for v in variants):
        return pattern(variants[0])
    split = [tokens(v) for v in variants]
    if len({len(s) for s in split}) != 1:
        head, tail = common_prefix(variants), common_suffix(variants)
        return pattern(head) + r"[^\n]*?" + pattern(tail)
    out = []
    for pieces in zip(*split, strict=True):
        if all(p == pieces[0] for p in pieces):
            out.append(pattern(pieces[0]))
            continue
        if all(regex.fullmatch(r"\w+", p) for p in pieces):
            out.append(r"\w+")  # an id or an index the template writes: any word
            continue
        head = os.path.commonprefix(list(pieces))
        tail = os.path.commonprefix([p[len(head) :][::-1] for p in pieces])[::-1]
        middles = [p[len(head) : len(p) - len(tail)] for p in pieces]
        if all(m.isdigit() for m in middles):
            gap = r"\d+"
        elif all(regex.fullmatch(r"\w+", m) for m in middles):
            gap = r"\w+"
        else:
            gap = r"[^\n]*?"
        out.append(pattern(head) + gap + pattern(tail))
    return "".join(out)


def _tag(text: str, found: list[tuple[int, int, int, int]], end: int) -> tuple[str, str, str]:
    """(tag pattern, what precedes each key, what follows each value) from the gaps between the
    parameters."""
    middle = [text[k_end:v_start] for _, k_end, v_start, _ in found]
    between = [text[found[i][3] : found[i + 1][0]] for i in range(len(found) - 1)]
    head = text[: found[0][0]]
    tail = text[found[-1][3] : end]
    if not between:
        raise Unproven("tool call parameters", "one parameter does not show how they repeat")
    before = common_suffix([*between, head])
    after = common_prefix([b[: len(b) - len(before)] for b in between] + [tail])
    if not before.strip() or not after.strip():
        raise Unproven(
            "tool call parameters",
            "nothing marks where each parameter starts and ends "
            f"(between two parameters: {shown(between[0])})",
        )
    stop = middle[0].strip()[:1]
    key_class = "[^" + ("\\s" if not stop else regex.escape(stop)) + "\\n]+"
    tag = f"{pattern(before)}(?P<key>{key_class}){generalize(middle)}(?P<value>.*?){pattern(after)}"
    return tag, before, after


def _pythonic(text: str, after: int, arguments: dict[str, Any]) -> tuple[Format, int] | None:
    """A ``NAME(key=value, …)`` call whose keys are the arguments'; (format, end)."""
    paren = regex.compile(r"\s*\(").match(text, after)
    if paren is None:
        return None
    at, keys, quoted = paren.end(), [], False
    while True:
        found = _PY_ARGUMENT.match(text, at)
        if found is None:
            return None
        keys.append(found.group("key"))
        quoted = quoted or found.group("value").startswith("'")
        at = found.end()
        if found.group("sep") == ")":
            break
    if sorted(keys) != sorted(arguments):
        return None
    value_parser: dict[str, Any] = {"allow_non_json": True}
    if quoted:
        value_parser["string_delims"] = [["'", "'"]]
    tag = PY_VALUE + r"(?P<key>\w+)\s*=\s*(?P<value>(?&pv))"
    fmt = Format("pythonic", after_name=[text[after : paren.end()]], tag=tag)
    fmt.content_args = {"tag_pattern": tag, "value_parser": {"name": "json", "args": value_parser}}
    why = "the name, then `(key=value, …)`: Python or JSON literals"
    fmt.evidence.append(Evidence("tool call body", "xml-inline", why))
    return fmt, text.rfind(")", 0, at)


# -- one call --------------------------------------------------------------------------------


def find_format(text: str, name: str, arguments: dict[str, Any]) -> tuple[Format, Call]:
    """The body format of the one call in ``text`` and where the call sits."""
    found = object_call(text, name, arguments)
    if found is not None:
        start, end, name_key, args_key = found
        why = (
            f"a JSON object with the name under {shown(name_key)} and the arguments under "
            f"{shown(args_key)}"
        )
        fmt = Format("object", (name_key, args_key))
        fmt.evidence.append(Evidence("tool call body", "json", why))
        return fmt, Call(start, end)
    at = text.find(name)
    if at < 0:
        raise Unproven("tool calls", f"the call's name {shown(name)} is not in the turn")
    after = at + len(name)
    body = _json_after(text, after, arguments)
    dialect: dict[str, Any] = {}
    if body is None:
        found_dialect = _dialect_after(text, after, arguments)
        if found_dialect is not None:
            body, dialect = found_dialect[:2], found_dialect[2]
    if body is not None:
        fmt = Format("arguments", after_name=[text[after : body[0]]], content_args=dialect)
        why = f"the name, then {shown(fmt.after_name[0])}, then the arguments as a JSON object"
        if dialect:
            why += f" ({', '.join(f'{k}: {json.dumps(v)}' for k, v in dialect.items())})"
        fmt.evidence.append(Evidence("tool call body", "json", why))
        return fmt, Call(at, body[1])
    python = _pythonic(text, after, arguments)
    if python is not None:
        return python[0], Call(at, python[1])
    found_params = parameters(text, after, arguments)
    try:
        if found_params is None:
            raise Unproven(
                "tool call body",
                "the arguments are neither JSON, nor a Python call, nor parameters written one "
                f"by one (after the name: {shown(text[after:after + 80], 80)})",
            )
        tag, before, after_value = _tag(text, found_params, len(text))
    except Unproven:
        if regex.search(r"\{\s*'\w+'\s*:", text[after:]):
            raise Unproven(
                "tool call body",
                "the arguments are a Python dict ({'key': …}), which no content parser reads: "
                f"{shown(text[after:after + 60], 60)}",
            ) from None
        raise
    fmt = Format("parameters", after_name=[text[after : found_params[0][0] - len(before)]])
    fmt.tag, fmt.before, fmt.after = tag, before, after_value
    fmt.content_args = {"tag_pattern": tag}
    why = f"each parameter written as {shown(before)} KEY … VALUE {shown(after_value)}"
    fmt.evidence.append(Evidence("tool call body", "xml-inline", why))
    return fmt, Call(at, found_params[-1][3])


def locate(text: str, fmt: Format, calls: tuple[tuple[str, Any], ...]) -> list[Call] | None:
    """Each call of ``calls`` in ``text``, read with ``fmt`` (adding what each writes after
    its name to ``fmt.after_name``)."""
    out: list[Call] = []
    start = 0
    for name, arguments in calls:
        if fmt.kind in ("object", "list"):
            found = object_call(text, name, arguments, start)
            if found is None:
                return None
            out.append(Call(found[0], found[1]))
            start = found[1]
            continue
        at = text.find(name, start)
        if at < 0:
            return None
        after = at + len(name)
        if fmt.kind == "arguments":
            body = (
                _json_after(text, after, arguments)
                if not fmt.content_args
                else (_dialect_after(text, after, arguments) or (None, None))[:2]
            )
            if body is None or body[0] is None:
                return None
            fmt.after_name.append(text[after : body[0]])
            out.append(Call(at, body[1]))
        elif fmt.kind == "pythonic":
            python = _pythonic(text, after, arguments)
            if python is None:
                return None
            fmt.after_name += python[0].after_name
            out.append(Call(at, python[1]))
        else:
            found_params = parameters(text, after, arguments)
            if found_params is None:
                return None
            head = text[after : found_params[0][0]]
            if not head.endswith(fmt.before):
                return None
            fmt.after_name.append(head[: len(head) - len(fmt.before)])
            out.append(Call(at, found_params[-1][3]))
        start = out[-1].end
    return out
