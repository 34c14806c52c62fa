"""The ``rtc`` command line: every command, every failure mode, and real subprocess runs.

Failures must be one ``rtc: error: …`` line on stderr, exit status 2, no traceback, and no output
file created or clobbered. Templates are small and inline so the suite runs on a clean clone.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner, Result

from rtc.compiler import compile_template, load
from rtc.compiler import sources as sources_module
from rtc.compiler.cli import main
from rtc.compiler.cli import parse as cli_module
from rtc.compiler.errors import SourceError
from rtc.compiler.sources import iter_text_chunks, read_template, read_text_file
from rtc.compiler.version import __version__

pytestmark = pytest.mark.no_reference

TEMPLATE: dict[str, Any] = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|assistant|>",
    "fields": {
        "reasoning_content": {"open": "<think>", "close": "</think>"},
        "tool_calls": {
            "open": "<tool_call>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close": "<|end|>"},
    },
}
OTHER_TEMPLATE: dict[str, Any] = {"start_anchor": "<a>", "fields": {"content": {"close": "</a>"}}}
TOOL_CALL = '<tool_call>{"name": "f", "arguments": {"n": "3"}}</tool_call>'
TEXT = "<think>hm</think>Héllo" + TOOL_CALL + "<|end|>"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}},
        },
    }
]
# What transformers 5.23.0 returns for TEXT (checked by hand against the reference).
MESSAGE = {
    "role": "assistant",
    "reasoning_content": "hm",
    "content": "Héllo",
    "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"n": "3"}}}],
}


def run(*args: str, input: str | bytes | None = None) -> Result:
    # catch_exceptions stays on: an escaping exception shows up as a non-SystemExit
    # `result.exception`, which assert_fails rejects.
    return CliRunner().invoke(main, list(args), input=input)


def assert_fails(result: Result, *fragments: str) -> str:
    """Exit status 2, exactly one `rtc: error:` line on stderr holding every fragment."""
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("rtc: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert "Traceback" not in result.stderr
    return lines[0]


def assert_usage_error(result: Result, fragment: str) -> None:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert fragment in result.stderr
    assert "Traceback" not in result.stderr


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


def write_text(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))  # bytes: no newline translation
    return path


def expected_module(template: dict[str, Any]) -> bytes:
    return compile_template(template).encode("utf-8")


def leftovers(folder: Path) -> list[str]:
    """Temporary files an atomic write could have left behind."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def template_file(tmp_path: Path) -> Path:
    return write_json(tmp_path / "t.json", TEMPLATE)


# --- rtc --version ---------------------------------------------------------------------------


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout == f"rtc {__version__}\n"


# --- rtc compile -----------------------------------------------------------------------------


def test_compile_to_stdout(template_file: Path) -> None:
    result = run("compile", str(template_file))
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes == expected_module(TEMPLATE)
    assert result.stderr == ""


def test_compile_to_file(tmp_path: Path, template_file: Path) -> None:
    out = tmp_path / "parser_t.py"
    result = run("compile", str(template_file), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert out.read_bytes() == expected_module(TEMPLATE)
    assert leftovers(tmp_path) == []


def test_compile_new_file_is_readable(tmp_path: Path, template_file: Path) -> None:
    # mkstemp makes 0600 files; a generated module must get ordinary permissions.
    umask = os.umask(0o022)
    try:
        out = tmp_path / "parser_t.py"
        assert run("compile", str(template_file), "-o", str(out)).exit_code == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_compile_replaces_existing_file_and_keeps_its_mode(
    tmp_path: Path, template_file: Path
) -> None:
    out = tmp_path / "parser_t.py"
    out.write_text("old\n")
    out.chmod(0o640)
    assert run("compile", str(template_file), "-o", str(out)).exit_code == 0
    assert out.read_bytes() == expected_module(TEMPLATE)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_compile_dash_output_is_stdout(template_file: Path) -> None:
    result = run("compile", str(template_file), "-o", "-")
    assert result.exit_code == 0
    assert result.stdout_bytes == expected_module(TEMPLATE)


def test_compile_from_stdin() -> None:
    result = run("compile", "-", input=json.dumps(TEMPLATE))
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes == expected_module(TEMPLATE)


def test_compile_tokenizer_config_file_and_folder(tmp_path: Path) -> None:
    config = write_json(
        tmp_path / "tokenizer_config.json",
        {"model_max_length": 4096, "response_template": TEMPLATE},
    )
    for source in (config, tmp_path):
        result = run("compile", str(source))
        assert result.exit_code == 0, result.stderr
        assert result.stdout_bytes == expected_module(TEMPLATE)


def test_compile_tokenizer_config_under_another_name(tmp_path: Path) -> None:
    # The heuristic is the key, not the file name.
    config = write_json(tmp_path / "qwen_config.json", {"response_template": TEMPLATE})
    result = run("compile", str(config))
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes == expected_module(TEMPLATE)


def test_compile_accepts_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(TEMPLATE).encode())
    result = run("compile", str(path))
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes == expected_module(TEMPLATE)


def test_compile_all(tmp_path: Path) -> None:
    write_json(tmp_path / "alpha.json", TEMPLATE)
    write_json(tmp_path / "beta.json", OTHER_TEMPLATE)
    (tmp_path / "notes.md").write_text("not a template\n")
    result = run("compile", "--all", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "alpha.py").read_bytes() == expected_module(TEMPLATE)
    assert (tmp_path / "beta.py").read_bytes() == expected_module(OTHER_TEMPLATE)
    assert sorted(p.name for p in tmp_path.glob("*.py")) == ["alpha.py", "beta.py"]
    assert leftovers(tmp_path) == []


def test_compile_all_writes_nothing_when_one_template_is_invalid(tmp_path: Path) -> None:
    write_json(tmp_path / "alpha.json", TEMPLATE)
    (tmp_path / "beta.py").write_text("old beta\n")
    write_json(tmp_path / "beta.json", {"start_anchor": "<a>", "fields": {}})
    assert_fails(run("compile", "--all", str(tmp_path)), "beta.json")
    assert not (tmp_path / "alpha.py").exists()
    assert (tmp_path / "beta.py").read_text() == "old beta\n"
    assert leftovers(tmp_path) == []


def test_compile_all_failures(tmp_path: Path) -> None:
    assert_fails(run("compile", "--all", str(tmp_path / "nope")), "nope: no such folder")
    assert_fails(run("compile", "--all", str(tmp_path)), "no NAME.json templates")
    assert_usage_error(run("compile", "--all", str(tmp_path), "-o", "x.py"), "drop -o")


# --- failures of compile: one line, exit 2, no file created or clobbered ----------------------


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """An existing output file that a failing compile must leave as it is."""
    path = tmp_path / "out" / "parser.py"
    path.parent.mkdir()
    path.write_text("previous module\n")
    return path


def assert_untouched(out: Path) -> None:
    assert out.read_text() == "previous module\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["parser.py"]


def test_missing_source(tmp_path: Path, out: Path) -> None:
    missing = tmp_path / "nope.json"
    assert_fails(run("compile", str(missing), "-o", str(out)), f"{missing}: no such file")
    assert_untouched(out)


def test_folder_without_tokenizer_config(tmp_path: Path, out: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    assert_fails(
        run("compile", str(folder), "-o", str(out)),
        f"{folder}: folder has no tokenizer_config.json",
    )
    assert_untouched(out)


def test_tokenizer_config_without_response_template(tmp_path: Path, out: Path) -> None:
    config = write_json(tmp_path / "tokenizer_config.json", {"model_max_length": 4096})
    assert_fails(
        run("compile", str(config), "-o", str(out)),
        f"{config}: no response_template key",
    )
    # Same through the folder that holds it.
    assert_fails(run("compile", str(tmp_path), "-o", str(out)), "no response_template key")
    assert_untouched(out)


@pytest.mark.parametrize(
    ("value", "fragment"),
    [(None, "response_template is null"), ("x", "must be a JSON object, got string")],
)
def test_tokenizer_config_with_unusable_response_template(
    tmp_path: Path, out: Path, value: Any, fragment: str
) -> None:
    config = write_json(tmp_path / "tokenizer_config.json", {"response_template": value})
    assert_fails(run("compile", str(config), "-o", str(out)), fragment)
    assert_untouched(out)


def test_malformed_json_names_line_and_column(tmp_path: Path, out: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "fields": {\n    "content" {}\n  }\n}\n')
    line = assert_fails(run("compile", str(path), "-o", str(out)))
    assert line == f"rtc: error: {path}:3:15: Expecting ':' delimiter"
    assert_untouched(out)


def test_malformed_json_from_stdin(out: Path) -> None:
    line = assert_fails(run("compile", "-", "-o", str(out), input="{"))
    assert line.startswith("rtc: error: <stdin>:1:2: ")
    assert_untouched(out)


def test_json_that_is_not_an_object(tmp_path: Path, out: Path) -> None:
    path = write_json(tmp_path / "list.json", [TEMPLATE])
    assert_fails(run("compile", str(path), "-o", str(out)), "expected a JSON object, got array")
    assert_untouched(out)


def test_deeply_nested_json(tmp_path: Path, out: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert_fails(run("compile", str(path), "-o", str(out)), "nested too deeply")
    assert_untouched(out)


def test_non_utf8_template_names_byte_offset(tmp_path: Path, out: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"start_anchor": "caf\xe9"}')
    assert_fails(run("compile", str(path), "-o", str(out)), "invalid UTF-8 at byte offset 21")
    assert_untouched(out)


def test_invalid_template_names_the_key(tmp_path: Path, out: Path) -> None:
    bad = json.loads(json.dumps(TEMPLATE))
    bad["fields"]["tool_calls"]["open_pattern"] = bad["fields"]["tool_calls"].pop("open") + "("
    path = write_json(tmp_path / "bad.json", bad)
    assert_fails(
        run("compile", str(path), "-o", str(out)),
        f"{path}: fields.tool_calls.open_pattern: ",
    )
    assert_untouched(out)


def test_template_type_error_names_the_key(tmp_path: Path, out: Path) -> None:
    # The reference raises TypeError here (an unhashable content parser name).
    bad = json.loads(json.dumps(TEMPLATE))
    bad["fields"]["content"]["content"] = ["text"]
    path = write_json(tmp_path / "bad.json", bad)
    assert_fails(run("compile", str(path), "-o", str(out)), f"{path}: fields.content")
    assert_untouched(out)


def test_invalid_template_in_tokenizer_config_names_both(tmp_path: Path, out: Path) -> None:
    bad = json.loads(json.dumps(TEMPLATE))
    bad["fields"]["tool_calls"]["open_pattern"] = bad["fields"]["tool_calls"].pop("open") + "("
    config = write_json(tmp_path / "tokenizer_config.json", {"response_template": bad})
    assert_fails(
        run("compile", str(tmp_path), "-o", str(out)),
        f"{config} (response_template): fields.tool_calls.open_pattern: ",
    )
    assert_untouched(out)


def test_message_with_control_characters_stays_on_one_line(tmp_path: Path, out: Path) -> None:
    # Field names are untrusted: a newline or escape sequence must not reach stderr raw.
    bad = {"start_anchor": "<a>", "fields": {"x\n\x1b[31m": {"open": "<b>", "content": "nope"}}}
    path = write_json(tmp_path / "bad.json", bad)
    line = assert_fails(run("compile", str(path), "-o", str(out)), "\\n\\x1b[31m")
    assert "\x1b" not in line
    assert_untouched(out)


def test_output_folder_missing(tmp_path: Path, template_file: Path) -> None:
    target = tmp_path / "no" / "such" / "parser.py"
    assert_fails(
        run("compile", str(template_file), "-o", str(target)),
        f"{target}: cannot write: folder {target.parent} does not exist",
    )
    assert not (tmp_path / "no").exists()


def test_output_folder_is_a_file(tmp_path: Path, template_file: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert_fails(
        run("compile", str(template_file), "-o", str(blocker / "parser.py")),
        "is not a folder",
    )


def test_output_is_a_folder(tmp_path: Path, template_file: Path) -> None:
    folder = tmp_path / "parser.py"
    folder.mkdir()
    assert_fails(run("compile", str(template_file), "-o", str(folder)), "cannot write")
    assert folder.is_dir() and list(folder.iterdir()) == []
    assert leftovers(tmp_path) == []


def test_output_folder_not_writable(
    tmp_path: Path, template_file: Path, out: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out.parent.chmod(0o500)
    try:
        # Probe rather than test for root: what counts is whether permissions are enforced here.
        try:
            (out.parent / "probe").touch()
        except PermissionError:
            pass
        else:
            # Root ignores the mode bits (CI runs as root): make creating the temporary file
            # fail the way the kernel would for another user.
            (out.parent / "probe").unlink()

            def refuse(*args: object, **kwargs: object) -> None:
                raise PermissionError(13, "Permission denied")

            monkeypatch.setattr(tempfile, "mkstemp", refuse)
        assert_fails(
            run("compile", str(template_file), "-o", str(out)),
            f"{out}: cannot write: Permission denied",
        )
    finally:
        out.parent.chmod(0o700)
    assert_untouched(out)


def test_failed_replace_leaves_old_file_and_no_temporary(
    template_file: Path, out: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Works as root too: the write fails at the last step, after the temporary file exists.
    def refuse(src: str, dst: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    assert_fails(
        run("compile", str(template_file), "-o", str(out)),
        f"{out}: cannot write: Permission denied",
    )
    assert_untouched(out)


# --- rtc check -------------------------------------------------------------------------------


def test_check_up_to_date(tmp_path: Path, template_file: Path) -> None:
    generated = tmp_path / "t.py"
    generated.write_bytes(expected_module(TEMPLATE))
    result = run("check", str(template_file), str(generated))
    assert result.exit_code == 0, result.stdout
    assert result.stdout == result.stderr == ""


def test_check_stale_prints_a_diff(tmp_path: Path, template_file: Path) -> None:
    generated = tmp_path / "t.py"
    generated.write_bytes(expected_module(TEMPLATE) + b"# edited by hand\n")
    result = run("check", str(template_file), str(generated))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == f"stale: {generated}"
    assert lines[1] == f"--- {generated}"
    assert lines[2] == f"+++ {generated} (rtc compile {template_file})"
    assert "-# edited by hand" in lines
    assert not [line for line in lines[3:] if line.startswith("+") and not line.startswith("+++")]


def test_check_reports_a_missing_final_newline(tmp_path: Path, template_file: Path) -> None:
    generated = tmp_path / "t.py"
    generated.write_bytes(expected_module(TEMPLATE).rstrip(b"\n"))
    result = run("check", str(template_file), str(generated))
    assert result.exit_code == 1
    assert "\\ No newline at end of file" in result.stdout


def test_check_missing_generated(tmp_path: Path, template_file: Path) -> None:
    generated = tmp_path / "t.py"
    result = run("check", str(template_file), str(generated))
    assert result.exit_code == 1
    assert result.stdout.startswith(f"missing: {generated}")


def test_check_several_pairs(tmp_path: Path) -> None:
    a_json = write_json(tmp_path / "a.json", TEMPLATE)
    b_json = write_json(tmp_path / "b.json", OTHER_TEMPLATE)
    a_py, b_py = tmp_path / "a.py", tmp_path / "b.py"
    a_py.write_bytes(expected_module(TEMPLATE))
    b_py.write_bytes(expected_module(OTHER_TEMPLATE))
    assert run("check", str(a_json), str(a_py), str(b_json), str(b_py)).exit_code == 0
    b_py.write_bytes(expected_module(TEMPLATE))  # the wrong template's module
    result = run("check", str(a_json), str(a_py), str(b_json), str(b_py))
    assert result.exit_code == 1
    assert f"stale: {b_py}" in result.stdout
    assert f"stale: {a_py}" not in result.stdout


def test_check_needs_pairs(template_file: Path) -> None:
    assert_usage_error(run("check", str(template_file)), "SOURCE GENERATED pairs")
    assert_usage_error(run("check"), "Missing argument")


def test_check_invalid_template_is_an_error_not_drift(tmp_path: Path) -> None:
    path = write_json(tmp_path / "bad.json", {"fields": {}})
    (tmp_path / "bad.py").write_text("x\n")
    assert_fails(run("check", str(path), str(tmp_path / "bad.py")), f"{path}: ")


def test_check_generated_unreadable(tmp_path: Path, template_file: Path) -> None:
    folder = tmp_path / "t.py"
    folder.mkdir()
    assert_fails(run("check", str(template_file), str(folder)), f"{folder}: cannot read")


def test_check_all(tmp_path: Path) -> None:
    write_json(tmp_path / "alpha.json", TEMPLATE)
    write_json(tmp_path / "beta.json", OTHER_TEMPLATE)
    (tmp_path / "__init__.py").write_text('"""Generated."""\n')
    (tmp_path / "helpers.py").write_text("# hand-written, not a parser\n")
    assert run("compile", "--all", str(tmp_path)).exit_code == 0
    result = run("check", "--all", str(tmp_path))
    assert result.exit_code == 0, result.stdout
    assert result.stdout == ""

    # An orphan: a generated parser whose template is gone.
    shutil.copy(tmp_path / "beta.py", tmp_path / "gamma.py")
    # Stale and missing.
    with open(tmp_path / "alpha.py", "a") as stream:
        stream.write("# edited\n")
    (tmp_path / "beta.py").unlink()
    result = run("check", "--all", str(tmp_path))
    assert result.exit_code == 1
    problems = [
        line
        for line in result.stdout.splitlines()
        if line.startswith(("stale: ", "missing: ", "orphan: "))
    ]
    assert problems == [
        f"stale: {tmp_path / 'alpha.py'}",
        f"missing: {tmp_path / 'beta.py'} (rtc compile {tmp_path / 'beta.json'} -o "
        f"{tmp_path / 'beta.py'})",
        f"orphan: {tmp_path / 'gamma.py'} (no {tmp_path / 'gamma.json'})",
    ]
    assert "-# edited" in result.stdout
    assert "helpers.py" not in result.stdout and "__init__.py" not in result.stdout


def test_check_all_failures(tmp_path: Path) -> None:
    assert_fails(run("check", "--all", str(tmp_path / "nope")), "no such folder")
    assert_usage_error(run("check", "--all", str(tmp_path), str(tmp_path)), "exactly one folder")


# --- rtc parse -------------------------------------------------------------------------------


def test_parse_prints_the_message(template_file: Path, tmp_path: Path) -> None:
    text = write_text(tmp_path / "out.txt", TEXT)
    result = run("parse", str(template_file), str(text), "--prefix", "<|assistant|>")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == json.dumps(MESSAGE, ensure_ascii=True) + "\n"
    assert "\\u00e9" in result.stdout  # ensure_ascii


def test_parse_reads_stdin_by_default(template_file: Path) -> None:
    for args in ([], ["-"]):
        result = run("parse", str(template_file), *args, "--prefix", "", input=TEXT)
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout) == MESSAGE


def test_parse_prefix_file(template_file: Path, tmp_path: Path) -> None:
    # The prefix pre-opens the reasoning region: the text starts inside it.
    prefix = write_text(tmp_path / "prefix.txt", "<|system|>be brief\r\n<|assistant|><think>")
    result = run("parse", str(template_file), "--prefix-file", str(prefix), input="hmm")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"role": "assistant", "reasoning_content": "hmm"}


def test_parse_with_tools_coerces_arguments(template_file: Path, tmp_path: Path) -> None:
    tools = write_json(tmp_path / "tools.json", TOOLS)
    result = run("parse", str(template_file), "--prefix", "", "--tools", str(tools), input=TEXT)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["tool_calls"][0]["function"]["arguments"] == {"n": 3}


def test_parse_stream(template_file: Path) -> None:
    prefix = "<|assistant|><think>"
    text = "ab</think>x"
    result = run(
        "parse", str(template_file), "--prefix", prefix, "--stream", "--chunk-size", "6", input=text
    )
    assert result.exit_code == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    # Replay the same feeds through the API: the CLI must print exactly these, in order.
    parser = load(TEMPLATE).ResponseParser(prefix)
    expected = list(parser.initial_events)
    for chunk in ("ab</th", "ink>x"):
        expected += parser.feed(chunk)
    message, final_events = parser.finalize()
    assert lines == [*expected, *final_events, message]
    assert lines[0] == {"type": "region_open", "field": "reasoning_content"}
    assert lines[-1] == {"role": "assistant", "reasoning_content": "ab", "content": "x"}


def test_parse_stream_message_does_not_depend_on_chunk_size(template_file: Path) -> None:
    last_lines = set()
    for size in ("1", "7", "64", "100000"):
        args = ["--prefix", "", "--stream", "--chunk-size", size]
        result = run("parse", str(template_file), *args, input=TEXT)
        assert result.exit_code == 0, result.stderr
        last_lines.add(result.stdout.splitlines()[-1])
    assert [json.loads(line) for line in last_lines] == [MESSAGE]


def test_parse_stream_default_chunks_are_64_characters(template_file: Path) -> None:
    text = "x" * 150
    result = run("parse", str(template_file), "--prefix", "", "--stream", input=text)
    assert result.exit_code == 0, result.stderr
    chunks = [
        event["text"]
        for event in map(json.loads, result.stdout.splitlines()[:-1])
        if event.get("type") == "region_chunk"
    ]
    assert [len(chunk) for chunk in chunks] == [64, 64, 22]


def test_parse_usage_errors(template_file: Path, tmp_path: Path) -> None:
    prefix = write_text(tmp_path / "prefix.txt", "")
    source = str(template_file)
    assert_usage_error(run("parse", source, input=TEXT), "--prefix")
    assert_usage_error(
        run("parse", source, "--prefix", "", "--prefix-file", str(prefix), input=TEXT), "--prefix"
    )
    assert_usage_error(
        run("parse", source, "--prefix", "", "--chunk-size", "8", input=TEXT), "--stream"
    )
    assert_usage_error(
        run("parse", source, "--prefix", "", "--stream", "--chunk-size", "0", input=TEXT),
        "--chunk-size",
    )
    assert_usage_error(
        run("parse", source, "-", "--prefix-file", "-", input=TEXT), "FILE and --prefix-file"
    )
    assert_usage_error(run("parse", "-", "--prefix", "", input=TEXT), "SOURCE and FILE")


def test_parse_invalid_utf8_names_byte_offset(template_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    path.write_bytes("héllo".encode() + b"\xff rest")
    for stream in ([], ["--stream"]):
        assert_fails(
            run("parse", str(template_file), str(path), "--prefix", "", *stream),
            f"{path}: invalid UTF-8 at byte offset 6",
        )


def test_parse_invalid_utf8_offset_across_reads(template_file: Path) -> None:
    # Big enough for several reads, with a multi-byte character cut by a read boundary.
    data = b"a" * 65535 + "é".encode() + b"b" * 70000 + b"\xc3\x28"
    offset = 65535 + 2 + 70000
    result = run("parse", str(template_file), "--prefix", "", "--stream", input=data)
    line = assert_fails(result, f"<stdin>: invalid UTF-8 at byte offset {offset}")
    assert "invalid continuation byte" in line


def test_parse_invalid_utf8_in_prefix_file(template_file: Path, tmp_path: Path) -> None:
    prefix = tmp_path / "prefix.txt"
    prefix.write_bytes(b"ok\x80")
    assert_fails(
        run("parse", str(template_file), "--prefix-file", str(prefix), input=TEXT),
        f"{prefix}: invalid UTF-8 at byte offset 2",
    )


def test_parse_missing_input_files(template_file: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    source = str(template_file)
    assert_fails(run("parse", source, str(missing), "--prefix", ""), f"{missing}: no such file")
    assert_fails(
        run("parse", source, "--prefix", "", "--stream", str(missing)), f"{missing}: no such file"
    )
    assert_fails(
        run("parse", source, "--prefix-file", str(missing), input=TEXT), f"{missing}: no such file"
    )
    assert_fails(
        run("parse", source, "--prefix", "", "--tools", str(missing), input=TEXT),
        f"{missing}: no such file",
    )
    assert_fails(run("parse", source, str(tmp_path), "--prefix", ""), "is a folder")


def test_parse_bad_tools(template_file: Path, tmp_path: Path) -> None:
    source = str(template_file)
    not_a_list = write_json(tmp_path / "tools.json", {"tools": TOOLS})
    assert_fails(
        run("parse", source, "--prefix", "", "--tools", str(not_a_list), input=TEXT),
        f"{not_a_list}: tools must be a JSON array",
    )
    malformed = write_text(tmp_path / "bad.json", "[{]")
    assert_fails(
        run("parse", source, "--prefix", "", "--tools", str(malformed), input=TEXT),
        f"{malformed}:1:3: ",
    )


def test_parse_invalid_template(tmp_path: Path) -> None:
    path = write_json(tmp_path / "bad.json", {"fields": {"content": {}}})
    assert_fails(run("parse", str(path), "--prefix", "", input=TEXT), f"{path}: ")


def test_parse_failure_of_the_parser(template_file: Path) -> None:
    text = "<tool_call>{bad</tool_call>"
    for stream in ([], ["--stream"]):
        result = run("parse", str(template_file), "--prefix", "", *stream, input=text)
        assert_fails(result, "rtc: error: parsing failed: ValueError: ")


def test_parse_failure_message_is_kept_on_one_line(
    template_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # transformers' own messages span lines (the JSON error quotes the region on the next one).
    class Parser:
        def __init__(self, prefix: str, *, tools: list | None = None) -> None:
            raise ValueError("first line\nsecond line")

    def parse_response(text: str, *, prefix: str, tools: list | None = None) -> dict:
        raise ValueError("first line\nsecond line")

    module = SimpleNamespace(ResponseParser=Parser, parse_response=parse_response)
    monkeypatch.setattr(cli_module, "load", lambda template: module)
    for stream in ([], ["--stream"]):
        result = run("parse", str(template_file), "--prefix", "", *stream, input="x")
        line = assert_fails(result)
        assert line == "rtc: error: parsing failed: ValueError: first line\\nsecond line"


# --- sources ---------------------------------------------------------------------------------


def test_read_template_display_names(tmp_path: Path, template_file: Path) -> None:
    assert read_template(str(template_file)) == (TEMPLATE, str(template_file))
    write_json(tmp_path / "tokenizer_config.json", {"response_template": TEMPLATE})
    config = str(tmp_path / "tokenizer_config.json")
    assert read_template(str(tmp_path)) == (TEMPLATE, f"{config} (response_template)")


def test_read_text_file_keeps_line_endings(tmp_path: Path) -> None:
    path = write_text(tmp_path / "crlf.txt", "a\r\nb\rc\n")
    assert read_text_file(str(path)) == "a\r\nb\rc\n"


def test_iter_text_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tiny reads cut every multi-byte character: chunks still count characters.
    monkeypatch.setattr(sources_module, "_READ_SIZE", 1)
    path = write_text(tmp_path / "t.txt", "héllo wörld €")
    assert list(iter_text_chunks(str(path), 4)) == ["héll", "o wö", "rld ", "€"]
    assert list(iter_text_chunks(str(write_text(tmp_path / "e.txt", "")), 4)) == []
    bad = tmp_path / "bad.txt"
    bad.write_bytes("ab€".encode()[:-1] + b"x")
    with pytest.raises(SourceError, match="byte offset 2: invalid continuation byte"):
        list(iter_text_chunks(str(bad), 4))
    bad.write_bytes("ab€".encode()[:-1])
    with pytest.raises(SourceError, match="byte offset 2: unexpected end of data"):
        list(iter_text_chunks(str(bad), 4))


# --- real processes --------------------------------------------------------------------------


def test_subprocess_module_entry_point(tmp_path: Path, template_file: Path) -> None:
    out = tmp_path / "parser_t.py"
    command = [sys.executable, "-m", "rtc.compiler.cli"]
    done = subprocess.run(
        [*command, "compile", str(template_file), "-o", str(out)], capture_output=True
    )
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == expected_module(TEMPLATE)

    done = subprocess.run([*command, "check", str(template_file), str(out)], capture_output=True)
    assert done.returncode == 0, done.stdout

    done = subprocess.run(
        [*command, "compile", str(tmp_path / "nope.json"), "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"rtc: error: {tmp_path / 'nope.json'}: no such file\n"
    assert out.read_bytes() == expected_module(TEMPLATE)


def test_subprocess_console_script(tmp_path: Path, template_file: Path) -> None:
    # The script installed beside this interpreter first: PATH may lead to another install.
    rtc = shutil.which("rtc", path=os.path.dirname(sys.executable)) or shutil.which("rtc")
    if rtc is None:
        pytest.skip("the rtc console script is not installed (pip install -e .)")
    done = subprocess.run([rtc, "--version"], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout == f"rtc {__version__}\n"

    done = subprocess.run(
        [rtc, "parse", str(template_file), "-", "--prefix", "", "--stream", "--chunk-size", "5"],
        input=TEXT.encode(),
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == MESSAGE

    done = subprocess.run(
        [rtc, "parse", str(template_file), "--prefix", ""],
        input=b"<tool_call>{bad</tool_call>",
        capture_output=True,
        text=False,
    )
    assert done.returncode == 2
    stderr = done.stderr.decode()
    assert stderr.startswith("rtc: error: parsing failed: ValueError: ")
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
