"""Small modules: no module of ``compiler/`` or ``runtime/`` over 600 lines, no class over 250.

The limits of the project's standards, checked so that later work stays within them: a module
that grows past them is split by concern (see README, Architecture), not stretched.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("compiler", "runtime")
MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 250


def _modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def test_the_packages_are_found() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in _modules()}
    assert {"compiler/plan.py", "runtime/engine.py", "compiler/bench/__init__.py"} <= names


def test_no_module_over_600_lines() -> None:
    too_long = {}
    for path in _modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            too_long[path.relative_to(ROOT).as_posix()] = lines
    assert not too_long, f"modules over {MAX_MODULE_LINES} lines: {too_long}"


def test_no_class_over_250_lines() -> None:
    too_long = {}
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines = (node.end_lineno or node.lineno) - first + 1
                if lines > MAX_CLASS_LINES:
                    where = f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {node.name}"
                    too_long[where] = lines
    assert not too_long, f"classes over {MAX_CLASS_LINES} lines: {too_long}"
