"""Every catalogue template linted; its findings must be exactly the accepted ones.

A new finding (or one that went away) fails this test. After reviewing the difference,
regenerate the accepted list from the repository root with:

    rtc lint --all generated/ --write-baseline tests/data/lint_baseline.json
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from lint_helpers import assert_reproduced

from rtc.compiler.lint import lint
from rtc.compiler.lint.report import key, read_baseline

ROOT = Path(__file__).parent.parent
BASELINE = ROOT / "tests" / "data" / "lint_baseline.json"
REGENERATE = "rtc lint --all generated/ --write-baseline tests/data/lint_baseline.json"
CATALOGUE = sorted((ROOT / "generated").glob("*.json"))


@pytest.fixture(scope="module")
def accepted() -> set:
    return read_baseline(str(BASELINE))


@pytest.mark.parametrize("path", CATALOGUE, ids=[p.stem for p in CATALOGUE])
def test_catalogue_findings_are_the_accepted_ones(path: Path, accepted: set) -> None:
    template = json.loads(path.read_text(encoding="utf-8"))
    found = [dataclasses.replace(f, source=path.name) for f in lint(template)]
    for finding in found:
        assert_reproduced(template, finding)
    keys = {key(f) for f in found}
    mine = {k for k in accepted if k[0] == path.name}
    new = sorted(keys - mine)
    gone = sorted(mine - keys)
    assert not new and not gone, (
        f"rtc lint findings of {path.name} changed.\n"
        + "".join(f"  new:  {k[1:4]} example {k[4]!r}\n" for k in new)
        + "".join(f"  gone: {k[1:4]} example {k[4]!r}\n" for k in gone)
        + f"If the change is intended, regenerate the accepted findings from the repository "
        f"root with `{REGENERATE}` and review the diff of {BASELINE.relative_to(ROOT)}."
    )


def test_every_accepted_finding_belongs_to_a_catalogue_template(accepted: set) -> None:
    names = {p.name for p in CATALOGUE}
    stale = sorted({k[0] for k in accepted} - names)
    assert not stale, f"accepted findings for missing templates {stale}: run `{REGENERATE}`"
