"""Shared fixtures: the reference (transformers 5.23.0) and the rtc compiler, as engines; and
the test subsets CI runs in its smaller environments, by marker.

A subset marker (``SUBSETS``, registered in pyproject.toml) is set on a whole module, as
``pytestmark = pytest.mark.core``. ``pytest -m core`` then collects only the modules marked so,
without importing the others: an environment with fewer packages (the lowest job has no
transformers and no hypothesis) runs its subset without failing to import the rest.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from reference import Reference, Rtc, rtc_load

SUBSETS = frozenset({"core", "no_reference", "scale", "vllm", "sglang"})
_OPERATORS = frozenset({"(", ")", "and", "or", "not"})


def _module_marks(path: Path) -> set[str]:
    """The marker names of ``path``'s module-level ``pytestmark`` (read, not imported)."""
    marks: set[str] = set()
    for node in ast.parse(path.read_bytes(), str(path)).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            values = (
                node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            )
            for value in values:
                mark = value.func if isinstance(value, ast.Call) else value
                if isinstance(mark, ast.Attribute):
                    marks.add(mark.attr)
    return marks


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m`` over subset markers only: leave out (unimported) a test module whose
    module-level marks cannot satisfy the expression."""
    expression = config.getoption("markexpr")
    if not expression or collection_path.suffix != ".py":
        return None
    if not collection_path.name.startswith("test_"):
        return None
    tokens = re.findall(r"[()]|[^\s()]+", expression)
    if not set(tokens) <= SUBSETS | _OPERATORS:
        return None  # other markers may sit on single tests: collect as usual
    marks = _module_marks(collection_path)
    names = {name: name in marks for name in SUBSETS}
    # The tokens were checked above: marker names and operators only, as Python reads them.
    selected = eval(" ".join(tokens), {"__builtins__": {}}, names)
    return None if selected else True


@pytest.fixture(scope="session")
def ref() -> Reference:
    """The reference; its tests are skipped where transformers (a test extra) is missing."""
    pytest.importorskip("transformers.utils.chat_parsing")
    return Reference()


@pytest.fixture(scope="session")
def rtc() -> Rtc:
    compile_ = rtc_load()
    if compile_ is None:
        pytest.fail("rtc.compiler.load is missing")
    return Rtc(compile_)
