"""The ``rtc`` command group: its help, ``--version`` and the exit statuses.

Each command lives in its own module of this package and is registered in ``__init__``.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

import click

from rtc.compiler.version import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="rtc", message="%(prog)s %(version)s")
def main() -> None:
    """rtc, the response template compiler.

    Compiles a Hugging Face response template (JSON) into a dedicated Python parser module that
    behaves exactly like transformers' interpreter of that template.

    A SOURCE is a template JSON file, a tokenizer_config.json (its response_template key), a folder
    holding a tokenizer_config.json, or - for stdin.

    Exit status: 0 on success, 1 when `rtc check` finds drift or `rtc lint` a finding at its
    --fail-on severity, 2 on any error (one line on stderr, `rtc: error: …`).
    """


INTERRUPTED = 130
"""The exit status of a job stopped by Ctrl-C or SIGTERM (the shell's convention)."""


def run(prog_name: str = "rtc") -> NoReturn:
    """The process entry point: ``main`` as a command, then the exit.

    A job stopped by a signal has already cleaned up (its temporary files are gone) and said so
    on stderr when it exits with 130. It then leaves at once, without the interpreter's
    teardown: native libraries the job used (Arrow's thread pools, for Parquet) may still have
    threads running, and tearing the interpreter down under them crashed a stopped process
    once (exit -11 after the message). Nothing is left to write, so nothing is lost.
    """
    try:
        main(prog_name=prog_name)
    except SystemExit as exc:
        if exc.code == INTERRUPTED:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(INTERRUPTED)
        raise
    raise SystemExit(0)  # click's standalone mode always exits; this keeps NoReturn honest
