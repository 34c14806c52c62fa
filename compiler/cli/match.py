"""``rtc match``: which catalogue parser reads what a chat template writes
(:mod:`rtc.compiler.match`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from rtc.compiler.chat import ChatSource, ChatTemplateError, read_chat_source
from rtc.compiler.match import match
from rtc.compiler.match.report import as_json, as_text

from .common import Failure, failing_as

T = TypeVar("T")


def from_chat_template(source: str, work: Callable[..., T]) -> tuple[ChatSource, T]:
    """SOURCE's chat template and what ``work(chat_template, special_tokens)`` makes of it; an
    unreadable source or a chat template that does not compile is a one-line failure."""
    with failing_as():
        given = read_chat_source(source)
    try:
        return given, work(given.text, given.special_tokens)
    except ChatTemplateError as exc:
        raise Failure(f"{given.name}: {exc}") from None


@click.command("match")
@click.argument("source")
@click.option(
    "--format", "format_", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def match_command(source: str, format_: str) -> None:
    """Rank the catalogue's parsers on what SOURCE's chat template writes.

    SOURCE is a tokenizer_config.json, a chat template file (chat_template.jinja; the special
    tokens of a tokenizer_config.json beside it are used), a folder holding either, or -.
    Probe conversations (content, reasoning, tool calls with typed arguments, parallel calls,
    with and without tools, thinking on and off) are rendered by the chat template in a
    sandbox; each assistant turn is parsed back by every catalogue parser after its prompt.
    Families are ranked by how many probes come back as the template wrote them.

    Exit status: 0 when some family round-trips every probe, 1 when none does, 2 when SOURCE
    cannot be used (one line on stderr).
    """
    given, found = from_chat_template(source, match)
    if not found.rendered:
        first = found.probes[0].error if found.probes else "no probes"
        raise Failure(f"{given.name}: the chat template renders none of the probes: {first}")
    if format_ == "json":
        click.echo(as_json(found, given.name))
    else:
        click.echo(as_text(found, given.name), nl=False)
    if not found.best:
        raise click.exceptions.Exit(1)
