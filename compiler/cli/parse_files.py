"""``rtc parse --input``: a whole file of generations (the options; the job is in offline).

``parse.py`` keeps the single-generation path and hands over here when ``--input`` is given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from rtc.compiler.offline.command import FileJob
from rtc.compiler.offline.job import DEFAULT_BATCH_SIZE
from rtc.compiler.offline.records import Fields
from rtc.compiler.sources import read_text_file

from .common import Failure, Interrupted, failing_as

PARSING_FILES_HELP = """\
Parsing files (--input): every record of a JSONL or Parquet file (by extension: .parquet/.pq, else
JSONL; - is stdin) gives one output record, in order, with its fields plus `message` (tool call
arguments as JSON strings) and `error` (null, or {type, message, line}); a bad record (not JSON, a
field missing or mistyped) is an output record with its error. The parser is the template SOURCE
or --catalogue NAME; the prefix is --prefix/--prefix-file (one for all) or --prefix-field. The
output (.parquet or JSONL) appears only once complete. Exit 2 on an unusable file, 130 when
interrupted; the progress and a summary go to stderr."""


def file_job_options(command: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--input",
            "input_path",
            metavar="PATH|-",
            help="Parse every record of this JSONL or Parquet file (see Parsing files).",
        ),
        click.option(
            "--output", "output_path", metavar="PATH", help="With --input: where to write."
        ),
        click.option("--catalogue", metavar="NAME", help="With --input: a catalogue parser."),
        click.option(
            "--text-field", default="text", show_default=True, help="The field holding each text."
        ),
        click.option("--prefix-field", metavar="NAME", help="The field holding each prefix."),
        click.option(
            "--tools-field", metavar="NAME", help="The field holding each record's tools."
        ),
        click.option(
            "--workers",
            type=click.IntRange(min=1),
            default=1,
            show_default=True,
            help="Processes parsing batches (1: this process only).",
        ),
        click.option(
            "--batch-size",
            type=click.IntRange(min=1),
            default=DEFAULT_BATCH_SIZE,
            show_default=True,
            help="Records per batch.",
        ),
        click.option(
            "--ray",
            metavar="[ADDRESS]",
            is_flag=False,
            flag_value="",
            default=None,
            help="Run the job on Ray (a local one, or the cluster at ADDRESS); the output is a "
            "folder of Parquet parts, each record with its input `row`.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    # The docstring's own indentation (click dedents the whole text): 4 spaces in a function.
    section = "".join(f"    {line}\n" if line else "\n" for line in PARSING_FILES_HELP.splitlines())
    command.__doc__ = (command.__doc__ or "").rstrip() + "\n\n" + section
    return command


def file_job_from_options(
    source: str | None, prefix: str | None, prefix_from_file: bool, options: dict[str, Any]
) -> FileJob:
    """The job the options describe; usage mistakes raise ``click.UsageError``."""
    if options["output_path"] is None:
        raise click.UsageError("--input needs --output PATH")
    if (source is None) == (options["catalogue"] is None):
        raise click.UsageError("give the parser as SOURCE (a template) or --catalogue NAME")
    given = [
        n
        for n, v in (
            ("--prefix-file" if prefix_from_file else "--prefix", prefix),
            ("--prefix-field", options["prefix_field"]),
        )
        if v is not None
    ]
    if len(given) != 1:
        raise click.UsageError(
            "give one of --prefix TEXT, --prefix-file F (one prefix for all) or --prefix-field NAME"
        )
    if options["ray"] is not None and options["workers"] != 1:
        raise click.UsageError("--workers is for this machine; Ray decides its own parallelism")
    fields = Fields(
        text=options["text_field"],
        prefix=prefix,
        prefix_field=options["prefix_field"],
        tools_field=options["tools_field"],
    )
    return FileJob(
        input=options["input_path"],
        output=options["output_path"],
        fields=fields,
        source=source,
        catalogue=options["catalogue"],
        workers=options["workers"],
        batch_size=options["batch_size"],
        ray=options["ray"],
    )


def run_file_job(
    source: str | None,
    prefix: str | None,
    prefix_file: str | None,
    unused: dict[str, Any],
    options: dict[str, Any],
) -> None:
    """Run the job the options describe; every failure becomes one line (130 if interrupted)."""
    from rtc.compiler.offline import command
    from rtc.compiler.offline.job import JobFailed
    from rtc.compiler.offline.tables import OutputError

    given = [name for name, value in unused.items() if value]
    if given:
        raise click.UsageError(f"{', '.join(given)} cannot be used with --input")
    with failing_as():
        if prefix_file is not None:
            prefix = read_text_file(prefix_file)
        job = file_job_from_options(source, prefix, prefix_file is not None, options)
    try:
        with failing_as():
            command.run(job)
    except KeyboardInterrupt:  # before the job started (reading or compiling the template)
        raise Interrupted("interrupted before any record was parsed; no output written") from None
    except OutputError as exc:
        raise Failure(str(exc)) from None
    except JobFailed as exc:
        raise (Interrupted if exc.interrupted else Failure)(str(exc)) from None
