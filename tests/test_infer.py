"""``rtc infer``: templates written only from what a chat template's renders prove.

Each written template is re-checked here: it compiles, every probe the chat template renders
round-trips through it, and ``rtc lint`` (with the chat template) finds no error. Templates the
renders do not prove are refused with the part and the reason. The formats covered: JSON call
objects, JSON arguments after the name, a JSON dialect, XML-like parameters, pythonic calls in a
list, a JSON list of calls, ids and indexes written after the name, calls without a close of
their own, an anchor taken from the prompt's last token.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from rtc.compiler import load
from rtc.compiler.cli import main
from rtc.compiler.infer import infer
from rtc.compiler.lint import ERROR, lint
from rtc.compiler.match import render_all
from rtc.compiler.match.ranking import score

DATA = Path(__file__).parent / "data"
ADDED = json.loads((DATA / "match" / "families.json").read_text(encoding="utf-8"))["families"]


def chat(name: str) -> tuple[str, dict[str, str]]:
    folder = DATA / "catalogue" / name
    if (folder / "chat_template.jinja").exists():
        meta = json.loads((folder / "family.json").read_text(encoding="utf-8"))
        text = (folder / "chat_template.jinja").read_text(encoding="utf-8")
        return text, meta["chat_template"].get("special_tokens") or {}
    spec = ADDED[name]
    text = (DATA / "match" / "chat_templates" / spec["file"]).read_text(encoding="utf-8")
    return text, spec["special_tokens"]


@cache
def inferred(name: str) -> Any:
    return infer(*chat(name))


WRITTEN = {
    "qwen3": "a JSON object in <tool_call>, <think> reasoning",
    "qwen3_coder": "<function=NAME> and <parameter=K> parameters",
    "glm4_moe": "<arg_key>/<arg_value> parameters after the name",
    "gemma4": "JSON arguments in gemma's dialect (unquoted keys, <|\"|> quotes)",
    "mistral": "[TOOL_CALLS] calls with no close of their own, ids after the name",
    "kimi_k2": "functions.NAME:INDEX, a section wrapping the calls",
    "lfm2_5": "pythonic calls as items of a list",
    "hyperclovax": "a JSON list of calls, turns ending with different tokens",
    "cohere": "an anchor from the prompt's last token, a list with extra keys",
    "step3p5": "reasoning opened by the generation prompt",
    "deepseek_v32": "thinking on and off, DSML parameters with a type attribute",
}


@pytest.mark.parametrize("name", sorted(WRITTEN))
def test_a_written_template_compiles_round_trips_every_probe_and_lints_clean(name: str) -> None:
    found = inferred(name)
    assert found.template is not None, [f"{p.part}: {p.why}" for p in found.problems]
    text, tokens = chat(name)
    probes = render_all(text, tokens)
    evidence = score("inferred", load(found.template), probes)
    assert evidence.complete and evidence.total == len([p for p in probes if p.error is None])
    errors = [f for f in lint(found.template, chat_template=text, special_tokens=tokens)]
    assert [f for f in errors if f.severity == ERROR] == []
    assert {e.part for e in found.evidence} >= {"start_anchor", "end of turn"}


def test_the_qwen3_template_is_what_its_renders_show() -> None:
    template = inferred("qwen3").template
    assert template["start_anchor"] == "<|im_start|>assistant\n"
    fields = template["fields"]
    assert fields["reasoning_content"] == {"open": "<think>", "close": "</think>"}
    calls = fields["tool_calls"]
    assert (calls["open"], calls["close"], calls["content"]) == (
        "<tool_call>",
        "</tool_call>",
        "json",
    )
    assert fields["content"]["close"] == "<|im_end|>"
    assert fields["content"]["content_args"] == {"strip": False}  # text kept as written


def test_a_prefilled_reasoning_opening_leaves_the_anchor_and_opens_the_field() -> None:
    template = inferred("step3p5").template
    assert template["start_anchor"] == "<|im_start|>assistant\n"
    assert template["fields"]["reasoning_content"]["open"] == "<think>"
    parsed = load(template).parse_response(
        "Sunny.\n</think>\nIt is sunny.<|im_end|>", prefix="<|im_start|>assistant\n<think>\n"
    )
    assert (
        parsed["reasoning_content"].strip() == "Sunny."
        and parsed["content"].strip() == "It is sunny."
    )


REFUSED = {
    "llama3": ("fields.tool_calls.open", "bare JSON"),
    "xlam": ("fields.tool_calls.open", "bare JSON"),
    "r1_distill": ("reasoning", "no rendered turn does"),
    "internlm2": ("tool call body", "Python dict"),
    "gpt_oss": ("round trip", "content and a tool call"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_the_renders_do_not_prove_is_refused_with_the_part_and_why(name: str) -> None:
    found = inferred(name)
    part, why = REFUSED[name]
    assert found.template is None
    assert any(p.part == part and why in p.why for p in found.problems), found.problems


# -- the command -------------------------------------------------------------------------


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["infer", *args])


def test_the_template_is_written_to_the_output_and_explained(tmp_path: Path) -> None:
    out = tmp_path / "template.json"
    result = run(
        str(DATA / "catalogue" / "qwen3" / "chat_template.jinja"), "-o", str(out), "--explain"
    )
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text(encoding="utf-8")) == inferred("qwen3").template
    assert "start_anchor: `<|im_start|>assistant\\n`" in result.output
    assert "verified: 10/10 probes round-trip" in result.output


def test_a_refusal_is_exit_status_1_names_each_part_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "template.json"
    result = run(str(DATA / "catalogue" / "llama3" / "chat_template.jinja"), "-o", str(out))
    assert result.exit_code == 1
    assert "rtc infer: cannot infer fields.tool_calls.open:" in result.output
    assert "no template written" in result.output and not out.exists()


def test_unusable_input_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    (tmp_path / "bad.jinja").write_text("{% if %}", encoding="utf-8")
    for source, expected in (("bad.jinja", "does not compile"), ("none.jinja", "no such file")):
        result = run(str(tmp_path / source))
        assert result.exit_code == 2
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("rtc: error: ") and expected in lines[0]
