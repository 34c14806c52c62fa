"""Shared by the lint tests: small templates, running the lint, re-running its examples."""

from __future__ import annotations

import copy
from typing import Any

from rtc.compiler.lint import Finding, lint
from rtc.compiler.lint.probe import Probe, is_raised
from rtc.compiler.lint.shapes import TOOLS

TOOL_TRANSFORM = {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}


def template(fields: dict[str, Any], anchor: str = "<|assistant|>") -> dict[str, Any]:
    return {"defaults": {"role": "assistant"}, "start_anchor": anchor, "fields": fields}


def chat_like(**changes: Any) -> dict[str, Any]:
    """A qwen3-like template: <think> reasoning (ended by a call too), <tool_call> JSON calls,
    implicit content (its pieces joined by a space: the call's delimiters consume the
    whitespace around it, so joining with nothing would glue words)."""
    fields: dict[str, Any] = {
        "reasoning": {"open": "<think>", "close_pattern": "</think>\\s*|(?=<tool_call>)"},
        "tool_calls": {
            "open_pattern": "\\s*<tool_call>",
            "close_pattern": "</tool_call>\\s*",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close_pattern": "\\s*<\\|end\\|>\\s*", "repeats": True, "join": " "},
    }
    for name, spec in changes.items():
        if spec is None:
            fields.pop(name)
        else:
            fields[name] = spec
    return template(fields)


def findings(tpl: dict[str, Any], code: str | None = None, **kwargs: Any) -> list[Finding]:
    found = lint(copy.deepcopy(tpl), **kwargs)
    for f in found:
        assert_reproduced(tpl, f)
    return [f for f in found if code is None or f.code == code]


def assert_reproduced(tpl: dict[str, Any], finding: Finding) -> None:
    """The example gives exactly the recorded result when run again on a fresh probe."""
    if finding.example is None:
        return
    probe = Probe(copy.deepcopy(tpl), TOOLS)
    assert finding.example.produce(probe) == finding.result, finding


def outcomes(finding: Finding) -> list[Any]:
    """The results of every run of a finding's example."""
    if len(finding.example.runs) == 1:
        return [finding.result]
    return list(finding.result.values())


def raised_types(finding: Finding) -> list[str]:
    return [r["exception"] for r in outcomes(finding) if is_raised(r)]
