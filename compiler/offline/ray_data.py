"""Ray Data: parse generations on a cluster with Ray's own readers and writers.

    import ray
    from rtc.compiler.offline.ray_data import RayBatchParser

    ds = ray.data.read_parquet("s3://bucket/generations/")
    ds = ds.map_batches(RayBatchParser("qwen3", prefix_field="prompt"), batch_format="pyarrow")
    ds.write_parquet("s3://bucket/parsed/")

:class:`RayBatchParser` is a plain picklable function (run as Ray tasks, no actor pool: actors
holding every CPU would starve Ray's own read tasks); it adds ``message`` and ``error`` to each
batch as ``records`` describes them. ``message`` and ``error`` are Arrow columns of JSON text
(the ``json`` extension type), so that parts written by different tasks share one schema whatever
keys their messages have; ``json.loads`` gives the values back.

:func:`run_file_job` is ``rtc parse --input ... --ray [ADDRESS]``: every record keeps its input
``row`` (0-based; for JSONL, the physical line is ``row + 1``), and the counts say how many
records went in and came out.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

from .parsers import ParserRef
from .progress import Counts, Progress
from .records import ERROR, MESSAGE, RECORD_ERROR, Fields, parse_records

ROW = "row"
"""The column holding each record's 0-based position in the input, in ``run_file_job``."""
LINE = "__rtc_line"
"""The raw JSONL line read by ``ray.data.read_text`` in ``run_file_job``."""


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


class RayBatchParser:
    """``ds.map_batches(RayBatchParser(...), batch_format="pyarrow")``: adds message and error.

    ``row_field``, when set, names a column of 0-based input positions: errors then carry
    ``line = row + 1``.
    """

    def __init__(
        self,
        parser: ParserRef | str | dict[str, Any] | Path,
        *,
        text_field: str = "text",
        prefix: str | None = None,
        prefix_field: str | None = None,
        tools_field: str | None = None,
        row_field: str | None = None,
    ) -> None:
        self.parser = ParserRef.of(parser)
        self.fields = Fields(text_field, prefix, prefix_field, tools_field)
        self.row_field = row_field

    def __call__(self, table: Any) -> Any:
        import pyarrow as pa

        problems: list[str | None] | None = None
        if LINE in table.column_names:  # JSONL lines read as text by run_file_job
            table, records, problems = _decode_lines(table)
        else:
            names = [n for n in self.fields.names() if n in table.column_names]
            columns = {name: table.column(name).to_pylist() for name in names}
            records = self.fields.inputs(columns, table.num_rows)
        if self.row_field is not None:
            lines = [row + 1 for row in table.column(self.row_field).to_pylist()]
        else:
            lines = [0] * table.num_rows
        messages, errors = parse_records(
            self.parser.module(), self.fields, records, lines, problems
        )
        if problems is not None:
            table = _with_record_fields(table, records, errors)
        for name, values in ((MESSAGE, messages), (ERROR, errors)):
            if name in table.column_names:
                table = table.drop_columns([name])
            column = pa.array([_dumps(v) for v in values], type=pa.string())
            table = table.append_column(name, pa.ExtensionArray.from_storage(pa.json_(), column))
        return table


def _decode_lines(table: Any) -> tuple[Any, list[Any], list[str | None]]:
    """JSONL lines read as text: blank ones dropped, the others decoded."""
    import pyarrow as pa

    raw = table.column(LINE).to_pylist()
    keep = [i for i, line in enumerate(raw) if line.strip()]
    records: list[Any] = []
    problems: list[str | None] = []
    for i in keep:
        try:
            records.append(json.loads(raw[i]))
            problems.append(None)
        except ValueError as exc:
            records.append(None)
            problems.append(f"not a JSON record ({exc})")
    return table.take(pa.array(keep, type=pa.int64())).drop_columns([LINE]), records, problems


def _with_record_fields(table: Any, records: list[Any], errors: list[Any]) -> Any:
    """The decoded records' fields as columns (first-seen order), then ``table``'s own."""
    from .formats import _table

    rows = [r if isinstance(r, dict) else {} for r in records]
    bad = [i for i, e in enumerate(errors) if e is not None and e["type"] == RECORD_ERROR]
    fields = _table(rows, bad)
    if fields.num_columns == 0:
        return table
    for name in table.column_names:
        if name in fields.column_names:
            fields = fields.drop_columns([name])
        fields = fields.append_column(name, table.column(name))
    return fields


def run_file_job(
    input_path: str,
    output_path: str,
    parser: ParserRef,
    fields: Fields,
    *,
    address: str | None = None,
    progress: Progress | None = None,
) -> tuple[Counts, int]:
    """Parse ``input_path`` (JSONL or Parquet) into the new folder ``output_path`` on Ray.

    Returns the counts of the records written and the number of input rows (for JSONL: lines,
    blank ones included; a blank line gives no record). A local output folder is written under
    a temporary name and renamed when complete; an error or an interrupt removes it.
    """
    import ray

    from rtc.compiler.errors import SourceError

    from .files import JobFailed
    from .formats import OutputError, is_parquet

    local = "://" not in output_path
    if local and os.path.exists(output_path):
        raise OutputError(f"{output_path}: already exists (Ray writes a new folder of parts)")
    if local and not os.path.isfile(input_path):
        raise SourceError(f"{input_path}: no such file")
    if not ray.is_initialized():
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
    context = ray.data.DataContext.get_current()
    # Rows are numbered by zipping with a range, which is only right when Ray keeps the order.
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    target = _temporary_folder(output_path) if local else output_path
    counts = Counts()
    try:
        if is_parquet(input_path):
            ds = ray.data.read_parquet(input_path)
        else:
            ds = ray.data.read_text(input_path, drop_empty_lines=False)
            ds = ds.rename_columns({"text": LINE})
        records_in = ds.count()
        with warnings.catch_warnings():  # deprecated from Ray 2.64 on; exact with preserve_order
            warnings.simplefilter("ignore", DeprecationWarning)
            ds = ds.zip(ray.data.range(records_in).rename_columns({"id": ROW}))
        parse = RayBatchParser(parser, row_field=ROW, **_field_args(fields))
        ds.map_batches(parse, batch_format="pyarrow").write_parquet(target)
        out = ray.data.read_parquet(target).select_columns([ERROR])
        for batch in out.iter_batches(batch_format="pyarrow"):
            errors = [json.loads(e) for e in batch.column(ERROR).to_pylist() if e is not None]
            bad = sum(e["type"] == RECORD_ERROR for e in errors)
            counts.add(batch.num_rows, len(errors), bad, 0)
            if progress is not None:
                progress.update(counts)
        if local:
            os.rename(target, output_path)
    except KeyboardInterrupt:
        shutil.rmtree(target, ignore_errors=True)
        raise JobFailed("interrupted", counts, interrupted=True) from None
    except BaseException as exc:
        shutil.rmtree(target, ignore_errors=True)
        if isinstance(exc, Exception):
            raise JobFailed(repr(exc), counts) from exc
        raise
    return counts, records_in


def _temporary_folder(path: str) -> str:
    folder = os.path.dirname(os.path.abspath(path))
    return tempfile.mkdtemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)


def _field_args(fields: Fields) -> dict[str, Any]:
    return {
        "text_field": fields.text,
        "prefix": fields.prefix,
        "prefix_field": fields.prefix_field,
        "tools_field": fields.tools_field,
    }
