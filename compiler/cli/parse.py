"""``rtc parse``: the message (or, streamed, every event) of a text, as JSON lines."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from rtc.compiler import load
from rtc.compiler.errors import SourceError
from rtc.compiler.sources import (
    STDIN,
    display_name,
    iter_text_chunks,
    read_json_file,
    read_template,
    read_text_file,
)

from .common import Failure, failing_as, print_json
from .parse_files import file_job_options, run_file_job
from .parse_openai import print_openai

DEFAULT_CHUNK_SIZE = 64


@click.command("parse")
@click.argument("source", required=False)
@click.argument("file", default=STDIN, metavar="[FILE|-]")
@click.option("--prefix", metavar="TEXT", help="The prompt the text was generated after.")
@click.option(
    "--prefix-file",
    metavar="F",
    help="Read the prefix from F (exact UTF-8 text, - for stdin).",
)
@click.option("--tools", "tools_file", metavar="F", help="A JSON array of tools (schemas).")
@click.option("--stream", is_flag=True, help="Print every event, one JSON line each (see above).")
@click.option(
    "--openai",
    "openai_shape",
    is_flag=True,
    help="Print the OpenAI assistant message; with --stream, each OpenAI delta.",
)
@click.option(
    "--reasoning-key",
    "reasoning_keys",
    multiple=True,
    metavar="KEY",
    help="With --openai: the key of the reasoning text (repeat for several; default reasoning).",
)
@click.option(
    "--chunk-size",
    type=click.IntRange(min=1),
    metavar="N",
    help=f"With --stream: feed the text N characters at a time (default {DEFAULT_CHUNK_SIZE}).",
)
@file_job_options
def parse_command(
    source: str | None,
    file: str,
    prefix: str | None,
    prefix_file: str | None,
    tools_file: str | None,
    stream: bool,
    chunk_size: int | None,
    openai_shape: bool,
    reasoning_keys: tuple[str, ...],
    **file_job: Any,
) -> None:
    """Parse the text in FILE (default: stdin) with the template SOURCE.

    Prints the parsed message as one JSON object. The prefix (the prompt the text was generated
    after) is required, because templates often pre-write part of the message: give --prefix ""
    when the text is the whole message.

    With --stream the text is fed to a ResponseParser as it is read, in chunks of --chunk-size
    characters, and every line printed is one JSON object: first the parser's initial_events (from
    the prefix), then the events of each feed() in order, then the events of finalize(), and last
    the message itself, always the last line. For example:

    \b
      {"type": "region_open", "field": "reasoning_content"}
      {"type": "region_chunk", "field": "reasoning_content", "text": "hm", "dirty": false}
      {"type": "region_close", "field": "reasoning_content", "value": "hm"}
      {"role": "assistant", "reasoning_content": "hm"}

    With --openai the message is an OpenAI assistant message (content, reasoning, tool_calls
    with arguments as JSON text), and with --stream every line is one OpenAI delta; problems
    and the finish reason are written to stderr (see the README, "Serving").

    With --input, parses a whole file of generations instead (see "Parsing files" below).
    """
    if file_job["input_path"] is not None:
        unused = {
            "FILE": file != STDIN,
            "--tools": tools_file,
            "--stream": stream,
            "--chunk-size": chunk_size,
            "--openai": openai_shape,
            "--reasoning-key": reasoning_keys,
        }
        run_file_job(source, prefix, prefix_file, unused, file_job)
        return
    if source is None:
        raise click.UsageError("missing SOURCE (a template), or --input to parse a file")
    if (prefix is None) == (prefix_file is None):
        raise click.UsageError("give exactly one of --prefix TEXT or --prefix-file F")
    if chunk_size is not None and not stream:
        raise click.UsageError("--chunk-size only applies with --stream")
    if reasoning_keys and not openai_shape:
        raise click.UsageError("--reasoning-key only applies with --openai")
    readers = {"SOURCE": source, "FILE": file, "--prefix-file": prefix_file, "--tools": tools_file}
    from_stdin = [name for name, path in readers.items() if path == STDIN]
    if len(from_stdin) > 1:
        raise click.UsageError(f"only one of {' and '.join(from_stdin)} can be - (stdin)")

    with failing_as():
        template, name = read_template(source)
    with failing_as(f"{name}: "):
        module = load(template)
    with failing_as():
        if prefix_file is not None:
            prefix = read_text_file(prefix_file)
        tools = _read_tools(tools_file) if tools_file is not None else None
        if openai_shape:
            size = chunk_size or DEFAULT_CHUNK_SIZE
            print_openai(
                module,
                iter_text_chunks(file, size) if stream else [read_text_file(file)],
                prefix=prefix or "",
                tools=tools,
                reasoning_keys=reasoning_keys,
                stream=stream,
                guard=_parsing,
            )
            return
        if not stream:
            text = read_text_file(file)
            with _parsing():
                message = module.parse_response(text, prefix=prefix, tools=tools)
            print_json(message)
            return
        with _parsing():
            parser = module.ResponseParser(prefix, tools=tools)
        print_json(*parser.initial_events)
        for chunk in iter_text_chunks(file, chunk_size or DEFAULT_CHUNK_SIZE):
            with _parsing():
                events = parser.feed(chunk)
            print_json(*events)
        with _parsing():
            message, events = parser.finalize()
        print_json(*events, message)


def _read_tools(path: str) -> list:
    tools = read_json_file(path)
    if not isinstance(tools, list):
        raise SourceError(f"{display_name(path)}: tools must be a JSON array")
    return tools


@contextmanager
def _parsing() -> Iterator[None]:
    """Report what the parser raises (as the reference would raise it) as a one-line failure."""
    try:
        yield
    except Exception as exc:
        raise Failure(f"parsing failed: {type(exc).__name__}: {exc}") from None
