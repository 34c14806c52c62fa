"""The ``rtc`` command group: its help, ``--version`` and the exit statuses.

Each command lives in its own module of this package and is registered in ``__init__``.
"""

from __future__ import annotations

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
