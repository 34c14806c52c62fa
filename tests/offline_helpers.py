"""Shared by the offline tests: a small corpus and what every path must give for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rtc import generated
from rtc.compiler.offline import corpus

FAMILIES = ("qwen3", "mistral", "qwen3_coder")
PER_FAMILY = 7000  # three families: 21,000 records, ~1% malformed, a few bad lines


def write_corpus(folder: Path, family: str, count: int = PER_FAMILY, seed: int = 0) -> Path:
    path = folder / f"{family}.jsonl"
    corpus.write_jsonl(str(path), family, count, seed=seed)
    return path


def table_rows(path: Path) -> list[dict[str, Any]]:
    """The corpus's JSON objects as rows of one table, as datasets and Parquet files hold them:
    tools as JSON text (null when absent), a text that is not a string as null."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            record["tools"] = json.dumps(record["tools"]) if "tools" in record else None
            record["text"] = record.get("text") if isinstance(record.get("text"), str) else None
            rows.append(record)
    return rows


def _arguments_as_json(message: dict[str, Any]) -> dict[str, Any]:
    for call in message.get("tool_calls") or []:
        function = call["function"]
        if not isinstance(function["arguments"], str):
            function["arguments"] = json.dumps(function["arguments"], ensure_ascii=False)
    return message


def expected(family: str, path: Path) -> list[dict[str, Any]]:
    """Per non-blank line: the input fields plus what parse_response says (errors by type)."""
    module = generated.get(family)
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            out.append({"message": None, "error": ("RecordError", number)})
            continue
        if not isinstance(record.get("text"), str):
            out.append({**record, "message": None, "error": ("RecordError", number)})
            continue
        try:
            message = module.parse_response(
                record["text"], prefix=record["prompt"], tools=record.get("tools")
            )
            out.append({**record, "message": _arguments_as_json(message), "error": None})
        except Exception as exc:
            out.append({**record, "message": None, "error": (type(exc).__name__, number)})
    return out


def comparable(record: dict[str, Any], *, drop_nulls: bool = False) -> dict[str, Any]:
    """A record with its error as (type, line); with ``drop_nulls``, absent == null.

    Arrow (Parquet) stores records of one file under one schema: a key one record lacks is null
    there. ``drop_nulls`` compares such records with the others.
    """
    record = dict(record)
    error = record.get("error")
    if isinstance(error, str):
        error = json.loads(error)
    if isinstance(record.get("message"), str):
        record["message"] = json.loads(record["message"])
    if isinstance(record.get("tools"), str):
        record["tools"] = json.loads(record["tools"])
    if isinstance(error, dict):
        error = (error["type"], error["line"])
    record["error"] = error
    return _without_nulls(record) if drop_nulls else record


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def read_output(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
