"""``rtc compile``: a template to a parser module, one file or a whole catalogue folder."""

from __future__ import annotations

import os

import click

from rtc.compiler import compile_template
from rtc.compiler.sources import STDIN, read_template

from .common import Failure, failing_as, write_atomically


def compile_source(source: str) -> bytes:
    """The module ``rtc compile SOURCE`` writes, as the exact bytes of the file."""
    with failing_as():
        template, name = read_template(source)
    with failing_as(f"{name}: "):
        return compile_template(template).encode("utf-8")


def catalogue_pairs(folder: str) -> list[tuple[str, str]]:
    """The ``(NAME.json, NAME.py)`` pairs of a catalogue folder, sorted by name."""
    if not os.path.isdir(folder):
        problem = "is not a folder" if os.path.exists(folder) else "no such folder"
        raise Failure(f"{folder}: {problem}")
    names = sorted(
        name[: -len(".json")]
        for name in os.listdir(folder)
        if name.endswith(".json") and os.path.isfile(os.path.join(folder, name))
    )
    if not names:
        raise Failure(f"{folder}: no NAME.json templates in this folder")
    return [(os.path.join(folder, f"{n}.json"), os.path.join(folder, f"{n}.py")) for n in names]


@click.command("compile")
@click.argument("source")
@click.option(
    "-o",
    "--output",
    metavar="OUT",
    help="Write the module to OUT (atomically: OUT is replaced whole or not at all). "
    "Default: stdout.",
)
@click.option(
    "--all",
    "all_",
    is_flag=True,
    help="SOURCE is a folder: compile every NAME.json in it to NAME.py beside it.",
)
def compile_command(source: str, output: str | None, all_: bool) -> None:
    """Compile SOURCE into a parser module.

    With --all, every template is compiled before anything is written, so an invalid template
    leaves the whole folder as it was.
    """
    if all_:
        if output is not None:
            raise click.UsageError("--all writes NAME.py beside each NAME.json; drop -o")
        modules = [
            (module, compile_source(template)) for template, module in catalogue_pairs(source)
        ]
        for module, data in modules:
            write_atomically(module, data)
        return
    data = compile_source(source)
    if output is None or output == STDIN:
        # Bytes go to stdout unchanged, so `rtc compile T > F` equals `rtc compile T -o F`.
        click.echo(data, nl=False)
    else:
        write_atomically(output, data)
