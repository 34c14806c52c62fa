"""``call-inside-reasoning``: a tool call written before the reasoning's close.

Inside an explicit region only its own close is watched, so a call there is text unless the
close also ends the reasoning where a call begins. Each test re-runs the example (``findings``
does, on a fresh probe) and checks it shows what the message says; suggested closes are taken
from the finding's text and applied, and the example re-run on the changed template.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from lint_helpers import chat_like, findings

from rtc.compiler.lint import lint
from rtc.compiler.lint.findings import WARNING, Finding
from rtc.compiler.lint.probe import Probe
from rtc.compiler.lint.shapes import CALL, TEXTS, TOOLS
from rtc.compiler.lint.texts import tool_calls

CODE = "call-inside-reasoning"
REASONING = TEXTS["reasoning"][0]
ROOT = Path(__file__).parent.parent
BASELINE = ROOT / "tests" / "data" / "lint_baseline.json"


def _suggested(tpl: dict, finding: Finding, field: str = "reasoning") -> dict:
    """``tpl`` with the suggested close of ``field`` applied (the pattern in the suggestion)."""
    match = re.fullmatch(r"close_pattern: `(.*)` \(the look-ahead .*\)", finding.suggestion)
    assert match, finding.suggestion
    changed = copy.deepcopy(tpl)
    spec = changed["fields"][field]
    spec.pop("close", None)
    spec["close_pattern"] = match.group(1)
    return changed


def _assert_fixed(tpl: dict, finding: Finding) -> None:
    """The suggested close gives the example's call, keeps the reasoning, and lints clean."""
    fixed = _suggested(tpl, finding)
    result = finding.example.produce(Probe(fixed, TOOLS))
    assert tool_calls(result["tool_calls"]) == [(CALL.name, CALL.arguments)]
    assert result["reasoning"] == REASONING
    assert findings(fixed, CODE) == []


def test_a_call_before_the_reasoning_close_stays_in_the_reasoning() -> None:
    tpl = chat_like(reasoning={"open": "<think>", "close_pattern": "</think>\\s*"})
    (f,) = findings(tpl, CODE)
    assert f.severity == WARNING and f.path == "fields.reasoning.close_pattern"
    text = f.example.text
    assert text.startswith("<think>" + REASONING) and "</think>" not in text
    assert text.index("<tool_call>") < text.index("</tool_call>") < text.index("<|end|>")
    assert "tool_calls" not in f.result
    assert "<tool_call>" in f.result["reasoning"] and CALL.name in f.result["reasoning"]
    assert "stays inside `reasoning` as text" in f.message
    assert "(?=<tool_call>)" in f.suggestion
    _assert_fixed(tpl, f)


def test_a_literal_close_is_suggested_as_a_pattern_with_its_literals() -> None:
    tpl = chat_like(reasoning={"open": "<think>", "close": ["</think>", "<|end|>"]})
    (f,) = findings(tpl, CODE)
    assert f.path == "fields.reasoning.close"
    assert "`</think>|<\\|end\\|>|(?=<tool_call>)`" in f.suggestion  # longest first
    _assert_fixed(tpl, f)


def test_a_close_that_ends_the_reasoning_at_the_call_is_not_reported() -> None:
    assert "(?=<tool_call>)" in chat_like()["fields"]["reasoning"]["close_pattern"]
    assert findings(chat_like(), CODE) == []
    # The close consumes the call's leading marker, which the call's open does not need.
    calls = chat_like()["fields"]["tool_calls"] | {"open_pattern": "(?:<calls>)?\\s*<tool_call>"}
    marker = {"open": "<think>", "close": ["</think>", "<calls>"]}
    assert findings(chat_like(reasoning=marker, tool_calls=calls), CODE) == []


def test_a_close_that_consumes_the_call_open_loses_the_call() -> None:
    tpl = chat_like(reasoning={"open": "<think>", "close": ["</think>", "<tool_call>"]})
    (f,) = findings(tpl, CODE)
    assert "the call is lost" in f.message
    assert "tool_calls" not in f.result and f.result["reasoning"] == REASONING
    assert '"city"' in f.result["content"]  # the call's body became content
    assert f.suggestion is None  # the consuming alternative still wins: nothing verified


def test_a_reasoning_field_without_a_close_runs_over_the_call() -> None:
    tpl = chat_like(reasoning={"open": "<think>"})
    (f,) = findings(tpl, CODE)
    assert f.path == "fields.reasoning" and "has no close" in f.message
    assert "tool_calls" not in f.result and "<tool_call>" in f.result["reasoning"]


def test_templates_without_tool_calls_or_reasoning_text_are_not_probed() -> None:
    assert findings(chat_like(tool_calls=None), CODE) == []
    marker = {"open": "<think>", "close_pattern": ""}  # a zero-width close: holds no text
    assert findings(chat_like(reasoning=marker), CODE) == []


FLAGGED = sorted(
    name
    for name, accepted in json.loads(BASELINE.read_text(encoding="utf-8"))["accepted"].items()
    if any(entry["code"] == CODE for entry in accepted)
)


@pytest.mark.parametrize("name", FLAGGED, ids=[Path(n).stem for n in FLAGGED])
def test_each_catalogue_suggestion_removes_the_finding_and_adds_none(name: str) -> None:
    """The suggested close, applied to the catalogue template, lints clean of this finding
    and changes no other finding's code, severity or key path (a literal close becomes a
    close pattern: findings on it keep their place). Where no close verifies, none is
    suggested."""
    tpl = json.loads((ROOT / "generated" / name).read_text(encoding="utf-8"))
    before = lint(copy.deepcopy(tpl))
    (f,) = [f for f in before if f.code == CODE]
    if f.suggestion is None:
        return
    field = f.path.split(".")[1]
    fixed = _suggested(tpl, f, field)
    after = lint(fixed)

    def place(path: str) -> str:
        return path.replace(f"fields.{field}.close_pattern", f"fields.{field}.close")

    keys = {(g.code, g.severity, place(g.path)) for g in after}
    assert keys == {(g.code, g.severity, place(g.path)) for g in before if g is not f}
    result = f.example.produce(Probe(fixed, TOOLS))
    assert tool_calls(result["tool_calls"]) == [(CALL.name, CALL.arguments)]
