"""``rtc infer``: a response template from what a chat template writes
(:mod:`rtc.compiler.infer`)."""

from __future__ import annotations

import json

import click

from rtc.compiler.infer import infer
from rtc.compiler.infer.report import explanation, refusals

from .common import Failure, write_atomically
from .match import from_chat_template


@click.command("infer")
@click.argument("source")
@click.option(
    "-o",
    "--output",
    metavar="OUT",
    help="Write the template to OUT (atomically; nothing is written when a part cannot be "
    "inferred). Default: stdout.",
)
@click.option("--explain", is_flag=True, help="Print the evidence for each part (stderr).")
def infer_command(source: str, output: str | None, explain: bool) -> None:
    """Write the response template SOURCE's chat template proves.

    SOURCE is a tokenizer_config.json, a chat template file (the special tokens of a
    tokenizer_config.json beside it are used), a folder holding either, or -. The probe
    conversations of `rtc match` are rendered; the start anchor, the end of the turn, the
    reasoning block, the markers around content and the tool-call format are read from them.
    The template is written only if it compiles, every probe round-trips through it and `rtc
    lint` finds no error.

    Exit status: 0 when the template is written, 1 when a part cannot be inferred (each part
    and why on stderr; nothing written), 2 when SOURCE cannot be used (one line on stderr).
    """
    given, found = from_chat_template(source, infer)
    if explain:
        click.echo(explanation(found, given.name, found.rendered), err=True, nl=False)
    if found.template is None:
        if found.rendered == 0:
            raise Failure(f"{given.name}: the chat template renders none of the probes")
        click.echo(refusals(found), err=True, nl=False)
        raise click.exceptions.Exit(1)
    data = json.dumps(found.template, ensure_ascii=False, indent=2) + "\n"
    if output is None or output == "-":
        click.echo(data, nl=False)
    else:
        write_atomically(output, data.encode("utf-8"))
