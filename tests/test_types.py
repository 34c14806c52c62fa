"""The type annotations hold: mypy ``--strict`` on ``rtc.runtime`` (the production path), and
pyproject.toml's mypy settings on the compiler and the generated modules.

``.ci/typecheck.py`` lays the package out as it is installed (rtc maps its subpackages onto
top-level folders, which mypy cannot follow from the source tree) and runs mypy there; this test
runs it, so README's test command checks the types too. mypy's cache goes to a temporary folder:
every run checks from scratch, as CI does.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_nothing(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, ROOT / ".ci" / "typecheck.py", "--cache-dir", str(tmp_path / "cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mypy: no problems" in done.stdout
