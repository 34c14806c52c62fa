"""``rtc parse --openai``: a generation as an OpenAI assistant message, or as its deltas.

Kept apart from the command's argument handling (``parse.py``) so that the command stays thin:
this module runs a module's ``DeltaStream`` and prints what it gives.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import click

from .common import print_json


def print_openai(
    module: Any,
    chunks: Iterable[str],
    *,
    prefix: str,
    tools: Any,
    reasoning_keys: tuple[str, ...],
    stream: bool,
    guard: Callable[[], Any],
) -> None:
    """Feed ``chunks`` to ``module.DeltaStream`` and print the message (or, with ``stream``,
    each delta as a JSON line as soon as it is known). Problems and the finish reason go to
    stderr, one line each. ``guard()`` is the context manager that reports parser errors."""
    options: dict[str, Any] = {"tools": tools}
    if reasoning_keys:
        options["reasoning_key"] = reasoning_keys
    with guard():
        deltas = module.DeltaStream(prefix, **options)
    if stream:
        print_json(*deltas.initial_deltas)
    for chunk in chunks:
        with guard():
            out = deltas.feed(chunk)
        if stream:
            print_json(*out)
    with guard():
        out, message, reason = deltas.finish()
    if stream:
        print_json(*out)
    else:
        print_json(message)
    for problem in deltas.problems:
        click.echo(f"rtc: problem: {json.dumps(problem, ensure_ascii=True)}", err=True)
    click.echo(f"rtc: finish_reason: {reason}", err=True)
