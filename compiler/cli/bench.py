"""``rtc bench``: the benchmark's command line; the work is in ``rtc.compiler.bench``."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import click

from rtc.compiler import load
from rtc.compiler.bench import (
    FULL,
    QUICK,
    catalogue_sources,
    format_markdown,
    format_report,
    run_benchmark,
    workload_names,
)
from rtc.compiler.errors import SourceError, TemplateError, TemplateTypeError
from rtc.compiler.sources import read_template

from .common import Failure, choice_option, write_atomically


def _template_name(source: str) -> str:
    path = Path(source)
    if source == "-":
        return "stdin"
    if path.is_dir():
        return path.resolve().name
    if path.stem == "tokenizer_config":
        return path.resolve().parent.name
    return path.stem


@click.command("bench")
@click.argument("source", required=False)
@click.option(
    "--catalogue",
    is_flag=True,
    help="Benchmark the 16 frozen benchmark templates (the catalogue when the speed targets "
    "were set; they do not change with it).",
)
@click.option(
    "--live",
    is_flag=True,
    help="With --catalogue: the installed catalogue (rtc.generated) instead of the frozen set.",
)
@click.option("--quick", is_flag=True, help="A run of seconds: fewer chunk sizes and repeats.")
@click.option(
    "--abuse",
    is_flag=True,
    help="Also run the abuse workloads: a very long generation in 4 KB and 1-char chunks, and a "
    "flood of partial delimiters (8 MB; 1 MB with --quick).",
)
@click.option(
    "--json",
    "json_out",
    metavar="FILE",
    is_flag=False,
    flag_value="-",
    default=None,
    help="Write the results as JSON to FILE, or to stdout instead of the table with `--json -` "
    "(or --json last on the line).",
)
@click.option(
    "--markdown",
    "markdown_out",
    metavar="FILE",
    default=None,
    help="Also write the summary and the per-template tables as Markdown (the README's "
    "Performance tables) to FILE.",
)
@click.option(
    "--no-reference", is_flag=True, help="Do not run transformers' interpreter, even if installed."
)
@click.option(
    "--workload",
    "workloads",
    multiple=True,
    metavar="NAME",
    help="Only this workload (short, reasoning-4k, ..., tools-4, call-1, call-2:prefill, ...; "
    "the region streams answer, reasoning, arguments, each also :unicode); repeatable.",
)
@click.option(
    "--streaming",
    is_flag=True,
    help="Only the region streams (what servers stream): the answer, the reasoning and a tool "
    "call's arguments of a real generation grown to 8 KB of prose, in token-sized chunks; same "
    "as --workload answer --workload reasoning --workload arguments.",
)
@choice_option(
    "--statistic", ["min", "median"], "Which sample of each measurement is reported and compared."
)
@choice_option(
    "--clock",
    ["wall", "cpu"],
    "wall: time.perf_counter_ns; cpu: the thread's CPU time (steadier on a loaded machine).",
)
@click.option(
    "--no-deltas", is_flag=True, help="Do not time OpenAI deltas (DeltaStream) beside the parser."
)
@click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")
@click.option(
    "--batch",
    is_flag=True,
    help="Offline throughput instead: records/s, JSONL in, Parquet out, for rtc with 1 and 2 "
    "workers and for transformers (rtc.compiler.bench.batch).",
)
def bench_command(
    source: str | None,
    catalogue: bool,
    live: bool,
    quick: bool,
    abuse: bool,
    json_out: str | None,
    markdown_out: str | None,
    no_reference: bool,
    workloads: tuple[str, ...],
    streaming: bool,
    statistic: str,
    clock: str,
    no_deltas: bool,
    quiet: bool,
    batch: bool,
) -> None:
    """Benchmark the parser of SOURCE (or of the whole --catalogue) against transformers.

    SOURCE is what `rtc compile` takes. Prints a table per template (progress goes to stderr)
    and a summary: the medians over templates of the headline ratios, each against its target,
    and the templates furthest from a target. Workloads are built from each template's own
    delimiters; one that cannot be derived is skipped and the reason printed.

    With --batch: the offline pipelines on a synthetic corpus instead (no SOURCE).
    """
    if batch:
        _bench_batch(source, catalogue, quick, json_out, no_reference)
        return
    if (source is None) == (not catalogue):
        raise click.UsageError(
            "give a template SOURCE or --catalogue, not both (note: --json takes a FILE, "
            "so write --json - or put --json last)"
        )
    if live and not catalogue:
        raise click.UsageError("--live goes with --catalogue")
    if catalogue:
        paths = catalogue_sources(live)
        if not paths:
            raise Failure("no catalogue found: no generated/*.json and no tests/data/templates")
        sources = [str(p) for p in paths]
    else:
        assert source is not None
        sources = [source]
    templates = []
    for path in sources:
        try:
            template, label = read_template(path)
        except SourceError as exc:
            raise Failure(str(exc)) from None
        if not catalogue:
            # One template: an invalid one is the command's failure (in a catalogue, one
            # template's error is reported in its place and the others still run).
            try:
                load(template)
            except (TemplateError, TemplateTypeError) as exc:
                raise Failure(f"{label}: {exc}") from None
        templates.append((_template_name(path), template))
    if json_out not in (None, "-") and any(
        os.path.exists(json_out) and os.path.samefile(json_out, p) for p in sources if p != "-"
    ):
        raise Failure(f"{json_out}: refusing to write the JSON report over a benchmarked template")

    base = QUICK if quick else FULL
    if streaming:
        workloads = (*workloads, *base.regions)
    known = workload_names(base)
    unknown = sorted(set(workloads) - known)
    if unknown:
        raise click.UsageError(
            f"unknown workload {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    config = replace(
        base,
        reference=not no_reference,
        abuse=abuse,
        workloads=tuple(workloads),
        statistic=statistic,
        clock=clock,
        deltas=not no_deltas,
    )

    def progress(message: str) -> None:
        if not quiet:
            click.echo(f"rtc bench: {message}", err=True)

    report = run_benchmark(templates, config, progress=progress)
    payload = json.dumps(report, indent=2, ensure_ascii=False)
    if json_out == "-":
        click.echo(payload)
        return
    if json_out is not None:
        write_atomically(json_out, (payload + "\n").encode("utf-8"))
    if markdown_out is not None:
        write_atomically(markdown_out, format_markdown(report).encode("utf-8"))
    click.echo(format_report(report), nl=False)


def _bench_batch(
    source: str | None, catalogue: bool, quick: bool, json_out: str | None, no_reference: bool
) -> None:
    from rtc.compiler.bench import batch

    if source is not None or catalogue:
        raise click.UsageError("--batch runs on its own corpus: no SOURCE or --catalogue")
    result = batch.run(batch.QUICK if quick else batch.FULL, reference=not no_reference)
    payload = json.dumps(result, indent=2)
    if json_out == "-":
        click.echo(payload)
        return
    if json_out is not None:
        write_atomically(json_out, (payload + "\n").encode("utf-8"))
    click.echo(batch.report(result))
