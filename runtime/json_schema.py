"""JSON schemas for Python callables passed as ``tools``.

``get_json_schema`` must give the same dict as transformers 5.23.0's function of that name
(and fail with the same exception type in the same situations), because the parameter
schemas it produces decide how tool-call arguments are coerced. It reads:

* the signature and type hints: every parameter except an unannotated leading
  ``self``/``cls`` needs a hint; parameters without a default are required; the return
  hint is described too, but silently left out when it cannot be converted;
* a Google-style docstring: the text before the first ``Args:``/``Returns:``/``Raises:`` is
  the description, an ``Args:`` block documents each parameter (all must be documented),
  an optional ``Returns:`` block describes the return value, and an argument description
  ending in ``(choices: <JSON list>)`` becomes an ``enum``.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
import types
import typing
from collections.abc import Callable
from enum import Enum
from typing import Any, Literal, Union

__all__ = ["DocstringParsingException", "TypeHintParsingException", "get_json_schema"]


class TypeHintParsingException(Exception):
    """A parameter lacks a type hint, or its hint has no JSON schema equivalent."""


class DocstringParsingException(Exception):
    """The callable has no docstring, or the docstring does not document a parameter."""


# ---------------------------------------------------------------------------------------
# Type hints
# ---------------------------------------------------------------------------------------

# Types whose values can appear in an `enum`, with their JSON type names. Looked up by the
# exact type of a value, so an IntEnum member or a numpy scalar is *not* accepted.
_ENUM_VALUE_TYPES: dict[type, str] = {
    int: "integer",
    float: "number",
    str: "string",
    bool: "boolean",
    type(None): "null",
}

# Bare hints with a fixed schema; `None` stands for the empty schema of `Any`. This is a
# dict lookup on purpose: an unhashable hint (say `[int]`) must raise TypeError, as upstream.
_BARE_HINTS: dict[Any, str | None] = {
    int: "integer",
    float: "number",
    str: "string",
    bool: "boolean",
    type(None): "null",
    list: "array",
    tuple: "array",
    dict: "object",
    Any: None,
}

_UNKNOWN = object()


def _media_schema_type(hint: Any) -> str | None:
    # transformers also maps PIL images and torch tensors when those packages are
    # installed. We may not import them, but a hint that *is* one of those classes proves
    # its module is already loaded, so looking in sys.modules is enough.
    image_module = sys.modules.get("PIL.Image")
    if image_module is not None and hint is getattr(image_module, "Image", _UNKNOWN):
        return "image"
    torch_module = sys.modules.get("torch")
    if torch_module is not None and hint is getattr(torch_module, "Tensor", _UNKNOWN):
        return "audio"
    return None


def _enum_schema(values: list[Any]) -> dict[str, Any]:
    # One JSON type per distinct value type, in order of first appearance; a single type
    # is written as a plain string.
    names = list(dict.fromkeys(_ENUM_VALUE_TYPES[type(value)] for value in values))
    return {"type": names[0] if len(names) == 1 else names, "enum": values}


def _hint_schema(hint: Any) -> dict[str, Any]:
    """Schema of one (already evaluated) type hint. Always returns a fresh dict, because
    the caller adds descriptions and enums to it in place."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)

    if origin is None and isinstance(hint, type) and issubclass(hint, Enum):
        values = [member.value for member in hint]
        if not values:
            raise TypeHintParsingException(
                f"Enum {hint.__name__} has no members, so no value can satisfy it"
            )
        if any(type(value) not in _ENUM_VALUE_TYPES for value in values):
            raise TypeHintParsingException(
                f"Enum {hint.__name__} has values that are not JSON scalars: {values!r}"
            )
        return _enum_schema(values)

    if origin is None:
        name = _BARE_HINTS.get(hint, _UNKNOWN)
        if name is _UNKNOWN:
            name = _media_schema_type(hint)
            if name is None:
                raise TypeHintParsingException(
                    f"type hint {hint!r} has no JSON schema equivalent; use basic types, Enum "
                    "classes, Literal, or list/tuple/dict/Union of those, or describe the tool "
                    "with a hand-written schema instead"
                )
        return {} if name is None else {"type": name}

    if origin is Union or origin is types.UnionType:
        # None is not a member of its own: it turns into `nullable` below.
        members = [_hint_schema(member) for member in args if member is not type(None)]
        schema: dict[str, Any]
        if len(members) == 1:
            schema = members[0]
        elif all(
            member.keys() == {"type"} and isinstance(member["type"], str) for member in members
        ):
            # Plain types collapse into a sorted, de-duplicated type list; anything richer
            # (items, enum, the empty Any schema...) needs anyOf to keep its details.
            names = sorted({member["type"] for member in members})
            schema = {"type": names[0] if len(names) == 1 else names}
        else:
            schema = {"anyOf": members}
        if type(None) in args:
            schema["nullable"] = True
        return schema

    if origin is Literal and len(args) > 0:
        if any(type(value) not in _ENUM_VALUE_TYPES for value in args):
            raise TypeHintParsingException(
                f"Literal values must be int, float, str, bool or None, got {args!r}"
            )
        return _enum_schema(list(args))

    if origin is list:
        if not args:
            return {"type": "array"}
        return {"type": "array", "items": _hint_schema(args[0])}

    if origin is tuple:
        if not args:
            return {"type": "array"}
        if len(args) == 1:
            raise TypeHintParsingException(
                f"{hint!r} is a one-element tuple; use the element type itself, or a list type "
                "if it can hold several elements"
            )
        if ... in args:
            raise TypeHintParsingException(
                f"{hint!r} is a variable-length tuple; use a list type instead"
            )
        return {"type": "array", "prefixItems": [_hint_schema(member) for member in args]}

    if origin is dict:
        # JSON object keys are always strings, so only the value type can be described.
        schema = {"type": "object"}
        if len(args) == 2:
            schema["additionalProperties"] = _hint_schema(args[1])
        return schema

    raise TypeHintParsingException(f"type hint {hint!r} has no JSON schema equivalent")


def _parameters_schema(func: Callable[..., Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(func)
    signature = inspect.signature(func)
    func_name = getattr(func, "__name__", "operation")
    parameters = signature.parameters

    # An unannotated leading `self`/`cls` is the receiver of an unbound method and is not
    # something the model supplies. (Bound methods have already lost it.)
    first = next(iter(parameters), None)
    receiver = None
    if first in {"self", "cls"} and parameters[first].annotation == inspect.Parameter.empty:
        receiver = first

    required = []
    for name, parameter in parameters.items():
        if name == receiver:
            continue
        if parameter.annotation == inspect.Parameter.empty:
            raise TypeHintParsingException(
                f"parameter {parameter.name} of {func_name} has no type hint"
            )
        if parameter.default == inspect.Parameter.empty:
            required.append(name)

    properties: dict[str, Any] = {}
    for name, hint in hints.items():
        if name == receiver:
            continue
        if name == "return":
            # The model never writes the return value, so an unconvertible return hint is
            # dropped rather than blocking the tool.
            try:
                properties[name] = _hint_schema(hint)
            except TypeHintParsingException:
                pass
        else:
            properties[name] = _hint_schema(hint)

    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


# ---------------------------------------------------------------------------------------
# Docstrings
# ---------------------------------------------------------------------------------------

# One documented argument inside the (blank-line-free) Args block: `name:` at some
# indentation, then text up to the next line that starts a `word:` at the same or a
# shallower indentation. Deeper-indented lines, and anything else, continue the text.
# Whitespace after the colon may cross a line break, so an empty description swallows the
# following line.
_ARG_ENTRY = re.compile(
    r"(?:\A|\n)(?P<indent>[ \t]*)(?P<name>\w+):\s*(?P<text>.*?)\s*"
    r"(?=\n(?!(?P=indent)[ \t])[ \t]*\w+:|\Z)",
    re.DOTALL,
)

# Any whitespace run that contains a line break becomes one space.
_LINE_BREAK_RUN = re.compile(r"[^\S\n]*\n\s*")

# `(choices: ...)` at the very end of an argument description (case-insensitive).
_CHOICES = re.compile(r"\(choices:\s*(?P<values>.*?)\)\s*$", re.IGNORECASE)


def _find_first(text: str, needles: tuple[str, ...], start: int) -> int:
    """Leftmost occurrence of any needle at or after ``start``, else ``len(text)``."""
    hits = [index for index in (text.find(needle, start) for needle in needles) if index >= 0]
    return min(hits, default=len(text))


def _section_body_start(doc: str, header: str) -> int | None:
    """Index just past the first ``header`` that starts a line.

    "Starts a line" means: the whitespace directly before it contains a line break. The
    header includes its own trailing newline, so ``Args: x`` on one line is no header, and
    neither is a header at the very beginning of the docstring.
    """
    found = doc.find(header)
    while found >= 0:
        cursor = found
        while cursor > 0 and doc[cursor - 1].isspace():
            cursor -= 1
            if doc[cursor] == "\n":
                return found + len(header)
        found = doc.find(header, found + 1)
    return None


def _skip_whitespace(text: str, index: int) -> int:
    while index < len(text) and text[index].isspace():
        index += 1
    return index


def _parse_google_docstring(doc: str) -> tuple[str, dict[str, str], str | None]:
    """(description, argument descriptions, returns description) of a docstring.

    Section keywords are searched as plain substrings, wherever they occur: "See Returns:
    below" ends the description just like a real section header does.
    """
    description = doc[: _find_first(doc, ("Args:", "Returns:", "Raises:"), 0)].strip()

    arguments: dict[str, str] = {}
    args_start = _section_body_start(doc, "Args:\n")
    if args_start is not None:
        args_end = _find_first(doc, ("Returns:", "Raises:"), args_start)
        block = doc[args_start:args_end].rstrip()
        block = "\n".join(line for line in block.split("\n") if line.strip())
        for entry in _ARG_ENTRY.finditer(block):
            arguments[entry["name"]] = _LINE_BREAK_RUN.sub(" ", entry["text"].strip())

    returns = None
    returns_start = _section_body_start(doc, "Returns:\n")
    if returns_start is not None:
        returns_start = _skip_whitespace(doc, returns_start)
        returns = doc[returns_start : _find_first(doc, ("Raises:",), returns_start)].strip()

    return description, arguments, returns


# ---------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------


def get_json_schema(func: Callable[..., Any]) -> dict[str, Any]:
    """``{"type": "function", "function": {name, description, parameters[, return]}}``.

    Raises DocstringParsingException / TypeHintParsingException (see the module docstring),
    and lets other failures through untouched: e.g. an invalid ``(choices: ...)`` list
    raises json.JSONDecodeError, an unhashable hint TypeError, an unresolvable string
    annotation NameError.
    """
    doc = inspect.getdoc(func)
    func_name = getattr(func, "__name__", "operation")
    if not doc:
        raise DocstringParsingException(
            f"cannot build a JSON schema for {func_name}: it has no docstring"
        )
    description, argument_docs, returns_doc = _parse_google_docstring(doc.strip())

    parameters = _parameters_schema(func)
    return_schema = parameters["properties"].pop("return", None)
    if return_schema is not None and returns_doc is not None:
        return_schema["description"] = returns_doc

    for name, schema in parameters["properties"].items():
        if name not in argument_docs:
            raise DocstringParsingException(
                f"cannot build a JSON schema for {func_name}: the docstring does not "
                f"describe the argument {name!r}"
            )
        text = argument_docs[name]
        choices = _CHOICES.search(text)
        if choices is not None:
            schema["enum"] = [
                value.strip() if isinstance(value, str) else value
                for value in json.loads(choices["values"])
            ]
            text = text[: choices.start()].strip()
        schema["description"] = text

    function: dict[str, Any] = {
        "name": func_name,
        "description": description,
        "parameters": parameters,
    }
    if return_schema is not None:
        function["return"] = return_schema
    return {"type": "function", "function": function}
