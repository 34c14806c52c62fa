"""JSONL and Parquet, read in batches and written atomically (constant memory).

Readers yield small picklable batches (raw JSONL lines with their line numbers, or Arrow record
batches with their first row), so batches can be parsed in other processes. :func:`encode`
turns a parsed batch into what the writer stores: JSON lines, or an Arrow table.

Writers write into temporary files beside the output and rename the result into place only when
the whole input has been written (:meth:`Writer.commit`); :meth:`Writer.abort` removes them. A
Parquet file has one schema, but records need not agree on theirs (a batch without tool calls has
no ``tool_calls`` field): the writer keeps writing while each batch fits the schema so far, starts
a new part when one does not, and merges the parts under the unified schema at the end.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from itertools import islice
from typing import IO, TYPE_CHECKING, Any

from rtc.compiler.errors import SourceError

from .records import ERROR, MESSAGE, RECORD_ERROR, Fields, parse_records

if TYPE_CHECKING:
    from types import ModuleType

    import pyarrow as pa

STDIN = "-"
PARQUET_SUFFIXES = (".parquet", ".pq")


class OutputError(Exception):
    """The results cannot be written (an unwritable folder, values Parquet cannot hold)."""


def is_parquet(path: str) -> bool:
    return path.lower().endswith(PARQUET_SUFFIXES)


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401 -- the submodule the readers and writers use
    except ImportError:
        raise SourceError("Parquet needs pyarrow: pip install 'rtc[parquet]'") from None
    return pyarrow


# ---- batches -----------------------------------------------------------------------------------


@dataclass
class JsonlBatch:
    """Raw lines of a JSONL input (blank lines left out) and their 1-based line numbers."""

    lines: list[bytes]
    numbers: list[int]


@dataclass
class ArrowBatch:
    """Rows of a Parquet input; ``first`` is the 1-based row number of the first one."""

    batch: pa.RecordBatch
    first: int

    def __len__(self) -> int:
        return self.batch.num_rows


@dataclass
class Encoded:
    """A parsed batch as its writer stores it, with what the progress line counts."""

    payload: Any  # bytes (JSON lines) or a pyarrow Table
    records: int
    errors: int
    bad: int
    last_line: int


# ---- readers -----------------------------------------------------------------------------------


def _unreadable(path: str, exc: OSError) -> SourceError:
    if isinstance(exc, FileNotFoundError):
        return SourceError(f"{path}: no such file")
    if isinstance(exc, IsADirectoryError):
        return SourceError(f"{path}: is a folder, not a file")
    return SourceError(f"{path}: cannot read: {exc.strerror or exc}")


def open_jsonl(path: str) -> IO[bytes]:
    """The JSONL input opened for binary reading (stdin for ``-``)."""
    if path == STDIN:
        return sys.stdin.buffer
    try:
        return open(path, "rb")  # noqa: SIM115 -- read_jsonl closes it
    except OSError as exc:
        raise _unreadable(path, exc) from None


def read_jsonl(stream: IO[bytes], path: str, batch_size: int) -> Iterator[JsonlBatch]:
    """Batches of ``batch_size`` lines (fewer once blank lines are left out); closes ``stream``."""
    number = 0
    try:
        while True:
            try:
                chunk = list(islice(stream, batch_size))
            except OSError as exc:
                raise SourceError(f"{path}: cannot read after line {number}: {exc}") from None
            if not chunk:
                return
            lines: list[bytes] = []
            numbers: list[int] = []
            for raw in chunk:
                number += 1
                if raw.strip():
                    lines.append(raw)
                    numbers.append(number)
            if lines:
                yield JsonlBatch(lines, numbers)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def open_parquet(path: str, fields: Fields) -> Any:
    """The ``pyarrow.parquet.ParquetFile`` at ``path``, checked to hold the needed columns."""
    pa = _pyarrow()
    if path == STDIN:
        raise SourceError("Parquet cannot be read from stdin: give a file")
    try:
        parquet = pa.parquet.ParquetFile(path)
    except OSError as exc:
        raise _unreadable(path, exc) from None
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


def read_parquet(parquet: Any, path: str, batch_size: int) -> Iterator[ArrowBatch]:
    pa = _pyarrow()
    first = 1
    try:
        for batch in parquet.iter_batches(batch_size=batch_size):
            yield ArrowBatch(batch, first)
            first += batch.num_rows
    except (pa.ArrowException, OSError) as exc:
        raise SourceError(f"{path}: cannot read row {first} on: {exc}") from None


# ---- parsing a batch ---------------------------------------------------------------------------


def _decode_jsonl(batch: JsonlBatch) -> tuple[list[Any], list[str | None]]:
    records: list[Any] = []
    problems: list[str | None] = []
    loads = json.loads
    for raw in batch.lines:
        try:
            records.append(loads(raw))
            problems.append(None)
        except ValueError as exc:  # JSONDecodeError, and UnicodeDecodeError for bad UTF-8
            records.append(None)
            problems.append(f"not a JSON record ({exc})")
    return records, problems


def _arrow_inputs(batch: ArrowBatch, fields: Fields) -> list[dict[str, Any]]:
    """The few values parsing needs from each row (never the whole row as Python objects)."""
    columns = {name: batch.batch.column(name).to_pylist() for name in fields.names()}
    return fields.inputs(columns, batch.batch.num_rows)


def encode(
    module: ModuleType, fields: Fields, batch: JsonlBatch | ArrowBatch, parquet_out: bool
) -> Encoded:
    """Parse one batch and encode it for the writer: JSON lines (bytes) or an Arrow table."""
    if isinstance(batch, JsonlBatch):
        records, problems = _decode_jsonl(batch)
        numbers = batch.numbers
        messages, errors = parse_records(module, fields, records, numbers, problems)
        rows = [
            (
                {**record, MESSAGE: message, ERROR: error}
                if isinstance(record, dict)
                else {MESSAGE: message, ERROR: error}
            )
            for record, message, error in zip(records, messages, errors, strict=True)
        ]
        if parquet_out:
            bad_rows = [
                i for i, e in enumerate(errors) if e is not None and e["type"] == RECORD_ERROR
            ]
            payload = _table(rows, bad_rows)
        else:
            payload = _json_lines(rows)
    else:
        numbers = list(range(batch.first, batch.first + len(batch)))
        messages, errors = parse_records(module, fields, _arrow_inputs(batch, fields), numbers)
        if parquet_out:
            payload = _with_columns(batch.batch, messages, errors)
        else:
            rows = batch.batch.to_pylist()
            for row, message, error in zip(rows, messages, errors, strict=True):
                row[MESSAGE] = message
                row[ERROR] = error
            payload = _json_lines(rows)
    failed = sum(e is not None for e in errors)
    bad = sum(e is not None and e["type"] == RECORD_ERROR for e in errors)
    return Encoded(payload, len(numbers), failed, bad, numbers[-1] if numbers else 0)


def _json_lines(rows: list[dict[str, Any]]) -> bytes:
    # default=str: Parquet values JSON has no type for (timestamps, bytes) are written as text.
    dumps = json.JSONEncoder(ensure_ascii=False, default=str).encode
    return "".join(dumps(row) + "\n" for row in rows).encode("utf-8")


def _arrow_array(values: list[Any], column: str, bad: list[int] | None = None) -> Any:
    """``values`` as one Arrow array; ``bad``: rows whose value may be dropped to make it fit.

    A bad record's mistyped field (``"text": 42`` among strings) cannot share the column: it is
    stored as null (its error says what it was) rather than failing the whole output.
    """
    pa = _pyarrow()
    try:
        return pa.array(values)
    except (pa.ArrowException, OverflowError) as exc:
        if bad:
            values = list(values)
            for i in bad:
                values[i] = None
            return _arrow_array(values, column)
        raise OutputError(
            f"column {column!r}: its values cannot share one Parquet column ({exc}); "
            "write a .jsonl output instead"
        ) from None


def _table(rows: list[dict[str, Any]], bad: list[int] | None = None) -> Any:
    """An Arrow table of JSON records whose keys may differ (columns in first-seen order)."""
    pa = _pyarrow()
    names = list(dict.fromkeys(key for row in rows for key in row))
    arrays = [_arrow_array([row.get(name) for row in rows], name, bad) for name in names]
    return pa.Table.from_arrays(arrays, names=names)


def _with_columns(batch: Any, messages: list[Any], errors: list[Any]) -> Any:
    pa = _pyarrow()
    table = pa.Table.from_batches([batch])
    for name, values in ((MESSAGE, messages), (ERROR, errors)):
        if name in table.column_names:
            table = table.drop_columns([name])
        table = table.append_column(name, _arrow_array(values, name))
    return table


# ---- writers -----------------------------------------------------------------------------------


def _temporary(path: str, suffix: str) -> str:
    folder = os.path.dirname(path) or "."
    try:
        fd, name = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=suffix, dir=folder)
    except FileNotFoundError:
        raise OutputError(f"{path}: cannot write: folder {folder} does not exist") from None
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    os.close(fd)
    return name


def _publish(temporary: str, path: str) -> None:
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes 0600 files; outputs are ordinary files
    os.replace(temporary, path)


class JsonlWriter:
    def __init__(self, path: str) -> None:
        self.path = path
        self._temporary = _temporary(path, ".tmp")
        self._stream = open(self._temporary, "wb")  # noqa: SIM115 -- closed by commit/abort

    def write(self, payload: bytes) -> None:
        self._stream.write(payload)

    def commit(self) -> None:
        self._stream.flush()
        os.fsync(self._stream.fileno())
        self._stream.close()
        _publish(self._temporary, self.path)

    def abort(self) -> None:
        self._stream.close()
        with suppress(OSError):
            os.unlink(self._temporary)


class ParquetWriter:
    def __init__(self, path: str) -> None:
        self.path = path
        self._pa = _pyarrow()
        self._parts: list[tuple[str, Any]] = []  # (temporary file, schema)
        self._writer: Any = None
        self._next: str | None = _temporary(path, ".part0.tmp")  # fails early if unwritable

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
            name = self._next or _temporary(self.path, f".part{len(self._parts)}.tmp")
            self._next = None
            self._parts.append((name, table.schema))
            self._writer = pa.parquet.ParquetWriter(name, table.schema)
        self._writer.write_table(table)

    def commit(self) -> None:
        pa = self._pa
        if self._writer is None:  # no input records: an empty file with no columns
            name = self._next or _temporary(self.path, ".part0.tmp")
            self._next = None
            self._parts.append((name, pa.schema([])))
            pa.parquet.write_table(pa.table({}), name)
        else:
            self._writer.close()
            self._writer = None
        if len(self._parts) > 1:
            self._merge()
        _publish(self._parts[0][0], self.path)
        self._parts.clear()

    def _merge(self) -> None:
        """Rewrite the parts into one file under the schema that unifies theirs."""
        pa = self._pa
        schema = _unify(pa, [s for _, s in self._parts])
        merged = self._next = _temporary(self.path, ".tmp")  # abort() removes it too
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


def writer_for(path: str) -> JsonlWriter | ParquetWriter:
    return ParquetWriter(path) if is_parquet(path) else JsonlWriter(path)
