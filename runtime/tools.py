"""Tool-argument typing: casting string arguments of parsed tool calls to their schema types.

Models often write every tool argument as text (``<parameter=n>7</parameter>``). When the
caller passes ``tools=``, each parsed value that is shaped like a tool call is revisited at
region close and its string arguments are converted according to the tool's parameter
schema, in the order the schema lists its types.
"""

from __future__ import annotations

from inspect import isfunction, ismethod
from typing import Any

from .json_decode import loads
from .json_schema import get_json_schema

__all__ = ["coerce", "coerce_tool_calls", "read_tools", "schema_types"]

_INFINITIES = (float("inf"), float("-inf"))
_STRING = ("string",)


def read_tools(tools: Any) -> dict[str, dict[str, Any]]:
    """Map each tool name to its ``parameters.properties`` dict.

    Accepts what ``apply_chat_template`` accepts: plain functions and bound methods (turned
    into schemas, which raises for undocumented ones), ``{"type": "function", "function":
    {...}}`` wrappers, or bare function dicts. Entries that are not usable (no string name,
    not a dict at all...) are skipped silently; a later tool with the same name replaces an
    earlier one. The recorded properties dicts are the caller's own objects, not copies.
    """
    if tools.__class__ is list:
        # The usual request: plain dicts all the way down, each step the one below takes
        # (on exact dicts get() and [] agree); anything else starts over on the general path.
        params: dict[str, dict[str, Any]] = {}
        for tool in tools:
            if tool.__class__ is dict:
                function = tool.get("function", tool)
                if function.__class__ is dict:
                    name = function.get("name")
                    parameters = function.get("parameters")
                    if name.__class__ is str and parameters.__class__ is dict:
                        properties = parameters.get("properties")
                        params[name] = properties if isinstance(properties, dict) else {}
                        continue
            return _read_tools(tools)
        return params
    return _read_tools(tools)


def _read_tools(tools: Any) -> dict[str, dict[str, Any]]:
    params: dict[str, dict[str, Any]] = {}
    for tool in tools or []:
        if tool.__class__ is not dict:  # the common case skips the inspect calls
            if isfunction(tool) or ismethod(tool):
                tool = get_json_schema(tool)
            if not isinstance(tool, dict):
                continue
        function = tool.get("function", tool)
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            continue
        parameters = function.get("parameters")
        properties = parameters.get("properties") if isinstance(parameters, dict) else None
        params[function["name"]] = properties if isinstance(properties, dict) else {}
    return params


def schema_types(schema: Any) -> tuple[str, ...]:
    """JSON type names a property schema allows, in the order coercion should try them.

    ``type`` (a name or the names in a list) first, then the types of each ``anyOf`` and
    ``oneOf`` member, depth first; ``nullable`` adds ``null`` at the end unless present.
    Duplicates are kept: they only cost a repeated attempt.
    """
    if schema.__class__ is dict:
        # The usual schema, {"type": NAME, ...} without unions or nullable: what the general
        # rule below gives for it (no member to visit, no "null" to add), without the walk.
        declared = schema.get("type")
        if (
            declared.__class__ is str
            and "anyOf" not in schema
            and "oneOf" not in schema
            and "nullable" not in schema
        ):
            return (declared,)
    if not isinstance(schema, dict):
        return ()
    declared = schema.get("type")
    found: list[str] = []
    if isinstance(declared, str):
        found.append(declared)
    elif isinstance(declared, list):
        found.extend(name for name in declared if isinstance(name, str))
    for combinator in ("anyOf", "oneOf"):
        for member in schema.get(combinator) or []:
            found.extend(schema_types(member))
    if schema.get("nullable") and "null" not in found:
        found.append("null")
    return tuple(found)


def _try_integer(raw: str) -> tuple[bool, Any]:
    try:
        return True, int(raw)
    except ValueError:
        # Integral float spellings ("3.0", "1e3") are JSON-schema integers too; a failing
        # float() here propagates to the caller's ValueError handler.
        number = float(raw)
        if number.is_integer():
            return True, int(number)
        return False, None


def _try_number(raw: str) -> tuple[bool, Any]:
    number = float(raw)
    if number != number or number in _INFINITIES:
        # NaN and the infinities are not JSON numbers.
        return False, None
    if number.is_integer() and "." not in raw:
        # Keep an int when the text had no fractional part ("5", "1e3", "-0").
        return True, int(number)
    return True, number


def _try_type(raw: str, type_name: str) -> tuple[bool, Any]:
    if type_name == "integer":
        return _try_integer(raw)
    if type_name == "number":
        return _try_number(raw)
    if type_name == "boolean":
        word = raw.strip().lower()
        if word in ("true", "1", "false", "0"):
            return True, word in ("true", "1")
        return False, None
    if type_name == "null":
        if raw.strip() in ("null", "None"):
            return True, None
        return False, None
    if type_name in ("object", "array"):
        decoded = loads(raw)
        if isinstance(decoded, dict if type_name == "object" else list):
            return True, decoded
    # `string` and unknown type names never convert anything.
    return False, None


def coerce(raw: str, types: tuple[str, ...]) -> Any:
    """Value of ``raw`` under the first of ``types`` that accepts it, else ``raw`` itself.

    Only ValueError (JSONDecodeError included) counts as "does not accept"; anything else,
    such as a RecursionError from very deep JSON, propagates.
    """
    for type_name in types:
        if type_name == "string":
            continue  # never converts and never raises (see _try_type)
        try:
            accepted, value = _try_type(raw, type_name)
        except ValueError:
            continue
        if accepted:
            return value
    return raw


def coerce_tool_calls(value: Any, tool_params: dict[str, dict[str, Any]]) -> Any:
    """Coerce the arguments of every tool call found in ``value``.

    Lists are rebuilt element by element (recursively). A dict whose ``function`` is a dict
    with a string ``name`` and dict ``arguments`` is a tool call: its arguments are coerced
    in place and the same dict is returned, so every other reference to it (e.g. from a
    transform that used the same value twice) sees the change. Which field the value comes
    from is irrelevant; anything else is returned untouched.
    """
    if value.__class__ is dict:  # one call, the usual value
        function = value.get("function")
    elif isinstance(value, list):
        return [coerce_tool_calls(item, tool_params) for item in value]
    else:
        function = value.get("function") if isinstance(value, dict) else None
    if not isinstance(function, dict):
        return value
    name = function.get("name")
    arguments = function.get("arguments")
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return value
    properties = tool_params.get(name)
    if not properties:
        return value
    for key, argument in arguments.items():
        if key not in properties:
            continue
        schema = properties[key]
        if (
            argument.__class__ is str
            and schema.__class__ is dict
            and schema.get("type") == "string"
            and "anyOf" not in schema
            and "oneOf" not in schema
            and "nullable" not in schema
        ):
            continue  # the plain string schema keeps text (the rule below, its usual case)
        if schema.__class__ is dict and "anyOf" not in schema and "oneOf" not in schema:
            # Its types cannot fail to compute (nothing to walk), so skipping them is safe
            # where nothing would be converted: an argument that is neither text nor a list,
            # or text under a plain string schema.
            if not isinstance(argument, (str, list)):
                continue
            if schema.get("type") == "string" and "nullable" not in schema:
                if isinstance(argument, str):
                    continue
        types = schema_types(schema)
        if not types:
            continue
        if isinstance(argument, str):
            if types != _STRING:  # a string schema keeps the text: nothing to store
                arguments[key] = coerce(argument, types)
        elif isinstance(argument, list) and "array" not in types:
            # A list under a non-array schema comes from merge_duplicates: coerce its
            # string members one by one.
            arguments[key] = [
                coerce(item, types) if isinstance(item, str) else item for item in argument
            ]
    return value
