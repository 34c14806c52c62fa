"""``rtc lint``: parses its arguments and calls :func:`rtc.compiler.lint.lint` for each source."""

from __future__ import annotations

import dataclasses
import os

import click

from rtc.compiler.lint import lint
from rtc.compiler.lint.findings import SEVERITIES, Finding
from rtc.compiler.lint.inputs import read_input
from rtc.compiler.lint.report import (
    as_json,
    as_text,
    baseline_json,
    failing,
    key,
    read_baseline,
    read_reasons,
    source_name,
)

from .common import failing_as, write_atomically
from .compile import catalogue_pairs


@click.command("lint")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option(
    "--all", "all_", is_flag=True, help="Each SOURCE is a folder: lint every NAME.json in it."
)
@click.option(
    "--chat-template",
    metavar="FILE",
    help="A chat template (jinja2) for the round trips, when SOURCE does not carry one.",
)
@click.option(
    "--format", "format_", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--fail-on",
    type=click.Choice(list(SEVERITIES)),
    default="error",
    show_default=True,
    help="Exit 1 when a finding is at least this severe.",
)
@click.option(
    "--baseline", metavar="FILE", help="Accepted findings: shown as a count, never failing."
)
@click.option(
    "--write-baseline",
    metavar="FILE",
    help="Write every finding to FILE as accepted (keeping the reasons FILE gives), exit 0.",
)
def lint_command(
    sources: tuple[str, ...],
    all_: bool,
    chat_template: str | None,
    format_: str,
    fail_on: str,
    baseline: str | None,
    write_baseline: str | None,
) -> None:
    """Tell what each response template SOURCE will do to real output.

    A SOURCE is a template JSON file, a tokenizer_config.json, a folder holding one, or -. A
    chat template in the folder (chat_template.jinja) or the config (chat_template), or given
    with --chat-template, adds round trips: assistant messages rendered by the chat template
    and parsed back.

    Each finding has a code, a severity (error, warning, info), the template key it is about,
    what will happen to real output, an example produced by running the compiled parser, and a
    suggested change where one exists.

    Exit status: 0 when no finding is at least --fail-on severe (findings in --baseline do not
    count), 1 when one is, 2 when SOURCE cannot be used (one line on stderr).
    """
    if chat_template is not None and (all_ or len(sources) > 1):
        raise click.UsageError("--chat-template applies to one SOURCE")
    paths = [t for folder in sources for t, _ in catalogue_pairs(folder)] if all_ else list(sources)
    findings: list[Finding] = []
    names: list[str] = []
    for path in paths:
        with failing_as():
            given = read_input(path, chat_template)
        with failing_as(f"{given.name}: "):
            found = lint(
                given.template,
                chat_template=given.chat_template,
                special_tokens=given.special_tokens,
            )
        name = source_name(path)
        names.append(name)
        findings += [dataclasses.replace(f, source=name) for f in found]
    if write_baseline is not None:
        reasons = {}
        if os.path.isfile(write_baseline):
            with failing_as():
                reasons = read_reasons(write_baseline)  # kept for findings still there
        write_atomically(write_baseline, baseline_json(findings, reasons).encode("utf-8"))
        click.echo(f"rtc lint: {len(findings)} finding(s) written to {write_baseline}", err=True)
        return
    accepted = 0
    if baseline is not None:
        with failing_as():
            known = read_baseline(baseline)
        kept = [f for f in findings if key(f) not in known]
        accepted = len(findings) - len(kept)
        findings = kept
    if format_ == "json":
        click.echo(as_json(findings, accepted))
    else:
        click.echo(as_text(findings, names, accepted), nl=False)
    if failing(findings, fail_on):
        raise click.exceptions.Exit(1)
