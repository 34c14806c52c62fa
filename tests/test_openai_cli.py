"""``rtc parse --openai``: the OpenAI message, or (``--stream``) one OpenAI delta per line;
problems and the finish reason on stderr; misuse is a usage error."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result
from openai_check import accumulate

from rtc.compiler.cli import main
from rtc.generated import qwen3

TEMPLATE = str(Path(__file__).resolve().parents[1] / "generated" / "qwen3.json")
TEXT = '<think>hm</think>Hi <tool_call>{"name": "f", "arguments": {"x": "3"}}</tool_call>'
TOOLS = [{"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}}}]


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, ["parse", TEMPLATE, "-", "--prefix", "", *args], input=input)


def test_message(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    result = run("--openai", "--tools", str(tools), input=TEXT)
    assert result.exit_code == 0, result.output
    message = json.loads(result.stdout)
    expected = qwen3.parse_openai(TEXT, prefix="", tools=TOOLS)[0]
    message["tool_calls"][0]["id"] = expected["tool_calls"][0]["id"]
    assert message == expected
    assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {"x": 3}
    assert result.stderr == "rtc: finish_reason: tool_calls\n"


def test_stream_prints_one_delta_per_line() -> None:
    result = run(
        "--openai", "--stream", "--chunk-size", "2", "--reasoning-key", "thinking", input=TEXT
    )
    assert result.exit_code == 0, result.output
    deltas = [json.loads(line) for line in result.stdout.splitlines()]
    assert deltas[:3] == [{"role": "assistant"}, {"thinking": "h"}, {"thinking": "m"}]
    message = accumulate(deltas)
    assert (message["content"], message["thinking"]) == ("Hi", "hm")
    assert message["tool_calls"][0]["function"]["name"] == "f"


def test_problems_go_to_stderr() -> None:
    result = run("--openai", input="<tool_call>{bad</tool_call>")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["content"] == "<tool_call>{bad</tool_call>"
    problem, reason = result.stderr.splitlines()
    assert problem.startswith("rtc: problem: ") and json.loads(problem[14:])["type"] == "rejected"
    assert reason == "rtc: finish_reason: stop"


def test_misuse() -> None:
    result = run("--reasoning-key", "x", input=TEXT)
    assert result.exit_code == 2 and "--reasoning-key only applies with --openai" in result.stderr
    result = run("--openai", "--reasoning-key", "content", input=TEXT)
    assert result.exit_code == 2 and result.stderr.startswith("rtc: error: parsing failed: ")
