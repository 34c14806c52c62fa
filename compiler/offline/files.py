"""The file job behind ``rtc parse --input``: JSONL or Parquet in, JSONL or Parquet out.

The input is read in batches; each batch is parsed (here, or by ``workers`` processes, at most
two batches per worker in flight) and written in input order, so memory stays constant whatever
the size of the file. The output is written to temporary files and renamed into place once
complete: an error, a crash, Ctrl-C or SIGTERM leave no output behind (an older file at that path
stays as it was), and :class:`JobFailed` says how far the job got.
"""

from __future__ import annotations

import os
import signal
from collections import deque
from collections.abc import Generator, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

from rtc.compiler.errors import SourceError

from .batches import Encoded, encode
from .interrupts import Interrupts
from .job import DEFAULT_BATCH_SIZE, JobFailed
from .jsonl import STDIN, JsonlChunk, open_jsonl, read_chunks
from .output import BackgroundWriter, JsonlWriter
from .parquet import ArrowBatch, ParquetWriter, is_parquet, open_parquet, read_parquet
from .parsers import ParserRef
from .progress import Counts, Progress
from .records import Fields
from .tables import OutputError, from_ipc, to_ipc

Batch = JsonlChunk | ArrowBatch


@dataclass(frozen=True)
class Job:
    """What every batch needs to be parsed and encoded (picklable: sent to worker processes)."""

    parser: ParserRef
    fields: Fields
    parquet_out: bool

    def run(self, batch: Batch) -> Encoded:
        return encode(self.parser.module(), self.fields, batch, self.parquet_out)


def _batches(
    path: str, fields: Fields, batch_size: int
) -> tuple[Generator[Batch, None, None], int | None]:
    """Open the input now (so an unusable file fails before any output exists), read lazily.

    Also its size for the progress line: rows of Parquet, bytes of a JSONL file (not stdin).
    """
    if is_parquet(path):
        parquet = open_parquet(path, fields)
        return read_parquet(parquet, path, batch_size), parquet.metadata.num_rows
    stream = open_jsonl(path)
    try:
        size: int | None = os.fstat(stream.fileno()).st_size if path != STDIN else None
    except OSError:
        size = None
    return read_chunks(stream, path, batch_size), size or None


def _same_file(input_path: str, output_path: str) -> bool:
    try:
        return input_path != STDIN and os.path.samefile(input_path, output_path)
    except OSError:  # one of them does not exist
        return False


def writer_for(path: str) -> BackgroundWriter:
    return BackgroundWriter(ParquetWriter(path) if is_parquet(path) else JsonlWriter(path))


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
    before anything is parsed; :class:`JobFailed` when the job stops part way. Ctrl-C and SIGTERM
    stop it the same way (``interrupts``).
    """
    job = Job(parser, fields, is_parquet(output_path))
    if _same_file(input_path, output_path):
        raise OutputError(f"{output_path}: is the input; write the results to another file")
    batches, total = _batches(input_path, fields, batch_size)
    counts = Counts(total=total)
    try:
        writer = writer_for(output_path)  # an unwritable output fails here, before any parsing
        with Interrupts() as interrupts:
            try:
                try:
                    with _parsed(job, batches, workers) as results:
                        for encoded in results:
                            writer.write(encoded.payload)
                            counts.add(
                                encoded.records,
                                encoded.errors,
                                encoded.bad,
                                encoded.last_line,
                                encoded.consumed,
                            )
                            if progress is not None:
                                progress.update(counts)
                    writer.finish()
                    interrupts.hold()  # only the rename is left: once done, the job is done
                    writer.commit()
                except BaseException:
                    interrupts.hold()
                    writer.abort()
                    raise
                finally:
                    if progress is not None:
                        progress.clear()
            except KeyboardInterrupt:
                raise JobFailed("interrupted", counts, interrupted=True) from None
            except (SourceError, OutputError) as exc:
                raise JobFailed(str(exc), counts) from exc
            except Exception as exc:
                raise JobFailed(repr(exc), counts) from exc
    finally:
        batches.close()  # here, in this thread (not whenever the garbage collector runs)
    return counts


@contextmanager
def _parsed(job: Job, batches: Iterator[Batch], workers: int) -> Iterator[Iterator[Encoded]]:
    """The encoded batches in input order; worker processes end with the block, whatever ends it.

    The pool belongs to this block, not to a generator: a generator left suspended by an
    exception would shut its pool down whenever it is collected, possibly from the pool's own
    thread (which cannot join itself).
    """
    if workers <= 1:
        yield (job.run(batch) for batch in batches)
        return
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(job,))
    pending: deque[Future[Encoded]] = deque()

    def received(future: Future[Encoded]) -> Encoded:
        encoded = future.result()
        if job.parquet_out:
            encoded.payload = from_ipc(encoded.payload)
        return encoded

    def in_order() -> Iterator[Encoded]:
        for batch in batches:
            pending.append(pool.submit(_run_in_worker, batch))
            if len(pending) >= 2 * workers:
                yield received(pending.popleft())
        while pending:
            yield received(pending.popleft())

    try:
        yield in_order()
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


_WORKER_JOB: Job | None = None


def _start_worker(job: Job) -> None:
    # Ctrl-C reaches the whole process group: the parent decides, workers keep quiet. SIGTERM
    # ends a worker like any process (the parent reports a lost worker as the job's failure).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    global _WORKER_JOB
    _WORKER_JOB = job
    job.parser.module()  # compile or import once, before the first batch


def _run_in_worker(batch: Batch) -> Encoded:
    assert _WORKER_JOB is not None
    encoded = _WORKER_JOB.run(batch)
    if _WORKER_JOB.parquet_out:
        encoded.payload = to_ipc(encoded.payload)  # bytes travel back; a pickled table is slow
    return encoded
