"""A call cut off by the end of the generation is never passed off as a finished call.

``parse_response`` follows the reference: a tool-call region the end of the text closed is
parsed like any other, so a call cut off mid-argument (``max_tokens``, a dropped connection)
can come back as a complete-looking call. The OpenAI layer reports it: a ``truncated`` problem
names the field, and the call is still sent (its arguments as far as they go). Checked on one
cut-off call per family (``tests/data/catalogue/cut_off_calls.jsonl``: real fixtures cut two
thirds into a call, and partial outputs from llama.cpp's tests, each with its provenance): every
call the stream returns without a ``truncated`` problem is a call of the whole generation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import rtc.generated

ROWS = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "catalogue" / "cut_off_calls.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()
]


def _calls(message: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"] or "{}"))
        for c in message.get("tool_calls") or []
    ]


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_a_cut_off_call_is_reported_or_not_returned(row: dict[str, Any]) -> None:
    module = rtc.generated.get(row["family"])
    message, reason, problems = module.parse_openai(
        row["text"], prefix=row["prefix"], tools=row.get("tools")
    )
    if any(p["type"] == "truncated" for p in problems):
        assert message["tool_calls"] and reason == "tool_calls"
        return
    finished: list[tuple[str, Any]] = []
    if "complete" in row:  # (llama.cpp's partial outputs have no finished form)
        whole, _, _ = module.parse_openai(
            row["complete"], prefix=row["prefix"], tools=row.get("tools")
        )
        finished = _calls(whole)
    returned = _calls(message)
    assert returned == finished[: len(returned)], (returned, finished)


def test_some_cut_off_calls_are_reported() -> None:
    reported = 0
    for row in ROWS:
        module = rtc.generated.get(row["family"])
        _, _, problems = module.parse_openai(
            row["text"], prefix=row["prefix"], tools=row.get("tools")
        )
        reported += any(p["type"] == "truncated" for p in problems)
    assert reported >= 20  # the families whose call regions open before their body is complete


def test_a_call_closed_by_its_own_delimiter_is_not_truncated() -> None:
    module = rtc.generated.get("qwen3")
    text = '<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>'
    _, reason, problems = module.parse_openai(text, prefix="")
    assert reason == "tool_calls" and problems == []
    _, reason, problems = module.parse_openai(text[:-12], prefix="")
    assert reason == "tool_calls" and [p["type"] for p in problems] == ["truncated"]
