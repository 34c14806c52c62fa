"""Every shipped template with its realistic cases: rtc must answer like transformers 5.23.0.

One shot, the answer recorded in the case (``expected`` or ``error``) must come back from the
compiled module's ``parse_response``. Streamed (whole text, 1- and 3-character chunks, random
cuts), every call's events and the final message must be those of the reference fed the same
chunks: the reference is not always chunking-invariant, and its streamed answer is the one to match.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from reference import Comparison, Reference, Rtc, canon, fixed_chunkings, record_oneshot

pytestmark = pytest.mark.core

DATA = Path(__file__).parent / "data"


def _template_files() -> list[tuple[Path, Path]]:
    pairs = [(p, DATA / "cases" / f"{p.stem}.jsonl") for p in (DATA / "templates").glob("*.json")]
    pairs += [(p, p.with_suffix(".jsonl")) for p in (DATA / "corpus").glob("*.json")]
    return sorted(pairs)


def _params() -> list[Any]:
    params = []
    for template_path, cases_path in _template_files():
        for line in cases_path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            case_id = f"{template_path.parent.name}/{template_path.stem}/{case['name']}"
            params.append(pytest.param(template_path, case, id=case_id))
    return params


_comparisons: dict[Path, Comparison] = {}


def _compare(ref: Reference, rtc: Rtc, template_path: Path) -> Comparison:
    if template_path not in _comparisons:
        template = json.loads(template_path.read_text(encoding="utf-8"))
        _comparisons[template_path] = Comparison(ref, rtc, template)
    return _comparisons[template_path]


def test_every_template_has_cases() -> None:
    pairs = _template_files()
    assert len(pairs) == 16 + 16
    for template_path, cases_path in pairs:
        assert cases_path.is_file(), f"{template_path.name} has no cases"


@pytest.mark.parametrize(("template_path", "case"), _params())
def test_one_shot(ref: Reference, rtc: Rtc, template_path: Path, case: dict) -> None:
    comparison = _compare(ref, rtc, template_path)
    assert not (problem := comparison.load_problem()), problem
    if comparison.ref_state != "ok":
        assert case.get("error") == comparison.ref_state  # the data agrees with the reference
        return
    args = (case["text"], case["prefix"], case.get("tools"))
    want = record_oneshot(ref, comparison.ref_loaded, *args)
    if "expected" in case:  # the data agrees with the installed reference
        assert want.error is None
        assert canon(want.raw, aliases=False) == canon(case["expected"], aliases=False)
    else:
        assert want.error == case["error"]
    got = record_oneshot(rtc, comparison.rtc_loaded, *args)
    if "expected" in case:
        assert got.error is None, f"rtc raises {got.error}; expected {case['expected']!r}"
        assert canon(got.raw, aliases=False) == canon(case["expected"], aliases=False), got
    else:
        assert got.error == case["error"], f"rtc: {got.describe()}; expected {case['error']}"
    assert not (problem := comparison.oneshot_problem(*args)), problem


@pytest.mark.parametrize(("template_path", "case"), _params())
def test_streamed(ref: Reference, rtc: Rtc, template_path: Path, case: dict) -> None:
    comparison = _compare(ref, rtc, template_path)
    assert not (problem := comparison.load_problem()), problem
    if not comparison.accepted:
        return
    problems = []
    seed = f"{template_path.stem}/{case['name']}"
    for name, chunks in fixed_chunkings(case["text"], seed).items():
        if problem := comparison.stream_problem(case["prefix"], case.get("tools"), chunks):
            problems.append(f"[{name}] {problem}")
    assert not problems, "\n\n".join(problems)
