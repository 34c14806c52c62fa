"""Parquet: the input read in record batches, the output written in parts under one schema.

A Parquet file has one schema, but records need not agree on theirs (a batch without tool calls
has no ``tool_calls`` field): the writer keeps writing while each batch fits the schema so far,
starts a new part when one does not, and merges the parts under the unified schema at the end.
Everything is written to temporary files first (``output``).
"""

from __future__ import annotations

import os
from collections.abc import Generator
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rtc.compiler.errors import SourceError

from .jsonl import STDIN, unreadable
from .output import publish, temporary
from .records import Fields
from .tables import OutputError, pyarrow

if TYPE_CHECKING:
    import pyarrow as pa

PARQUET_SUFFIXES = (".parquet", ".pq")


def is_parquet(path: str) -> bool:
    return path.lower().endswith(PARQUET_SUFFIXES)


@dataclass
class ArrowBatch:
    """Rows of a Parquet input; ``first`` is the 1-based row number of the first one."""

    batch: pa.RecordBatch
    first: int

    def __len__(self) -> int:
        return self.batch.num_rows


def open_parquet(path: str, fields: Fields) -> Any:
    """The ``pyarrow.parquet.ParquetFile`` at ``path``, checked to hold the needed columns."""
    pa = pyarrow()
    if path == STDIN:
        raise SourceError("Parquet cannot be read from stdin: give a file")
    try:
        parquet = pa.parquet.ParquetFile(path)
    except OSError as exc:
        raise unreadable(path, exc) from None
    except (pa.ArrowException, ValueError) as exc:
        raise SourceError(f"{path}: not a Parquet file ({exc})") from None
    schema = parquet.schema_arrow
    texts = {"the generation": fields.text, "the prefix": fields.prefix_field}
    for what, name in texts.items():
        if name is None:
            continue
        if name not in schema.names:
            raise SourceError(f"{path}: no column {name!r} ({what}); columns: {schema.names}")
        kind = schema.field(name).type
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or kind == pa.null()):
            raise SourceError(f"{path}: column {name!r} ({what}) holds {kind}, not strings")
    if fields.tools_field is not None and fields.tools_field not in schema.names:
        raise SourceError(
            f"{path}: no column {fields.tools_field!r} (tools); columns: {schema.names}"
        )
    return parquet


def read_parquet(parquet: Any, path: str, batch_size: int) -> Generator[ArrowBatch, None, None]:
    pa = pyarrow()
    first = 1
    try:
        for batch in parquet.iter_batches(batch_size=batch_size):
            yield ArrowBatch(batch, first)
            first += batch.num_rows
    except (pa.ArrowException, OSError) as exc:
        raise SourceError(f"{path}: cannot read row {first} on: {exc}") from None


class ParquetWriter:
    def __init__(self, path: str) -> None:
        self.path = path
        self._pa = pyarrow()
        self._parts: list[tuple[str, Any]] = []  # (temporary file, schema)
        self._writer: Any = None
        self._next: str | None = temporary(path, ".part0.tmp")  # fails early if unwritable

    def write(self, table: Any) -> None:
        pa = self._pa
        if self._writer is not None:
            schema = self._parts[-1][1]
            if table.schema != schema:
                unified = _unify(pa, [schema, table.schema])
                if unified.equals(schema):
                    table = _conform(pa, table, schema)
                else:  # this batch brings new fields: a new part under the wider schema
                    self._writer.close()
                    self._writer = None
                    table = _conform(pa, table, unified)
        if self._writer is None:
            name = self._next or temporary(self.path, f".part{len(self._parts)}.tmp")
            self._next = None
            self._parts.append((name, table.schema))
            self._writer = pa.parquet.ParquetWriter(name, table.schema, **_options(pa, table))
        self._writer.write_table(table)

    def finish(self) -> None:
        """Close the last part and merge the parts if there are several."""
        pa = self._pa
        if self._writer is None:  # no input records: an empty file with no columns
            name = self._next or temporary(self.path, ".part0.tmp")
            self._next = None
            self._parts.append((name, pa.schema([])))
            pa.parquet.write_table(pa.table({}), name)
        else:
            self._writer.close()
            self._writer = None
        if len(self._parts) > 1:
            self._merge()

    def commit(self) -> None:
        publish(self._parts[0][0], self.path)
        self._parts.clear()

    def _merge(self) -> None:
        """Rewrite the parts into one file under the schema that unifies theirs."""
        pa = self._pa
        schema = _unify(pa, [s for _, s in self._parts])
        merged = self._next = temporary(self.path, ".tmp")  # abort() removes it too
        with pa.parquet.ParquetWriter(merged, schema) as writer:
            for name, _ in self._parts:
                for batch in pa.parquet.ParquetFile(name).iter_batches():
                    writer.write_table(_conform(pa, pa.Table.from_batches([batch]), schema))
        for name, _ in self._parts:
            os.unlink(name)
        self._parts = [(merged, schema)]
        self._next = None

    def abort(self) -> None:
        if self._writer is not None:
            with suppress(Exception):
                self._writer.close()
        for name in [n for n, _ in self._parts] + [self._next or ""]:
            with suppress(OSError):
                os.unlink(name)
        self._parts.clear()
        self._next = None


LONG_TEXT = 256
"""Average bytes per value above which a string column is taken for long text (generations)."""


def _options(pa: Any, table: Any) -> dict[str, Any]:
    """Writer options: no dictionary and no min/max statistics for columns of long texts.

    Generations and prompts are (nearly) all distinct: a dictionary page is built and dropped
    for nothing, and min/max of kilobytes of text help no query; skipping both makes writing
    about a third cheaper. Short strings, numbers and nested columns keep both.
    """
    long = [
        field.name
        for field in table.schema
        if pa.types.is_string(field.type) or pa.types.is_large_string(field.type)
        if table.num_rows and table.column(field.name).nbytes / table.num_rows > LONG_TEXT
    ]
    if not long:
        return {}
    short = [n for n in table.column_names if n not in long]
    return {"use_dictionary": short, "write_statistics": short}


def _unify(pa: Any, schemas: list[Any]) -> Any:
    try:
        return pa.unify_schemas(schemas, promote_options="permissive")
    except (pa.ArrowException, TypeError) as exc:
        raise OutputError(
            f"records disagree on the type of a field, which one Parquet file cannot hold ({exc}); "
            "write a .jsonl output instead"
        ) from None


def _conform(pa: Any, table: Any, schema: Any) -> Any:
    """``table`` with ``schema``'s columns, in its order (missing ones null, types widened)."""
    columns = []
    for field in schema:
        if field.name not in table.column_names:
            columns.append(pa.nulls(table.num_rows, field.type))
            continue
        try:
            columns.append(table.column(field.name).cast(field.type))
        except pa.ArrowException as exc:
            raise OutputError(
                f"column {field.name!r}: records disagree on its type ({exc}); "
                "write a .jsonl output instead"
            ) from None
    return pa.Table.from_arrays(columns, schema=schema)
