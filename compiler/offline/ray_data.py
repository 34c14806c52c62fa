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
from itertools import accumulate
from pathlib import Path
from typing import Any

from . import jsonl, tables
from .parsers import ParserRef, RecordsFunction
from .progress import Counts, Progress
from .records import ERROR, MESSAGE, RECORD_ERROR, Fields, parse_records

ROW = "row"
"""The column holding each record's 0-based position in the input, in ``run_file_job``."""
LINE = "__rtc_line"
"""The raw JSONL line read by ``ray.data.read_text`` in ``run_file_job``."""


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


class RayBatchParser(RecordsFunction):
    """``ds.map_batches(RayBatchParser(...), batch_format="pyarrow")``: adds message and error.

    The parser and the fields as for :class:`~rtc.compiler.offline.parsers.RecordsFunction`
    (``text_field``, ``prefix`` or ``prefix_field``, ``tools_field``). ``row_field``, when set,
    names a column of 0-based input positions: errors then carry ``line = row + 1``.
    """

    def __init__(
        self,
        parser: ParserRef | str | dict[str, Any] | Path,
        *,
        row_field: str | None = None,
        **fields: Any,
    ) -> None:
        super().__init__(parser, **fields)
        self.row_field = row_field

    def __call__(self, table: Any) -> Any:
        import pyarrow as pa

        problems: list[str | None] | None = None
        if LINE in table.column_names:  # JSONL lines read as text by run_file_job
            raw = table.column(LINE).to_pylist()
            keep = [i for i, line in enumerate(raw) if line.strip()]  # a blank line: no record
            lines = [raw[i].encode("utf-8") for i in keep]
            table = table.take(pa.array(keep, type=pa.int64())).drop_columns([LINE])
            records, problems = jsonl.decode_lines(lines, self.fields.tools_field)
        else:
            names = [n for n in self.fields.names() if n in table.column_names]
            columns = {name: table.column(name).to_pylist() for name in names}
            records = self.fields.inputs(columns, table.num_rows)
        if self.row_field is not None:
            numbers = [row + 1 for row in table.column(self.row_field).to_pylist()]
        else:
            numbers = [0] * table.num_rows
        messages, errors = parse_records(
            self.parser.module(), self.fields, records, numbers, problems
        )
        if problems is not None:
            table = _with_record_fields(table, records, errors)
        for name, values in ((MESSAGE, messages), (ERROR, errors)):
            if name in table.column_names:
                table = table.drop_columns([name])
            column = pa.array([_dumps(v) for v in values], type=pa.string())
            table = table.append_column(name, pa.ExtensionArray.from_storage(pa.json_(), column))
        return table


def _with_record_fields(table: Any, records: list[Any], errors: list[Any]) -> Any:
    """The decoded records' fields as columns (first-seen order), then ``table``'s own."""
    bad = [i for i, e in enumerate(errors) if e is not None and e["type"] == RECORD_ERROR]
    fields = tables.fields_table(records, bad)
    for name in table.column_names:
        if name in fields.column_names:
            fields = fields.drop_columns([name])
        fields = fields.append_column(name, table.column(name))
    return fields


def _numbered(block: Any, first: int) -> Any:
    """A block of the input with the 0-based ``row`` of each of its rows (a Ray task)."""
    import pyarrow as pa

    rows = pa.array(range(first, first + block.num_rows), type=pa.int64())
    return block.append_column(ROW, rows)


def _num_rows(block: Any) -> int:
    return int(block.num_rows)


def _with_rows(ray: Any, ds: Any) -> tuple[Any, int]:
    """``ds`` with each row's position in it, and its number of rows.

    The input is materialized as Arrow blocks in input order (``preserve_order``); the rows
    before each block are counted (a tiny task per block), and each block is numbered from
    there by a task of its own. Nothing but the counts comes to the driver, and nothing here
    depends on ``Dataset.zip`` (deprecated in recent Ray).
    """
    blocks = ds.to_arrow_refs()
    sizes = ray.get([ray.remote(_num_rows).remote(block) for block in blocks])
    firsts = [0, *accumulate(sizes)]
    number = ray.remote(_numbered)
    numbered = [number.remote(block, first) for block, first in zip(blocks, firsts, strict=False)]
    return ray.data.from_arrow_refs(numbered), firsts[-1]


def _check_input(input_path: str, fields: Fields) -> None:
    """A local input is checked here first, so that an unusable one is the usual one error."""
    from .jsonl import open_jsonl
    from .parquet import is_parquet, open_parquet

    if "://" in input_path or os.path.isdir(input_path):
        return  # a folder of parts, or a remote store: Ray reads it and says what is wrong
    if is_parquet(input_path):
        open_parquet(input_path, fields)
    else:
        open_jsonl(input_path).close()


def run_file_job(
    input_path: str,
    output_path: str,
    parser: ParserRef,
    fields: Fields,
    *,
    address: str | None = None,
    batch_size: int | None = None,
    progress: Progress | None = None,
) -> tuple[Counts, int]:
    """Parse ``input_path`` (JSONL or Parquet) into the new folder ``output_path`` on Ray.

    Returns the counts of the records written and the number of input rows (for JSONL: lines,
    blank ones included; a blank line gives no record). A local output folder is written under
    a temporary name and renamed when complete; an error or an interrupt removes it (a remote
    one, ``s3://...``, is written in place by Ray). The input is materialized in Ray's object
    store (which spills to disk) to number its rows.
    """
    import ray

    from .interrupts import Interrupts
    from .job import JobFailed
    from .parquet import is_parquet
    from .tables import OutputError

    local = "://" not in output_path
    if local and os.path.exists(output_path):
        raise OutputError(f"{output_path}: already exists (Ray writes a new folder of parts)")
    _check_input(input_path, fields)
    if not ray.is_initialized():
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True  # blocks in input order, for the numbering
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    target = _temporary_folder(output_path) if local else output_path
    counts = Counts()
    with Interrupts() as interrupts:
        try:
            if is_parquet(input_path):
                ds = ray.data.read_parquet(input_path)
            else:
                ds = ray.data.read_text(input_path, drop_empty_lines=False)
                ds = ds.rename_columns({"text": LINE})
            ds, records_in = _with_rows(ray, ds)
            parse = RayBatchParser(parser, row_field=ROW, **_field_args(fields))
            parsed = ds.map_batches(parse, batch_format="pyarrow", batch_size=batch_size)
            parsed.write_parquet(target)
            out = ray.data.read_parquet(target).select_columns([ERROR])
            for batch in out.iter_batches(batch_format="pyarrow"):
                errors = [json.loads(e) for e in batch.column(ERROR).to_pylist() if e is not None]
                bad = sum(e["type"] == RECORD_ERROR for e in errors)
                counts.add(batch.num_rows, len(errors), bad, 0)
                if progress is not None:
                    progress.update(counts)
            interrupts.hold()  # only the rename is left: once it is done, the job is done
            if local:
                os.rename(target, output_path)
        except BaseException as exc:
            interrupts.hold()
            _remove(target, local)
            if isinstance(exc, KeyboardInterrupt):
                raise JobFailed("interrupted", counts, interrupted=True) from None
            if isinstance(exc, Exception):
                raise JobFailed(_first_line(exc), counts) from exc
            raise
    return counts, records_in


def _remove(target: str, local: bool) -> None:
    if local:
        shutil.rmtree(target, ignore_errors=True)


def _first_line(exc: BaseException) -> str:
    """Ray's errors carry a remote traceback: the CLI says their first line."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


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
