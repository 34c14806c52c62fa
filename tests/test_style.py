"""The repository's own code style, checked where CI runs: ``ruff check`` and ``black --check``.

Both read the settings in ``pyproject.toml`` (line length 100; generated modules are excluded from
ruff there and carry ``# fmt: off`` for black, since rtc formats them itself).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_finds_nothing() -> None:
    done = _run("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_black_changes_nothing() -> None:
    done = _run("black", "--check", "--quiet", ".")
    assert done.returncode == 0, done.stdout + done.stderr
