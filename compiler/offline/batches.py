"""One batch of a file job, from what the reader read to what the writer stores.

:func:`encode` decodes the batch (JSONL lines, or a Parquet record batch), parses each record and
encodes the output records: JSON lines (``bytes``) or an Arrow table. It runs wherever the batch
is parsed (this process, or a worker), so a worker sends back only bytes or Arrow buffers.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from . import jsonl, tables
from .jsonl import JsonlChunk
from .parquet import ArrowBatch
from .records import ERROR, MESSAGE, RECORD_ERROR, Fields, parse_records


@dataclass
class Encoded:
    """A parsed batch as its writer stores it, with what the progress line counts."""

    payload: Any  # bytes (JSON lines) or a pyarrow Table
    records: int
    errors: int
    bad: int
    last_line: int
    consumed: int  # of the input: bytes of JSONL, rows of Parquet (for the progress line)


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """The cyclic garbage collector off for one batch.

    A batch allocates tens of thousands of containers (decoded records, messages, tool calls),
    none of them in a reference cycle: reference counting frees them all, and the collector,
    triggered every few hundred allocations, would only walk them (and, now and then, the whole
    heap) for nothing: about a tenth of a batch's time. A cycle made meanwhile is collected by
    the next collection after the batch.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def encode(
    module: ModuleType, fields: Fields, batch: JsonlChunk | ArrowBatch, parquet_out: bool
) -> Encoded:
    """Parse one batch and encode it for the writer: JSON lines (bytes) or an Arrow table."""
    with _without_cycle_collection():
        return _encode(module, fields, batch, parquet_out)


def _encode(
    module: ModuleType, fields: Fields, batch: JsonlChunk | ArrowBatch, parquet_out: bool
) -> Encoded:
    if isinstance(batch, JsonlChunk):
        lines, numbers = jsonl.split_lines(batch)
        records, problems = jsonl.decode_lines(lines, fields.tools_field)
        messages, errors = parse_records(module, fields, records, numbers, problems)
        if parquet_out:
            bad = [i for i, e in enumerate(errors) if e is not None and e["type"] == RECORD_ERROR]
            payload = tables.records_table(records, messages, errors, bad)
        else:
            payload = jsonl.encode_lines(lines, records, messages, errors)
        last_line = batch.first_line + batch.data.count(b"\n") - 1
        if batch.data and not batch.data.endswith(b"\n"):
            last_line += 1  # a last line without its line break
        consumed = len(batch.data)
    else:
        numbers = list(range(batch.first, batch.first + len(batch)))
        inputs = _arrow_inputs(batch, fields)
        messages, errors = parse_records(module, fields, inputs, numbers)
        if parquet_out:
            payload = tables.with_results(batch.batch, messages, errors)
        else:
            rows = batch.batch.to_pylist()
            for row, message, error in zip(rows, messages, errors, strict=True):
                row[MESSAGE] = message
                row[ERROR] = error
            payload = jsonl.encode_rows(rows)
        last_line = numbers[-1] if numbers else batch.first - 1
        consumed = len(batch)
    failed = sum(e is not None for e in errors)
    bad = sum(e is not None and e["type"] == RECORD_ERROR for e in errors)
    return Encoded(payload, len(numbers), failed, bad, last_line, consumed)


def _arrow_inputs(batch: ArrowBatch, fields: Fields) -> list[dict[str, Any]]:
    """The few values parsing needs from each row (never the whole row as Python objects)."""
    columns = {name: batch.batch.column(name).to_pylist() for name in fields.names()}
    return fields.inputs(columns, batch.batch.num_rows)
