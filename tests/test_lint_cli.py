"""``rtc lint`` on the command line: sources, formats, exit statuses, baselines, hooks."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from lint_helpers import chat_like

from rtc.compiler.cli import main

pytestmark = pytest.mark.no_reference

ROOT = Path(__file__).parent.parent
CHATS = Path(__file__).parent / "data" / "chat_templates"
PINNED = Path(__file__).parent / "data" / "lint_templates"
KEYS = ["code", "severity", "path", "message", "example", "suggestion"]


def run(*args: str, input: str | None = None, color: bool = False) -> Result:
    return CliRunner().invoke(main, ["lint", *args], input=input, color=color)


def write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


@pytest.fixture
def narrow(tmp_path: Path) -> Path:
    """A template with one error (a tool-name capture rejecting `get-weather`)."""
    calls = {
        "open_pattern": "<tool_call name=(?P<name>\\w+)>",
        "close": "</tool_call>",
        "repeats": True,
        "content": "json",
        "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
    }
    return write(tmp_path / "narrow.json", chat_like(tool_calls=calls))


def test_json_format_has_the_documented_shape(narrow: Path) -> None:
    result = run(str(narrow), "--format", "json")
    assert result.exit_code == 1, result.output
    payload = json.loads(result.output)
    assert payload["tools"] and payload["findings"]
    for finding in payload["findings"]:
        assert [k for k in finding if k != "source"] == KEYS
        assert finding["source"] == "narrow.json"
        if finding["example"] is not None:
            assert list(finding["example"]) == ["prefix", "text", "result"]
    codes = {(f["code"], f["severity"]) for f in payload["findings"]}
    assert ("narrow-tool-name", "error") in codes


def test_text_format_is_grouped_by_severity_and_plain_off_a_terminal(narrow: Path) -> None:
    result = run(str(narrow))
    assert result.exit_code == 1
    out = result.output
    assert "\x1b[" not in out
    assert out.index("  ERROR") < out.index("  INFO")
    assert "error[narrow-tool-name] fields.tool_calls.open_pattern" in out
    assert "suggestion: open_pattern" in out
    coloured = run(str(narrow), color=True).output
    assert "\x1b[31m" in coloured  # red for errors on a terminal


@pytest.mark.parametrize(("fail_on", "status"), [("error", 0), ("warning", 0), ("info", 1)])
def test_fail_on_sets_the_exit_status(tmp_path: Path, fail_on: str, status: int) -> None:
    clean = write(tmp_path / "clean.json", chat_like())  # info findings only
    assert run(str(clean), "--fail-on", fail_on).exit_code == status


def test_warnings_fail_with_fail_on_warning(tmp_path: Path) -> None:
    tpl = write(tmp_path / "t.json", chat_like(content={"close": "<|end|>"}))
    assert run(str(tpl)).exit_code == 0
    assert run(str(tpl), "--fail-on", "warning").exit_code == 1


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "bad.json:1:2: Expecting property name"),
        ('{"fields": {}, "start_anchor": "a"}', "fields: must be a non-empty object"),
        ('{"response_template": null}', "this tokenizer has no template"),
    ],
)
def test_unusable_input_is_one_line_and_exit_2(tmp_path: Path, content: str, expected: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    result = run(str(bad))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rtc: error: ") and expected in lines[0]
    assert run(str(tmp_path / "missing.json")).exit_code == 2


def test_all_lints_every_template_of_a_folder_and_baselines_accept_them(tmp_path: Path) -> None:
    folder = tmp_path / "catalogue"
    folder.mkdir()
    for name in ("qwen3", "llama3", "r1_distill"):
        shutil.copy(PINNED / f"{name}.json", folder)
    result = run("--all", str(folder), "--format", "json")
    assert result.exit_code == 1  # llama3 needs its end-of-turn token: an error
    sources = {f["source"] for f in json.loads(result.output)["findings"]}
    assert sources == {"qwen3.json", "llama3.json"}
    baseline = tmp_path / "baseline.json"
    assert run("--all", str(folder), "--write-baseline", str(baseline)).exit_code == 0
    accepted = json.loads(baseline.read_text(encoding="utf-8"))["accepted"]
    assert set(accepted) == {"qwen3.json", "llama3.json"}
    again = run("--all", str(folder), "--baseline", str(baseline), "--fail-on", "info")
    assert again.exit_code == 0 and "accepted finding(s)" in again.output
    accepted["qwen3.json"][0]["reason"] = "reviewed"  # reasons survive a regeneration
    baseline.write_text(json.dumps({"accepted": accepted}), encoding="utf-8")
    assert run("--all", str(folder), "--write-baseline", str(baseline)).exit_code == 0
    kept = json.loads(baseline.read_text(encoding="utf-8"))["accepted"]
    assert kept["qwen3.json"][0]["reason"] == "reviewed"
    assert all("reason" not in item for item in kept["llama3.json"])
    (folder / "r1_distill.json").write_text(json.dumps(chat_like()), encoding="utf-8")
    changed = run("--all", str(folder), "--baseline", str(baseline), "--fail-on", "info")
    assert changed.exit_code == 1 and "r1_distill.json" in changed.output


def test_tokenizer_config_and_folder_bring_their_chat_template(tmp_path: Path) -> None:
    template = json.loads((PINNED / "smollm3.json").read_text(encoding="utf-8"))
    chat = (CHATS / "smollm3_unsloth.jinja").read_text(encoding="utf-8")
    config = {"response_template": template, "chat_template": chat, "eos_token": "<|im_end|>"}
    path = write(tmp_path / "tokenizer_config.json", config)
    from_config = json.loads(run(str(path), "--format", "json").output)["findings"]
    assert any(f["code"] == "round-trip" for f in from_config)
    folder = tmp_path / "model"
    folder.mkdir()
    write(folder / "tokenizer_config.json", {"response_template": template})
    (folder / "chat_template.jinja").write_text(chat, encoding="utf-8")
    from_folder = json.loads(run(str(folder), "--format", "json").output)["findings"]
    assert from_folder == [dict(f, source="model") for f in from_config]
    plain = json.loads(run(str(PINNED / "smollm3.json"), "--format", "json").output)
    assert not any(f["code"] == "round-trip" for f in plain["findings"])
    given = run(
        str(PINNED / "smollm3.json"),
        "--chat-template",
        str(CHATS / "smollm3_unsloth.jinja"),
        "--format",
        "json",
    )
    assert any(f["code"] == "round-trip" for f in json.loads(given.output)["findings"])


def test_a_template_from_stdin(tmp_path: Path) -> None:
    result = run("-", "--format", "json", input=json.dumps(chat_like()))
    assert result.exit_code == 0
    assert json.loads(result.output)["findings"][0]["source"] == "-"


def test_pre_commit_hooks_run_rtc_check_and_rtc_lint() -> None:
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    by_id = {hook["id"]: hook for hook in hooks}
    assert by_id["rtc-check"]["entry"] == "rtc check"
    assert by_id["rtc-lint"]["entry"] == "rtc lint"
    for hook in hooks:
        assert hook["language"] == "python" and hook["name"]


def test_text_output_escapes_control_characters(tmp_path: Path) -> None:
    tpl = chat_like()
    tpl["fields"]["x\x1b[2J\nname"] = {"open": "<x\x9b>", "close": "</x>"}
    result = run(str(write(tmp_path / "t.json", tpl)), "--fail-on", "info")
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\x9b" not in result.output
    assert "\\x1b[2J\\nname" in result.output


# The README's example of real output: the command it names, run now, prints exactly its block.
README_EXAMPLE = re.compile(
    r"^On the catalogue's `\w+` \(`(?P<command>rtc lint [^`]+)`, exit status (?P<status>\d)\):\n"
    r"\n```text\n(?P<output>.*?)\n```$",
    re.M | re.S,
)


def test_readme_lint_example_is_todays_output(monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (example,) = README_EXAMPLE.finditer(readme)
    monkeypatch.chdir(ROOT)  # the command names generated/... relative to the repository
    result = CliRunner().invoke(main, shlex.split(example["command"])[1:])
    assert (result.output.rstrip("\n"), result.exit_code) == (
        example["output"],
        int(example["status"]),
    ), (
        f"README's `{example['command']}` example is stale: paste today's output (exit status "
        f"{result.exit_code}) into the block:\n{result.output}"
    )
