"""Arrow tables of output records: the input fields, ``message`` and ``error`` (pyarrow only here).

Columns are built straight from the decoded values, one ``pyarrow.array`` per field, never
through a list of row dicts. A value shared by many records (the tools decoded once by
``jsonl.ToolsMemo``) is converted once and repeated with ``take``. ``error`` always has the same
type, so batches without errors do not change the file's schema.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from rtc.compiler.errors import SourceError

from .records import ERROR, MESSAGE


class OutputError(Exception):
    """The results cannot be written (an unwritable folder, values Parquet cannot hold)."""


def pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401 -- the submodule the readers and writers use
    except ImportError:
        raise SourceError("Parquet needs pyarrow: pip install 'rtc[parquet]'") from None
    return pyarrow


def error_type() -> Any:
    pa = pyarrow()
    return pa.struct([("type", pa.string()), ("message", pa.string()), ("line", pa.int64())])


def _array(values: list[Any], column: str, bad: list[int] | None = None) -> Any:
    """``values`` as one Arrow array; ``bad``: rows whose value may be dropped to make it fit.

    A bad record's mistyped field (``"text": 42`` among strings) cannot share the column: it is
    stored as null (its error says what it was) rather than failing the whole output.
    """
    pa = pyarrow()
    try:
        return _shared_once(pa, values)
    except (pa.ArrowException, OverflowError) as exc:
        if bad:
            values = list(values)
            for i in bad:
                values[i] = None
            return _array(values, column)
        raise OutputError(
            f"column {column!r}: its values cannot share one Parquet column ({exc}); "
            "write a .jsonl output instead"
        ) from None


def _shared_once(pa: Any, values: list[Any]) -> Any:
    """``pa.array(values)``, converting a list or dict that several rows share only once."""
    first = next((v for v in values if v is not None), None)
    if not isinstance(first, (list, dict)):
        return pa.array(values)
    distinct = {id(v): v for v in values if v is not None}
    if 2 * len(distinct) > len(values):  # hardly shared (messages): convert as they are
        return pa.array(values)
    position = {key: at for at, key in enumerate(distinct)}
    indices = [None if v is None else position[id(v)] for v in values]
    return pa.array(list(distinct.values())).take(pa.array(indices, type=pa.int32()))


def fields_table(records: list[Any], bad: list[int]) -> Any:
    """The fields of decoded JSONL records as columns (first-seen order; a non-object has none).

    ``message`` and ``error`` are left out: the output's own columns replace them.
    """
    pa = pyarrow()
    rows = [r if isinstance(r, dict) else {} for r in records]
    names = [n for n in dict.fromkeys(chain.from_iterable(rows)) if n not in (MESSAGE, ERROR)]
    arrays = [_array([row.get(name) for row in rows], name, bad) for name in names]
    return pa.Table.from_arrays(arrays, names=names)


def records_table(
    records: list[Any], messages: list[Any], errors: list[Any], bad: list[int]
) -> Any:
    """Decoded JSONL records' fields plus message and error."""
    pa = pyarrow()
    table = fields_table(records, bad)
    table = table.append_column(MESSAGE, _array(messages, MESSAGE))
    return table.append_column(pa.field(ERROR, error_type()), pa.array(errors, type=error_type()))


def with_results(batch: Any, messages: list[Any], errors: list[Any]) -> Any:
    """An Arrow record batch of a Parquet input plus message and error (replacing any such)."""
    pa = pyarrow()
    table = pa.Table.from_batches([batch])
    table = table.drop_columns([n for n in (MESSAGE, ERROR) if n in table.column_names])
    table = table.append_column(MESSAGE, _array(messages, MESSAGE))
    return table.append_column(pa.field(ERROR, error_type()), pa.array(errors, type=error_type()))


def to_ipc(table: Any) -> bytes:
    """``table`` as Arrow IPC stream bytes: what a worker process sends back.

    Pickling an Arrow table with nested columns costs about twenty times more than writing
    its buffers as an IPC stream, and the parent reads the stream back without copying.
    """
    pa = pyarrow()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def from_ipc(data: bytes) -> Any:
    return pyarrow().ipc.open_stream(data).read_all()
