"""Type-check rtc with mypy: ``--strict`` on ``rtc.runtime``, pyproject.toml's settings on the rest.

Usage: ``python .ci/typecheck.py [--cache-dir DIR]`` from anywhere; exit status 0 when mypy finds
nothing, 1 otherwise, with mypy's messages on standard output under the repository's own paths.

setuptools maps rtc's subpackages onto top-level folders (``package-dir`` in pyproject.toml:
``rtc.runtime`` is ``runtime/``), a layout mypy cannot follow from the source tree, and an editable
install hides it behind an import hook mypy does not run. So the package is laid out as it is
installed, as symbolic links in a temporary folder, and mypy runs there, twice: strict on the
production path (``rtc.runtime``), then the configured mode on the compiler and the generated
modules (which import the runtime, checked again there in that mode).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "pyproject.toml"
STRICT = ["rtc.runtime"]


def package_dirs() -> dict[str, str]:
    """pyproject.toml's ``package-dir``: each top-level subpackage and its folder."""
    setuptools = tomllib.loads(CONFIG.read_text(encoding="utf-8"))["tool"]["setuptools"]
    mapping: dict[str, str] = setuptools["package-dir"]
    return mapping


def lay_out(base: Path, mapping: dict[str, str]) -> None:
    """Link each subpackage's folder under ``base`` at its package path (``rtc/runtime``, ...)."""
    for package, folder in mapping.items():
        link = base.joinpath(*package.split("."))
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(ROOT / folder, target_is_directory=True)


def mypy(base: Path, cache_dir: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mypy", "--config-file", str(CONFIG)]
    command += ["--cache-dir", str(cache_dir), "--no-error-summary", *arguments]
    # MYPYPATH would put other folders before the laid-out package; the folder mypy runs in is
    # the one that must supply ``rtc``.
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    return subprocess.run(command, cwd=base, env=env, capture_output=True, text=True, check=False)


def to_repository_paths(text: str, mapping: dict[str, str]) -> str:
    """mypy names files by their package path; say them as the repository's paths instead."""
    for package, folder in mapping.items():
        text = text.replace(package.replace(".", "/") + "/", folder.rstrip("/") + "/")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cache-dir", type=Path, help="mypy's cache (default: a temporary one)")
    args = parser.parse_args(argv)
    mapping = package_dirs()
    rest = [package for package in mapping if package not in STRICT]
    with tempfile.TemporaryDirectory(prefix="rtc-typecheck-") as tmp:
        base = Path(tmp) / "root"
        lay_out(base, mapping)
        cache_dir = (args.cache_dir or Path(tmp) / "cache").resolve()
        runs = [
            # One cache each: the two modes' options differ, and each would invalidate the other's.
            ("--strict", mypy(base, cache_dir / "strict", "--strict", *_packages(STRICT))),
            ("configured", mypy(base, cache_dir / "configured", *_packages(rest))),
        ]
    status = 0
    for mode, done in runs:
        output = to_repository_paths(done.stdout + done.stderr, mapping)
        if done.returncode != 0:
            status = 1
            print(f"mypy ({mode}) found problems:\n{output}", end="")
    if status == 0:
        print(f"mypy: no problems (--strict: {', '.join(STRICT)}; configured: {', '.join(rest)})")
    return status


def _packages(packages: list[str]) -> list[str]:
    return [argument for package in packages for argument in ("-p", package)]


if __name__ == "__main__":
    sys.exit(main())
