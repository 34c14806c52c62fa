"""The text of tool calls in a template's own format, derived from its field spec."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

import regex

from .samples import Delim, FieldPlan, derive_delimiter, pattern_samples
from .texts import CALLS


def _placeholders(transform: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, tuple]]:
    """``(placeholder, path in the transform)`` for each ``"{x.y}"`` string of a transform."""
    if isinstance(transform, dict):
        for key, value in transform.items():
            yield from _placeholders(value, (*path, str(key)))
    elif isinstance(transform, list):
        for index, value in enumerate(transform):
            yield from _placeholders(value, (*path, str(index)))
    elif isinstance(transform, str):
        whole = regex.fullmatch(r"\{(\w+(?:\.\w+)*)\}", transform)
        if whole:
            yield whole.group(1), path


def _is_name_key(key: str) -> bool:
    return "name" in key.lower()


def _is_args_key(key: str) -> bool:
    return any(word in key.lower() for word in ("arg", "param", "input"))


def _set_path(target: dict[str, Any], keys: Sequence[str], value: Any) -> None:
    for key in keys[:-1]:
        target = target.setdefault(key, {})
    target[keys[-1]] = value


def _tool_value(spec: dict[str, Any], captures: set[str], name: str, args: dict) -> Any:
    """The parsed content a structured tool field needs so that its transform builds a call.

    Reads the transform: ``{content}`` under an ``arguments``-like key is the arguments object,
    ``{content}`` elsewhere a whole ``{"name", "arguments"}`` object, ``{content.x}`` and (with
    ``transform_each``) ``{x}`` name keys of the parsed object.
    """
    transform = spec.get("transform")
    each = spec.get("transform_each", False)
    if transform is None:
        return {"name": name, "arguments": args}
    item: dict[str, Any] = {}
    for placeholder, path in _placeholders(transform):
        root, *keys = placeholder.split(".")
        if root in captures:
            continue  # filled from the delimiter's named groups, not from the content
        if root == "content" and not each:
            if not keys:
                # The whole parsed content: the arguments where it lands on an arguments-like
                # key (`"arguments": "{content}"`), else a complete call object.
                if path and _is_args_key(path[-1]):
                    return args
                return {"name": name, "arguments": args}
            target = keys
        else:
            # With transform_each, the keys of each list item are the placeholders.
            target = [root, *keys]
        # A key that names the tool gets the name, any other the arguments.
        _set_path(item, target, name if _is_name_key(target[-1]) else args)
    return item


def _preferred(table: dict[str, list[str]], group: str) -> list[str]:
    """The sample values ``table`` prefers for a named group (none: the sampler's own)."""
    return table.get(group, [])


def _tool_body(plan: FieldPlan, captures: set[str], name: str, args: dict) -> str | None:
    """The text inside one tool-call region, or None when it cannot be derived."""
    content_args = plan.spec.get("content_args", {}) or {}
    if plan.content == "json":
        value = _tool_value(plan.spec, captures, name, args)
        return json.dumps(value, ensure_ascii=False)
    if plan.content == "xml-inline":
        tag_pattern = content_args.get("tag_pattern")
        if not isinstance(tag_pattern, str):
            return None
        tags = []
        for key, argument in args.items():
            value = str(argument)
            preferred = {
                "key": [key],
                "value": [value, f"'{value}'", json.dumps(value), f"\n{value}\n"],
            }
            candidates, in_place = pattern_samples(tag_pattern, partial(_preferred, preferred))
            if not candidates or in_place:
                return None
            tags.append(candidates[0])
        return "\n".join(tags)
    if plan.content == "kv-lines":
        line_sep = content_args.get("line_sep", "\n")
        kv_sep = content_args.get("kv_sep", ":")
        return line_sep.join(f"{k}{kv_sep} {v}" for k, v in args.items())
    return json.dumps(args)


def tool_call_parts(
    plan: FieldPlan, count: int, calls: Sequence[tuple[str, dict[str, Any]]] = CALLS
) -> tuple[list[str | Delim | None], str | None]:
    """The parts of ``count`` tool calls (taken in turn from ``calls``), or a reason why they
    cannot be derived."""
    calls = (list(calls) * count)[:count]
    names: set[str] = set()
    for key in ("open_pattern", "close_pattern"):
        if key in plan.spec:
            try:
                names |= set(regex.compile(plan.spec[key]).groupindex)
            except regex.error:
                pass
    repeats = plan.spec.get("repeats", False)
    each = plan.spec.get("transform_each", False)
    if not repeats:
        if plan.content != "json":
            return [], f"field {plan.name!r} does not repeat and is not JSON"
        # One region holding the list of calls (e.g. Cohere's action list with transform_each).
        values = [_tool_value(plan.spec, names, n, a) for n, a in calls]
        if not each and plan.spec.get("transform") is not None:
            return [], f"field {plan.name!r}: one region cannot hold {count} calls"
        return [plan.open, json.dumps(values, ensure_ascii=False), plan.close], None
    parts: list[str | Delim | None] = []
    for index, (name, args) in enumerate(calls):

        def prefer(group: str, tool: str = name) -> list[str]:
            return [tool] if _is_name_key(group) else []

        opened = derive_delimiter(plan.spec, "open", "open_pattern", prefer)
        closed = derive_delimiter(plan.spec, "close", "close_pattern", prefer)
        if isinstance(opened, str) or isinstance(closed, str):
            return [], str(opened if isinstance(opened, str) else closed)
        body = _tool_body(plan, names, name, args)
        if body is None:
            return [], f"field {plan.name!r}: no sample for its {plan.content} content"
        if each and plan.content == "json":
            body = json.dumps([json.loads(body)], ensure_ascii=False)
        parts += [opened, body, closed, "\n" if index < count - 1 else None]
    return parts, None
