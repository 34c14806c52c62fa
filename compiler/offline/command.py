"""``rtc parse --input``: the file job as the CLI runs it (the CLI only parses its options).

Errors are raised as ``SourceError`` (unusable input, unknown parser), ``TemplateError`` (invalid
template), ``OutputError`` (unwritable output) or ``JobFailed`` (stopped part way, interrupted or
not); the CLI prints each as one line.
"""

from __future__ import annotations

from dataclasses import dataclass

from rtc.compiler.errors import SourceError, TemplateError, TemplateTypeError

from .job import DEFAULT_BATCH_SIZE
from .parsers import ParserRef
from .progress import Progress
from .records import Fields


@dataclass(frozen=True)
class FileJob:
    """Everything ``rtc parse --input`` was asked to do."""

    input: str
    output: str
    fields: Fields
    source: str | None = None  # a template file (or tokenizer config / folder)
    catalogue: str | None = None  # or a catalogue parser name
    workers: int = 1
    batch_size: int = DEFAULT_BATCH_SIZE
    ray: str | None = None  # None: this machine; "" a local Ray; else a cluster address


def resolve_parser(source: str | None, catalogue: str | None) -> ParserRef:
    if catalogue is not None:
        try:
            return ParserRef.catalogue(catalogue)
        except KeyError as exc:
            raise SourceError(f"--catalogue: {exc.args[0]}") from None
    assert source is not None
    from rtc.compiler.sources import read_template

    template, name = read_template(source)
    try:
        return ParserRef.template(template)
    except (TemplateError, TemplateTypeError) as exc:
        raise type(exc)(name, str(exc)) from None


def run(job: FileJob) -> None:
    """Run the job, drawing progress on stderr and ending with the summary line."""
    from . import files  # the process pool and the formats: only when a job runs

    parser = resolve_parser(job.source, job.catalogue)
    progress = Progress()
    if job.ray is not None:
        from .ray_data import run_file_job

        counts, records_in = run_file_job(
            job.input,
            job.output,
            parser,
            job.fields,
            address=job.ray or None,
            batch_size=job.batch_size,
            progress=progress,
        )
        progress.summary(counts, job.output, records_in=records_in)
        return
    counts = files.run(
        job.input,
        job.output,
        parser,
        job.fields,
        workers=job.workers,
        batch_size=job.batch_size,
        progress=progress,
    )
    progress.summary(counts, job.output)
