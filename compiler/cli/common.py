"""What every command shares: the one-line failure, atomic writes, JSON lines on stdout.

Failures follow one rule (DESIGN.md, CLI): one line ``rtc: error: …`` on stderr naming the problem
and where it is, exit status 2, no traceback and no partial output file. Usage errors are click's
own (also exit status 2).
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import IO, Any

import click

from rtc.compiler.errors import SourceError, TemplateError, TemplateTypeError


class Failure(click.ClickException):
    """A failure of the command (not of its usage): one line on stderr, exit status 2."""

    exit_code = 2

    def format_message(self) -> str:
        return _one_line(self.message)

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"rtc: error: {self.format_message()}", file=file, err=file is None)


class Interrupted(Failure):
    """A job stopped by Ctrl-C or SIGTERM: exit status 130, the shell's convention for a
    process stopped by Ctrl-C."""

    exit_code = 130


def _one_line(text: str) -> str:
    """``text`` with control characters escaped.

    Messages quote untrusted data (field names, patterns, inputs): escaping keeps them on one line
    and keeps escape sequences from reaching the terminal.
    """
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


@contextmanager
def failing_as(prefix: str = "") -> Iterator[None]:
    """Turn the compiler's expected errors into a Failure; anything else is a bug and stays loud."""
    try:
        yield
    except (SourceError, TemplateError, TemplateTypeError) as exc:
        raise Failure(f"{prefix}{exc}") from None
    except RecursionError:
        # transformers 5.23.0 fails the same way on these templates (deep data or patterns).
        raise Failure(
            f"{prefix}the template nests too deeply (Python's recursion limit was reached)"
        ) from None


def _write_error(path: str, folder: str, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"{path}: cannot write: folder {folder} does not exist"
    if isinstance(exc, NotADirectoryError):
        return f"{path}: cannot write: {folder} is not a folder"
    return f"{path}: cannot write: {exc.strerror or exc}"


def _mode_for(path: str) -> int:
    """The permissions ``path`` gets: kept if it exists, else what a plain ``open`` would give.

    ``mkstemp`` creates 0600 files; a generated module is ordinary source and must stay readable.
    """
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomically(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    Readers (and a failed run) see the old file or the new one, never a part: on any failure the
    old file is untouched and the temporary file is removed.
    """
    folder = os.path.dirname(path) or "."
    try:
        fd, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder
        )
    except OSError as exc:
        raise Failure(_write_error(path, folder, exc)) from None
    replaced = False
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, _mode_for(path))
        os.replace(temporary, path)
        replaced = True
    except OSError as exc:
        raise Failure(_write_error(path, folder, exc)) from None
    finally:
        if not replaced:
            with suppress(OSError):
                os.unlink(temporary)


def print_json(*values: Any) -> None:
    for value in values:
        click.echo(json.dumps(value, ensure_ascii=True))


def choice_option(name: str, choices: list[str], help: str) -> Callable[[Any], Any]:
    """``--name`` taking one of ``choices``, the first by default (shown in ``--help``)."""
    return click.option(
        name, type=click.Choice(choices), default=choices[0], show_default=True, help=help
    )
