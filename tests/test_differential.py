"""Differential tests: random templates, prefixes, tools, texts and chunkings through both rtc and
transformers 5.23.0; every observable (load outcome, events of every call, messages, exception
types) must agree, except where the reference never terminates (rtc then returns or raises
ValueError, the declared deviation).

Deterministic by default (``derandomize``). For exploration:
``RTC_DIFF_EXAMPLES=5000 RTC_DIFF_SEED=7 pytest tests/test_differential.py``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, event, given, seed, settings
from hypothesis import strategies as st
from reference import Comparison, Reference, Rtc
from strategies import chunkings, prefixes, template_plans, texts, tool_lists

pytestmark = pytest.mark.core

pytest.importorskip("transformers.utils.chat_parsing")  # the reference, a test extra

EXAMPLES = int(os.environ.get("RTC_DIFF_EXAMPLES", "1200"))
"""Random templates per run (about 85% of them are valid; each gets two texts)."""
SEED = os.environ.get("RTC_DIFF_SEED")
REF_TIMEOUT = 0.3
"""A reference call on these short texts takes milliseconds; longer means a loop (Q5)."""

F = TypeVar("F", bound=Callable[..., Any])


def deterministic(examples: int) -> Callable[[F], F]:
    """Hypothesis settings for CI (derandomized), or a chosen seed with ``RTC_DIFF_SEED``."""

    def apply(test: F) -> F:
        configured = settings(
            max_examples=examples,
            derandomize=SEED is None,
            deadline=None,
            database=None,
            print_blob=True,
            suppress_health_check=list(HealthCheck),
        )(test)
        return seed(int(SEED))(configured) if SEED is not None else configured

    return apply


@deterministic(EXAMPLES)
@given(data=st.data())
def test_random_templates(rtc: Rtc, data: st.DataObject) -> None:
    ref = Reference(timeout=REF_TIMEOUT)
    plan = data.draw(template_plans(), label="plan")
    comparison = Comparison(ref, rtc, plan.template)
    event(f"load: {comparison.ref_state}")
    assert not (problem := comparison.load_problem()), problem
    if not comparison.accepted:
        return
    for _ in range(2):
        prefix = data.draw(prefixes(plan), label="prefix")
        tools = data.draw(tool_lists(), label="tools")
        text = data.draw(texts(plan), label="text")
        assert not (problem := comparison.oneshot_problem(text, prefix, tools)), problem
        ways = [[text], list(text), data.draw(chunkings(text), label="chunks")]
        for chunks in ways:
            assert not (problem := comparison.stream_problem(prefix, tools, chunks)), problem


DATA = Path(__file__).parent / "data"


def _catalogue() -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Every shipped template with its cases (catalogue and corpus; the lint's pinned copies in
    ``lint_templates`` have no cases)."""
    out = []
    paths = [*DATA.glob("templates/*.json"), *DATA.glob("corpus/*.json")]
    for template_path in sorted(paths):
        folder = "cases" if template_path.parent.name == "templates" else template_path.parent.name
        cases_path = DATA / folder / f"{template_path.stem}.jsonl"
        cases = [json.loads(line) for line in cases_path.read_text(encoding="utf-8").splitlines()]
        out.append((json.loads(template_path.read_text(encoding="utf-8")), cases))
    return out


CATALOGUE = _catalogue()


@st.composite
def spliced(draw: st.DrawFn, cases: list[dict[str, Any]]) -> str:
    """Slices of real generations for one template, glued together in a random order."""
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        text = draw(st.sampled_from(cases))["text"]
        start = draw(st.integers(0, len(text)))
        parts.append(text[start : draw(st.integers(start, len(text)))])
    return "".join(parts)


@deterministic(max(EXAMPLES // 2, 1))
@given(data=st.data())
def test_catalogue_templates_on_spliced_texts(rtc: Rtc, data: st.DataObject) -> None:
    """The real templates (long literals, real patterns) on cut-and-glued real generations."""
    template, cases = data.draw(st.sampled_from(CATALOGUE), label="template")
    comparison = Comparison(Reference(timeout=REF_TIMEOUT * 10), rtc, template)
    assert not (problem := comparison.load_problem()), problem
    if not comparison.accepted:
        return
    case = data.draw(st.sampled_from(cases), label="case")
    prefix = case["prefix"]
    how = data.draw(st.sampled_from(["as is", "cut short", "empty"]), label="prefix")
    if how == "cut short":  # may end inside the start anchor or a delimiter
        prefix = prefix[: data.draw(st.integers(0, len(prefix)))]
    elif how == "empty":
        prefix = ""
    tools = case.get("tools") if data.draw(st.booleans(), label="case tools") else None
    text = data.draw(spliced(cases), label="text")
    assert not (problem := comparison.oneshot_problem(text, prefix, tools)), problem
    chunks = data.draw(chunkings(text), label="chunks")
    assert not (problem := comparison.stream_problem(prefix, tools, chunks)), problem
