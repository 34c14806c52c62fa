"""``rtc match``: every catalogue chat template is read best by its own family's parser.

For each family with a chat template (``tests/data/catalogue/NAME/chat_template.jinja``, and the
ones ``tests/data/match/families.json`` adds), the family's parser round-trips as many probes as
the best parser does (ties are parsers giving the same messages). The command's output, exit
statuses and one-line errors are checked on a few of them.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from catalogue_data import catalogue_names, family
from click.testing import CliRunner, Result

from rtc.compiler.cli import main
from rtc.compiler.match import match
from rtc.compiler.match.compare import difference
from rtc.compiler.match.probes import Expected

DATA = Path(__file__).parent / "data"
MATCH = DATA / "match"
ADDED = json.loads((MATCH / "families.json").read_text(encoding="utf-8"))["families"]


def chat_templates() -> dict[str, tuple[str, dict[str, str]]]:
    """family -> (chat template, special tokens), the catalogue's then the added ones."""
    out = {}
    for name in catalogue_names():
        spec = family(name).meta.get("chat_template")
        if spec:
            out[name] = (family(name).chat_template(), spec.get("special_tokens") or {})
    for name, spec in ADDED.items():
        text = (MATCH / "chat_templates" / spec["file"]).read_text(encoding="utf-8")
        out.setdefault(name, (text, spec["special_tokens"]))
    return out


TEMPLATES = chat_templates()


@cache
def found(name: str) -> Any:
    text, tokens = TEMPLATES[name]
    return match(text, tokens)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_the_family_parser_ranks_first_on_its_own_chat_template(name: str) -> None:
    result = found(name)
    own = next(s for s in result.ranking if s.family == name)
    top = result.ranking[0]
    assert own.passed == top.passed, (
        f"{name}: {top.family} round-trips {top.passed}/{top.total} probes, the family's own "
        f"parser {own.passed}: {own.first_difference}"
    )
    assert own.total == len(result.rendered) > 0


def test_there_are_chat_templates_for_most_of_the_catalogue() -> None:
    assert len(TEMPLATES) >= 40 and set(TEMPLATES) <= set(catalogue_names())


def test_the_evidence_is_per_probe_and_explains_each_difference() -> None:
    result = found("qwen3")
    assert result.best[:1] == ["qwen3"]
    llama = next(s for s in result.ranking if s.family == "llama3")
    assert llama.passed < llama.total
    failed = [o for o in llama.outcomes if not o.ok]
    assert all(o.difference for o in failed) and llama.first_difference.startswith(failed[0].label)
    labels = [p.label for p in result.probes]
    assert "one tool call, typed arguments" in labels and "content, thinking off" in labels
    payload = result.to_json()
    assert payload["ranking"][0]["round_tripped"] == payload["ranking"][0]["probes"]


def test_a_probe_a_template_cannot_render_is_left_out_with_its_reason() -> None:
    result = found("llama3")  # Llama 3.3 refuses two calls in one turn
    (skipped,) = [p for p in result.probes if p.error is not None]
    assert skipped.label == "two parallel tool calls" and "single tool-calls" in skipped.error
    assert all(s.total == len(result.probes) - 1 for s in result.ranking)


def test_what_the_template_does_not_write_is_not_expected() -> None:
    result = found("granite3")  # Granite 3.3 writes no tool calls in history turns
    (one,) = [p for p in result.probes if p.label == "one tool call, typed arguments"]
    assert one.expected.calls == () and "get_weather" not in one.turn


def test_arguments_compare_as_json_and_python_literals_may_come_back_as_text() -> None:
    want = Expected(None, None, (("f", {"n": 1, "tags": ["a"], "ok": True}),))
    call = {"type": "function", "function": {"name": "f", "arguments": '{"n": 1}'}}
    assert difference(want, {"role": "assistant", "tool_calls": [call]}) is not None
    as_text = {"n": 1, "tags": "['a']", "ok": True}
    same = {"type": "function", "function": {"name": "f", "arguments": as_text}}
    assert difference(want, {"role": "assistant", "tool_calls": [same]}) is None
    wrong = {"n": True, "tags": ["a"], "ok": True}  # true is not 1 in JSON
    other = {"type": "function", "function": {"name": "f", "arguments": wrong}}
    assert "tool calls" in difference(want, {"role": "assistant", "tool_calls": [other]})
    extra = {"role": "assistant", "tool_calls": [same], "citations": ["x"]}
    assert difference(want, extra).startswith("also gives citations")


def test_match_imports_without_click_and_black() -> None:
    code = (
        "import sys; sys.modules['click'] = None; sys.modules['black'] = None\n"
        "import rtc.compiler.match, rtc.compiler.infer\n"
    )
    import subprocess

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# -- the command -------------------------------------------------------------------------


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, ["match", *args], input=input)


def test_the_table_ranks_families_and_exit_status_is_0_when_one_round_trips_all() -> None:
    result = run(str(DATA / "catalogue" / "qwen3" / "chat_template.jinja"))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "round-trip every probe: qwen3" in lines[0]
    assert lines[2].split() == ["family", "probes", "first", "difference"]
    assert lines[3].split()[:3] == ["qwen3", "10/10", "-"]


def test_json_output_and_exit_status_1_when_no_family_round_trips_everything(
    tmp_path: Path,
) -> None:
    chat = "{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endfor %}"
    chat += "{% if add_generation_prompt %}<assistant>{% endif %}"
    path = tmp_path / "chat_template.jinja"
    path.write_text(chat, encoding="utf-8")
    result = run(str(path), "--format", "json")
    assert result.exit_code == 1
    payload = json.loads(result.output)
    assert payload["best"] == [] and payload["source"] == str(path)
    assert {p["label"] for p in payload["probes"]} >= {"content", "two parallel tool calls"}


def test_a_tokenizer_config_brings_its_chat_template_and_special_tokens(tmp_path: Path) -> None:
    text, tokens = TEMPLATES["mistral"]
    config = {"chat_template": text, **tokens}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    result = run(str(tmp_path), "--format", "json")
    assert result.exit_code == 0, result.output
    assert "mistral" in json.loads(result.output)["best"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("missing.jinja", "no such file"),
        ("bad.jinja", "does not compile"),
        ("raises.jinja", "renders none of the probes"),
        ("tokenizer_config.json", "no chat_template key"),
    ],
)
def test_unusable_input_is_one_line_and_exit_status_2(
    tmp_path: Path, source: str, expected: str
) -> None:
    (tmp_path / "bad.jinja").write_text("{% for %}", encoding="utf-8")
    (tmp_path / "raises.jinja").write_text("{{ raise_exception('no') }}", encoding="utf-8")
    (tmp_path / "tokenizer_config.json").write_text('{"eos_token": "</s>"}', encoding="utf-8")
    result = run(str(tmp_path / source))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rtc: error: ") and expected in lines[0]
