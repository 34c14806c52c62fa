"""Every shipped template with its realistic cases: rtc must answer like transformers 5.23.0.

One shot, the answer recorded in the case (``expected`` or ``error``) must come back from the
compiled module's ``parse_response``. Streamed (whole text, 1- and 3-character chunks, random
cuts), every call's events and the final message must be those of the reference fed the same
chunks: the reference is not always chunking-invariant, and its streamed answer is the one to match.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from reference import (
    Engine,
    Reference,
    Rtc,
    canon,
    diff_steps,
    fixed_chunkings,
    load,
    record_oneshot,
    record_stream,
    rtc_load,
)

pytest.importorskip("transformers")

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


CASES = _params()


@functools.cache
def _reference() -> Reference:
    return Reference()


@functools.cache
def _rtc() -> Rtc | None:
    compile_ = rtc_load()
    return Rtc(compile_) if compile_ is not None else None


@functools.cache
def _loaded(engine: Engine, template_path: Path) -> tuple[str, Any]:
    return load(engine, json.loads(template_path.read_text(encoding="utf-8")))


@pytest.fixture
def rtc() -> Rtc:
    engine = _rtc()
    if engine is None:
        pytest.skip("rtc.compiler.load is not available yet")
    return engine


def test_every_template_has_cases() -> None:
    pairs = _template_files()
    assert len(pairs) >= 16 + 16
    for template_path, cases_path in pairs:
        assert cases_path.is_file(), f"{template_path.name} has no cases"


@pytest.mark.parametrize(("template_path", "case"), CASES)
def test_one_shot(rtc: Rtc, template_path: Path, case: dict) -> None:
    ref = _reference()
    ref_state, ref_loaded = _loaded(ref, template_path)
    rtc_state, rtc_loaded = _loaded(rtc, template_path)
    assert rtc_state == ref_state, f"load: reference {ref_state}, rtc {rtc_state}"
    if ref_state != "ok":
        assert case.get("error") == ref_state  # the data agrees with the installed reference
        return
    args = (case["text"], case["prefix"], case.get("tools"))
    got = record_oneshot(rtc, rtc_loaded, *args)
    want = record_oneshot(ref, ref_loaded, *args)
    if "expected" in case:
        assert want.error is None and want.result == canon(case["expected"], aliases=False)
        assert got.error is None, f"rtc raises {got.error}; expected {case['expected']!r}"
        assert canon(got.raw, aliases=False) == canon(case["expected"], aliases=False), got.describe()
    else:
        assert want.error == case["error"]
        assert got.error == case["error"], f"rtc: {got.describe()}; expected {case['error']}"
    assert diff_steps([want], [got]) is None, diff_steps([want], [got])


@pytest.mark.parametrize(("template_path", "case"), CASES)
def test_streamed(rtc: Rtc, template_path: Path, case: dict) -> None:
    ref = _reference()
    ref_state, ref_loaded = _loaded(ref, template_path)
    rtc_state, rtc_loaded = _loaded(rtc, template_path)
    assert rtc_state == ref_state, f"load: reference {ref_state}, rtc {rtc_state}"
    if ref_state != "ok":
        return
    problems = []
    seed = f"{template_path.stem}/{case['name']}"
    for name, chunks in fixed_chunkings(case["text"], seed).items():
        args = (case["prefix"], case.get("tools"), chunks)
        want = record_stream(ref, ref_loaded, *args)
        got = record_stream(rtc, rtc_loaded, *args)
        if problem := diff_steps(want, got):
            problems.append(f"[{name}: {len(chunks)} chunks {chunks[:12]!r}...]\n{problem}")
    assert not problems, "\n\n".join(problems)
