"""The file job behind ``rtc parse --input``: JSONL or Parquet in, JSONL or Parquet out.

The input is read in batches; each batch is parsed (here, or by ``workers`` processes, at most
two batches per worker in flight) and written in input order, so memory stays constant whatever
the size of the file. The output is written to temporary files and renamed into place once
complete: an error, a crash, Ctrl-C or SIGTERM leave no output behind (an older file at that path
stays as it was), and :class:`JobFailed` says how far the job got.
"""

from __future__ import annotations

import signal
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rtc.compiler.errors import SourceError

from .formats import (
    ArrowBatch,
    Encoded,
    JsonlBatch,
    OutputError,
    encode,
    is_parquet,
    open_jsonl,
    open_parquet,
    read_jsonl,
    read_parquet,
    writer_for,
)
from .parsers import ParserRef
from .progress import Counts, Progress
from .records import Fields

DEFAULT_BATCH_SIZE = 1024


@dataclass(frozen=True)
class Job:
    """What every batch needs to be parsed and encoded (picklable: sent to worker processes)."""

    parser: ParserRef
    fields: Fields
    parquet_out: bool

    def run(self, batch: JsonlBatch | ArrowBatch) -> Encoded:
        return encode(self.parser.module(), self.fields, batch, self.parquet_out)


class JobFailed(Exception):
    """The job stopped (an error, a crash or an interrupt) after ``counts``; no output written."""

    def __init__(self, reason: str, counts: Counts, interrupted: bool = False) -> None:
        where = f"after {counts.records:,} records"
        if counts.last_line:
            where += f" (input line {counts.last_line:,})"
        said = f"interrupted {where}" if interrupted else f"{reason}; stopped {where}"
        super().__init__(f"{said}; no output written")
        self.counts = counts
        self.interrupted = interrupted


def _batches(path: str, fields: Fields, batch_size: int) -> Iterator[JsonlBatch | ArrowBatch]:
    """Open the input now (so an unusable file fails before any output exists), read lazily."""
    if is_parquet(path):
        return read_parquet(open_parquet(path, fields), path, batch_size)
    return read_jsonl(open_jsonl(path), path, batch_size)


def run(
    input_path: str,
    output_path: str,
    parser: ParserRef,
    fields: Fields,
    *,
    workers: int = 1,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: Progress | None = None,
) -> Counts:
    """Parse every record of ``input_path`` into ``output_path``; the counts of what was done.

    Raises ``SourceError`` for an unusable input and ``OutputError`` for an unwritable output
    before anything is parsed; :class:`JobFailed` when the job stops part way.
    """
    job = Job(parser, fields, is_parquet(output_path))
    batches = _batches(input_path, fields, batch_size)
    writer = writer_for(output_path)
    counts = Counts()
    try:
        with _terminate_as_interrupt():
            results = _serial(job, batches) if workers <= 1 else _parallel(job, batches, workers)
            for encoded in results:
                writer.write(encoded.payload)
                counts.add(encoded.records, encoded.errors, encoded.bad, encoded.last_line)
                if progress is not None:
                    progress.update(counts)
            writer.commit()
    except KeyboardInterrupt:
        writer.abort()
        raise JobFailed("interrupted", counts, interrupted=True) from None
    except Exception as exc:
        writer.abort()
        reason = str(exc) if isinstance(exc, (SourceError, OutputError)) else repr(exc)
        raise JobFailed(reason, counts) from exc
    except BaseException:
        writer.abort()
        raise
    finally:
        if progress is not None:
            progress.clear()
    return counts


def _serial(job: Job, batches: Iterator[JsonlBatch | ArrowBatch]) -> Iterator[Encoded]:
    for batch in batches:
        yield job.run(batch)


_WORKER_JOB: Job | None = None


def _start_worker(job: Job) -> None:
    # Ctrl-C reaches the whole process group: the parent decides, workers keep quiet.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _WORKER_JOB
    _WORKER_JOB = job
    job.parser.module()  # compile or import once, before the first batch


def _run_in_worker(batch: JsonlBatch | ArrowBatch) -> Encoded:
    assert _WORKER_JOB is not None
    return _WORKER_JOB.run(batch)


def _parallel(
    job: Job, batches: Iterator[JsonlBatch | ArrowBatch], workers: int
) -> Iterator[Encoded]:
    """Results in input order, with at most two batches per worker in flight."""
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(job,))
    pending: deque[Future[Encoded]] = deque()
    try:
        for batch in batches:
            pending.append(pool.submit(_run_in_worker, batch))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the job like Ctrl-C does (cleanly), in the main thread."""

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
