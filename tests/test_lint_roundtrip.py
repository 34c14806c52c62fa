"""Round trips: real chat templates render assistant messages, the catalogue parses them back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lint_helpers import chat_like, findings

from rtc.compiler.chat import ChatTemplate, render_turn
from rtc.compiler.lint.findings import INFO, WARNING
from rtc.compiler.lint.roundtrip import MESSAGES
from rtc.compiler.lint.shapes import TOOLS

DATA = Path(__file__).parent / "data"
CHATS = DATA / "chat_templates"


def _catalogue(name: str) -> dict:
    """A catalogue template as the lint tests pin it (tests/data/lint_templates)."""
    return json.loads((DATA / "lint_templates" / f"{name}.json").read_text(encoding="utf-8"))


def _round_trips(name: str, chat: str) -> list:
    source = (CHATS / f"{chat}.jinja").read_text(encoding="utf-8")
    return findings(_catalogue(name), "round-trip", chat_template=source)


def test_qwen3_round_trips_cleanly() -> None:
    assert _round_trips("qwen3", "qwen3") == []


def test_glm_tool_names_swallow_the_arguments() -> None:
    found = _round_trips("glm4_moe", "glm4_moe")
    (f,) = [f for f in found if f.path == "fields.tool_calls"]
    assert f.severity == WARNING
    names = [c["function"]["name"] for c in f.result["tool_calls"]]
    assert names[0].startswith("get_weather<arg_key>")  # what the message says went wrong
    assert "<tool_call>get_weather<arg_key>" in f.example.text


def test_a_chat_template_that_drops_reasoning_and_calls_gives_info_findings() -> None:
    found = _round_trips("smollm3", "smollm3_unsloth")
    assert {(f.severity, f.path) for f in found} == {
        (INFO, "fields.thinking"),
        (INFO, "fields.tool_calls"),
    }
    for f in found:
        assert "does not write" in f.message
        assert "thinking" not in f.result and "tool_calls" not in f.result


def test_r1_distill_tool_calls_end_up_in_content() -> None:
    found = _round_trips("r1_distill", "r1_distill")
    extra = [f for f in found if "also gives `content`" in f.message]
    assert extra and all(f.severity == WARNING for f in extra)
    assert "<｜tool▁calls▁begin｜>" in extra[0].result["content"]


def test_the_turn_ends_at_the_end_of_turn_token_and_never_cuts_a_token() -> None:
    chat = ChatTemplate((CHATS / "r1_distill.jinja").read_text(encoding="utf-8"))
    _, message = MESSAGES[2]
    prompt, turn = render_turn(chat, message, ("<｜end▁of▁sentence｜>",), tools=TOOLS)
    assert prompt.endswith("<｜Assistant｜><think>\n")
    assert turn.startswith("<｜tool▁calls▁begin｜>")
    assert turn.endswith("<｜end▁of▁sentence｜>") and turn.count("<｜end▁of▁sentence｜>") == 1


def test_a_chat_template_that_raises_is_reported_not_fatal() -> None:
    source = "{% if messages[-1].tool_calls %}{{ raise_exception('no tools') }}{% endif %}" + (
        "{% for m in messages %}<{{ m.role }}>{{ m.content }}<|end|>{% endfor %}"
        "{% if add_generation_prompt %}<assistant>{% endif %}"
    )
    found = findings(chat_like(), "round-trip", chat_template=source)
    failed = [f for f in found if f.path == "chat_template"]
    assert len(failed) == 2 and all("no tools" in f.message for f in failed)


@pytest.mark.parametrize("source", ["{% for %}", "{{ 'x' * 100000000 }}"])
def test_an_unusable_chat_template_is_one_info_finding(source: str) -> None:
    found = findings(chat_like(), "round-trip", chat_template=source)
    assert found and all(f.severity == INFO and f.path == "chat_template" for f in found)
