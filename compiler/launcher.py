"""The ``rtc`` console script: the command line, or one line saying how to install it.

The production install (``pip install rtc``) brings the runtime and ``regex`` only; the command
line needs the compiler extra (click, jinja2, black). This module imports none of them at import
time, so that without them ``rtc`` still answers as every rtc failure does: one line on stderr,
``rtc: error: …``, exit status 2, no traceback.
"""

from __future__ import annotations

import sys

COMPILER_DEPENDENCIES = ("click", "jinja2", "black")
"""What the compiler extra installs; a missing one of these is an install problem, not a bug."""

INSTALL_HINT = "pip install 'rtc[compiler]'"


def main() -> None:
    try:
        from rtc.compiler.cli import run
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").partition(".")[0]
        if missing not in COMPILER_DEPENDENCIES:
            raise  # a broken install or a bug: keep the traceback
        sys.stderr.write(
            f"rtc: error: the rtc command needs the compiler extra ({missing} is not installed):"
            f" {INSTALL_HINT}\n"
        )
        raise SystemExit(2) from None
    run()
