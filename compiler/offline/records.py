"""One input record in, one output record out: the message, or the error and where it happened.

Used by every offline path (files, ``datasets``, Ray) so that they agree record by record.

An output record is the input record's fields plus ``message`` and ``error``:

- ``message``: what ``parse_response`` returns, except that each tool call's
  ``function.arguments`` is a JSON string (OpenAI's shape: Arrow and Parquet cannot hold
  ``{"days": 3}`` and ``{"days": "3"}`` in one column); ``None`` when the record failed;
- ``error``: ``None``, or ``{"type": ..., "message": ..., "line": N}`` where ``type`` is the
  exception type parsing raised (``ValueError``...) or ``RecordError`` for a record that could not
  be read (not JSON, a field missing or of the wrong type), and ``line`` is the 1-based line of
  the record in a JSONL input (or its 1-based row in a Parquet input).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from rtc.runtime.batch import failure

RECORD_ERROR = "RecordError"
"""The error type of a record that could not be read (not JSON, a field missing or mistyped)."""

MESSAGE = "message"
ERROR = "error"


@dataclass(frozen=True)
class Fields:
    """Where each record keeps its inputs: ``text``, the prefix (a field or one for all), tools."""

    text: str = "text"
    prefix: str | None = None
    prefix_field: str | None = None
    tools_field: str | None = None

    def __post_init__(self) -> None:
        if (self.prefix is None) == (self.prefix_field is None):
            raise ValueError("give exactly one of prefix (one for all) or prefix_field")

    def names(self) -> list[str]:
        """The fields parsing reads from each record."""
        return [n for n in (self.text, self.prefix_field, self.tools_field) if n is not None]

    def inputs(self, columns: dict[str, list[Any]], size: int) -> list[dict[str, Any]]:
        """Per-row records of just the fields parsing reads, from columns of a batch."""
        present = {name: columns[name] for name in self.names() if name in columns}
        return [{name: column[i] for name, column in present.items()} for i in range(size)]


class BadRecord(Exception):
    """Why one record cannot be parsed (it becomes that record's ``RecordError``)."""


def record_error(line: int, problem: str) -> dict[str, Any]:
    return {"type": RECORD_ERROR, "message": f"line {line}: {problem}", "line": line}


def _field(record: Any, name: str, what: str, nullable: bool = False) -> Any:
    if not isinstance(record, dict):
        raise BadRecord(f"the record is a JSON {_json_type(record)}, not an object")
    if name not in record:
        raise BadRecord(f"no field {name!r} ({what})")
    value = record[name]
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise BadRecord(f"field {name!r} ({what}) is {_json_type(value)}, not a string")
    return value


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(
        type(value), "number" if isinstance(value, (int, float)) else type(value).__name__
    )


_TOOLS_TEXTS: dict[str, Any] = {}
"""Tools given as JSON text, decoded once per distinct text (most records repeat one)."""


def _tools(record: dict[str, Any], name: str) -> Any:
    """A record's tools: a list of schemas, the same as JSON text, or null / absent for none."""
    value = record.get(name)
    if value is None or isinstance(value, list):
        return value
    if isinstance(value, str):
        decoded = _TOOLS_TEXTS.get(value)
        if decoded is None:
            try:
                decoded = json.loads(value)
            except ValueError as exc:
                raise BadRecord(f"field {name!r} (tools) is not JSON: {exc}") from None
            if len(_TOOLS_TEXTS) >= 64:
                _TOOLS_TEXTS.clear()
            _TOOLS_TEXTS[value] = decoded
        if decoded is None or isinstance(decoded, list):
            return decoded
        value = decoded
    raise BadRecord(f"field {name!r} (tools) is {_json_type(value)}, not an array")


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(value, ensure_ascii=False)`` without building an encoder per call."""


def openai_arguments(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with each tool call's ``function.arguments`` as a JSON string (in place)."""
    calls = message.get("tool_calls")
    if isinstance(calls, dict):
        calls = [calls]
    if isinstance(calls, list):
        for call in calls:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and "arguments" in function:
                arguments = function["arguments"]
                if not isinstance(arguments, str):
                    function["arguments"] = _ENCODE(arguments)
    return message


def _inputs(record: Any, fields: Fields) -> tuple[str, str, Any]:
    """The text, prefix and tools of a record; ``BadRecord`` says what is wrong with it."""
    text = _field(record, fields.text, "the generation")
    if fields.prefix_field is None:
        prefix = fields.prefix
    else:
        prefix = _field(record, fields.prefix_field, "the prefix")
    tools = None if fields.tools_field is None else _tools(record, fields.tools_field)
    return text, prefix, tools  # type: ignore[return-value]


def parse_records(
    module: ModuleType,
    fields: Fields,
    records: Sequence[Any],
    lines: Sequence[int],
    problems: Sequence[str | None] | None = None,
) -> tuple[list[Any], list[Any]]:
    """The ``message`` and ``error`` values for each record, in order.

    ``records[i]`` is a decoded record (a dict), ``lines[i]`` its line (or row) number and
    ``problems[i]``, when given, says why it could not even be decoded (then it is a bad record).
    Each record is parsed on its own, as ``parse_batch`` does (only ``Exception``s become
    errors: an interrupt still stops the batch).
    """
    parse = module.parse_response
    text_name, prefix_name, tools_name = fields.text, fields.prefix_field, fields.tools_field
    prefix = fields.prefix
    tools = None
    messages: list[Any] = []
    errors: list[Any] = []
    for i, record in enumerate(records):
        if problems is not None and problems[i] is not None:
            messages.append(None)
            errors.append(record_error(lines[i], problems[i]))  # type: ignore[arg-type]
            continue
        # The usual record, checked inline; anything else goes through _inputs, which says why.
        if (
            type(record) is dict
            and type(text := record.get(text_name)) is str
            and (prefix_name is None or type(prefix := record.get(prefix_name)) is str)
            and (
                tools_name is None or type(tools := record.get(tools_name)) is list or tools is None
            )
        ):
            pass
        else:
            try:
                text, prefix, tools = _inputs(record, fields)
            except BadRecord as exc:
                messages.append(None)
                errors.append(record_error(lines[i], str(exc)))
                continue
        try:
            message = parse(text, prefix=prefix, tools=tools)
        except Exception as exc:  # every failure of one record is its outcome
            error = failure(exc)[ERROR]
            error["line"] = lines[i]
            messages.append(None)
            errors.append(error)
            continue
        messages.append(openai_arguments(message))
        errors.append(None)
    return messages, errors
