"""What .ci/run needs to know from pyproject.toml: the Pythons to test and the ends of the ranges.

    python3 .ci/ranges.py pythons            # "3.11 /path/to/python3.11" for every classifier
    python3 .ci/ranges.py lowest [NAME...]    # constraints: each range at its lower bound
    python .ci/ranges.py versions             # installed versions of the ranged dependencies

``lowest`` covers the production dependencies and the compiler extra (the ranges users get);
NAMEs given after it are left out. Runs on the standard library alone (tomllib: Python 3.11+).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
CLASSIFIER = re.compile(r"Programming Language :: Python :: (3\.\d+)$")
REQUIREMENT = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;]*)")


def _project() -> dict:
    with PYPROJECT.open("rb") as stream:
        return tomllib.load(stream)["project"]


def ranged() -> list[tuple[str, str]]:
    """``(name, specifier)`` of the production dependencies and the compiler extra."""
    project = _project()
    found = []
    for line in project["dependencies"] + project["optional-dependencies"]["compiler"]:
        match = REQUIREMENT.fullmatch(line.strip())
        if match is None:
            raise SystemExit(f"ranges: cannot read the requirement {line!r}")
        found.append((match.group(1), match.group(2).replace(" ", "")))
    return found


def lowest(excluded: list[str]) -> list[str]:
    """``name==lower`` for every ranged dependency not in ``excluded``."""
    pins = []
    for name, specifier in ranged():
        if name in excluded:
            continue
        lower = [s[2:] for s in specifier.split(",") if s.startswith(">=")]
        if len(lower) != 1:
            raise SystemExit(f"ranges: {name}{specifier} has no single lower bound (>=) to test")
        pins.append(f"{name}=={lower[0]}")
    return pins


def _candidates(version: str) -> list[str]:
    """Interpreters that may be CPython ``version``: pyenv's builds (newest patch first), PATH."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    builds = glob.glob(os.path.join(root, "versions", f"{version}.*", "bin", "python"))
    builds.sort(key=lambda p: [int(n) for n in re.findall(r"\d+", Path(p).parents[1].name)])
    on_path = shutil.which(f"python{version}")
    return builds[::-1] + ([on_path] if on_path else [])


def _is(python: str, version: str) -> bool:
    code = "import sys, venv; print('%d.%d' % sys.version_info[:2])"
    try:
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and done.stdout.strip() == version


def pythons() -> list[str]:
    """``VERSION PATH`` for every Python the classifiers name; exits when one is not found."""
    versions = [
        m.group(1) for c in _project()["classifiers"] if (m := CLASSIFIER.fullmatch(c)) is not None
    ]
    lines = []
    for version in versions:
        found = next((p for p in _candidates(version) if _is(p, version)), None)
        if found is None:
            raise SystemExit(
                f"ranges: no CPython {version} on this machine, but the classifiers claim it"
            )
        lines.append(f"{version} {found}")
    return lines


def versions() -> list[str]:
    """``name version`` of each ranged dependency installed in this interpreter's environment."""
    lines = []
    for name, specifier in ranged():
        try:
            lines.append(f"{name} {metadata.version(name)} ({specifier})")
        except metadata.PackageNotFoundError:
            lines.append(f"{name} not installed ({specifier})")
    return lines


def main(argv: list[str]) -> None:
    command, rest = (argv[0], argv[1:]) if argv else ("", [])
    if command == "lowest":
        print("\n".join(lowest(rest)))
    elif command == "pythons" and not rest:
        print("\n".join(pythons()))
    elif command == "versions" and not rest:
        print("\n".join(versions()))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
