"""``rtc parse --input``: JSONL and Parquet files, every option, bad records, atomic output.

The corpus (tool-calling generations of several families, ~1% malformed, a few bad records)
goes through one process and ``--workers 2``; every path must give, record by record and in
order, what ``parse_response`` gives for that record (errors by exception type).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from offline_helpers import (
    FAMILIES,
    comparable,
    expected,
    read_output,
    table_rows,
    write_corpus,
)

from rtc.compiler.cli import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

RTC = [sys.executable, "-m", "rtc.compiler.cli"]


def rtc(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("corpus")
    return {family: write_corpus(folder, family) for family in FAMILIES}


def _job(family: str, source: Path, output: Path, *more: str) -> tuple[int, str, str]:
    return rtc(
        "parse",
        "--catalogue",
        family,
        "--input",
        str(source),
        "--output",
        str(output),
        "--prefix-field",
        "prompt",
        "--tools-field",
        "tools",
        *more,
    )


def _to_parquet(source: Path, target: Path) -> None:
    """The corpus as Parquet: JSON records only, tools as JSON text (as datasets often hold it)."""
    pq.write_table(pa.Table.from_pylist(table_rows(source)), target, row_group_size=700)


@pytest.mark.parametrize("family", FAMILIES)
def test_jsonl_one_process_and_two_workers_equal_parse_response(
    family: str, corpora: dict[str, Path], tmp_path: Path
) -> None:
    want = [comparable(r) for r in expected(family, corpora[family])]
    kinds = [r["error"][0] for r in want if r["error"] is not None]
    assert kinds.count("RecordError") >= 5
    if family == "qwen3":  # its tool calls are strict JSON: malformed ones raise
        assert kinds.count("ValueError") >= 20
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}.jsonl"
        code, _, err = _job(
            family, corpora[family], out, "--workers", workers, "--batch-size", "300"
        )
        assert code == 0, err
        got = [comparable(r) for r in read_output(out)]
        assert got == want
        errors = sum(r["error"] is not None for r in want)
        assert f"{len(want):,} records out to {out}" in err
        assert f"{errors:,} errors" in err


def _expected_rows(family: str, source: Path) -> list[dict]:
    """What parse_response says for each row of a Parquet corpus (rows numbered from 1)."""
    from offline_helpers import _arguments_as_json

    from rtc import generated

    module = generated.get(family)
    want = []
    for row, record in enumerate(pq.read_table(source).to_pylist(), 1):
        if record["text"] is None:
            want.append({**record, "message": None, "error": ("RecordError", row)})
            continue
        tools = json.loads(record["tools"]) if record["tools"] else None
        try:
            message = module.parse_response(record["text"], prefix=record["prompt"], tools=tools)
            want.append({**record, "message": _arguments_as_json(message), "error": None})
        except Exception as exc:
            want.append({**record, "message": None, "error": (type(exc).__name__, row)})
    return [comparable(r, drop_nulls=True) for r in want]


def test_parquet_in_and_out_with_workers(corpora: dict[str, Path], tmp_path: Path) -> None:
    family = "qwen3"
    source = tmp_path / "in.parquet"
    _to_parquet(corpora[family], source)
    want = _expected_rows(family, source)
    assert sum("error" in r for r in want) >= 10
    for workers, name in (("1", "out.parquet"), ("2", "out2.parquet"), ("2", "out.jsonl")):
        out = tmp_path / name
        code, _, err = _job(family, source, out, "--workers", workers, "--batch-size", "256")
        assert code == 0, err
        assert [comparable(r, drop_nulls=True) for r in read_output(out)] == want


def test_jsonl_to_parquet_keeps_every_record_in_order(
    corpora: dict[str, Path], tmp_path: Path
) -> None:
    family = "mistral"
    out = tmp_path / "out.parquet"
    code, _, err = _job(family, corpora[family], out, "--batch-size", "64")
    assert code == 0, err
    got = [comparable(r, drop_nulls=True) for r in read_output(out)]
    want = [comparable(r, drop_nulls=True) for r in expected(family, corpora[family])]
    for record in want:  # a bad record's mistyped field does not fit its column: stored as null
        if not isinstance(record.get("text", ""), str):
            del record["text"]
    assert got == want


def test_bad_records_are_output_records_with_their_line(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    lines = [
        json.dumps({"id": 1, "text": "<think>a</think>b"}),
        "{not json",
        "",
        json.dumps({"id": 3}),
        json.dumps({"id": 4, "text": 7}),
        json.dumps(["a list"]),
        json.dumps({"id": 6, "text": "x", "tools": "not json"}),
        json.dumps({"id": 7, "text": "<tool_call>{</tool_call>"}),
        '{"id": 8, "text": "\xff"}',
    ]
    source.write_bytes("\n".join(lines).encode("utf-8").replace(b"\xc3\xbf", b"\xff") + b"\n")
    out = tmp_path / "out.jsonl"
    code, _, err = rtc(
        "parse", "--catalogue", "qwen3", "--input", str(source), "--output", str(out),
        "--prefix", "", "--tools-field", "tools",
    )  # fmt: skip
    assert code == 0, err
    got = read_output(out)
    assert [r.get("id") for r in got] == [1, None, 3, 4, None, 6, 7, None]
    assert got[0]["message"] == {"role": "assistant", "reasoning_content": "a", "content": "b"}
    kinds = [(r["error"]["type"], r["error"]["line"]) if r["error"] else None for r in got]
    assert kinds == [
        None,
        ("RecordError", 2),
        ("RecordError", 4),
        ("RecordError", 5),
        ("RecordError", 6),
        ("RecordError", 7),
        ("ValueError", 8),
        ("RecordError", 9),
    ]
    assert "no field 'text'" in got[2]["error"]["message"]
    assert "8 records out" in err and "7 errors (6 bad records)" in err


@pytest.mark.parametrize(
    ("make", "args", "message"),
    [
        (None, ["--input", "{d}/missing.jsonl"], "missing.jsonl: no such file"),
        ("text", ["--input", "{d}/fake.parquet"], "not a Parquet file"),
        ("parquet", ["--input", "{d}/in.parquet", "--text-field", "nope"], "no column 'nope'"),
        ("parquet", ["--input", "{d}/in.parquet", "--text-field", "id"], "holds int64"),
        (
            "jsonl",
            ["--input", "{d}/in.jsonl", "--output", "{d}/no/such/out.jsonl"],
            "does not exist",
        ),
        ("jsonl", ["--input", "{d}/out.jsonl"], "is the input"),
    ],
)
def test_an_unusable_file_is_one_error_and_exit_2(
    tmp_path: Path, make: str | None, args: list[str], message: str
) -> None:
    (tmp_path / "fake.parquet").write_text("not parquet")
    pq.write_table(pa.table({"id": [1], "text": ["a"]}), tmp_path / "in.parquet")
    (tmp_path / "in.jsonl").write_text('{"text": "a"}\n')
    out = tmp_path / "out.jsonl"
    out.write_text("old output\n")
    full = ["parse", "--catalogue", "qwen3", "--prefix", "", "--output", str(out)]
    code, _, err = rtc(*full, *[a.format(d=tmp_path) for a in args])
    assert code == 2
    assert err.startswith("rtc: error: ") and message in err and err.count("\n") == 1
    assert out.read_text() == "old output\n"  # untouched
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


@pytest.mark.parametrize(
    "args",
    [
        ["--input", "x.jsonl", "--prefix", ""],  # no --output
        ["--input", "x.jsonl", "--output", "y.jsonl"],  # no prefix
        ["--input", "x.jsonl", "--output", "y.jsonl", "--prefix", "", "--prefix-field", "p"],
        ["--input", "x.jsonl", "--output", "y.jsonl", "--prefix", "", "--stream"],
        ["--input", "x.jsonl", "--output", "y.jsonl", "--prefix", "", "--ray", "--workers", "2"],
    ],
)
def test_usage_mistakes(args: list[str]) -> None:
    code, _, err = rtc("parse", "--catalogue", "qwen3", *args)
    assert code == 2 and "Usage" in err


def test_template_file_as_the_parser_and_stdin_input(tmp_path: Path) -> None:
    template = tmp_path / "t.json"
    template.write_text(
        json.dumps({"start_anchor": "<a>", "fields": {"content": {"close": "</a>"}}})
    )
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        main,
        ["parse", str(template), "--input", "-", "--output", str(out), "--prefix", "<a>",
         "--text-field", "t"],
        input='{"t": "hi</a>"}\n{"t": "yo"}\n',
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert [r["message"] for r in read_output(out)] == [{"content": "hi"}, {"content": "yo"}]


@pytest.mark.parametrize(
    "fields, message",
    [
        (3, "t.json: fields: must be a non-empty object"),  # invalid where the reference says
        ({"content": {"content": []}}, "t.json: fields.content.content: unhashable"),  # TypeError
    ],
)
def test_an_invalid_template_file_is_one_error_naming_the_file(
    tmp_path: Path, fields: object, message: str
) -> None:
    template = tmp_path / "t.json"
    template.write_text(json.dumps({"fields": fields}))
    (tmp_path / "in.jsonl").write_text('{"text": "a"}\n')
    out = tmp_path / "out.jsonl"
    code, _, err = rtc(
        "parse", str(template), "--input", str(tmp_path / "in.jsonl"), "--output", str(out),
        "--prefix", "",
    )  # fmt: skip
    assert code == 2
    assert err.startswith("rtc: error: ") and message in err and err.count("\n") == 1, err
    assert not out.exists()


def _wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("big"), "qwen3", count=40_000)


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_leaves_no_output_and_says_how_far(
    big_corpus: Path, tmp_path: Path, workers: str, sig: signal.Signals
) -> None:
    source = big_corpus
    out = tmp_path / "out.parquet"
    out.write_bytes(b"previous run")
    # (PYTHONFAULTHANDLER: a job that does not stop is sent SIGABRT below, and every thread's
    # stack then goes to stderr, for the failure to show where it waited.)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"}
    process = subprocess.Popen(
        [*RTC, "parse", "--catalogue", "qwen3", "--input", str(source), "--output", str(out),
         "--prefix-field", "prompt", "--workers", workers, "--batch-size", "100"],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=tmp_path,
    )  # fmt: skip
    try:

        def writing() -> bool:
            return any(
                p.endswith(".tmp") and os.path.getsize(tmp_path / p) > 0
                for p in os.listdir(tmp_path)
            )

        assert _wait_for(writing, 60), "the job never started writing"
        process.send_signal(sig)
        try:
            _, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGABRT)
            _, err = process.communicate(timeout=30)
            pytest.fail(f"the job did not stop within 60 s of {sig.name}:\n{err.decode()}")
    finally:
        process.kill()
    text = err.decode()
    assert process.returncode == 130, text
    assert "rtc: error: interrupted after " in text and "no output written" in text
    assert "Traceback" not in text
    assert out.read_bytes() == b"previous run"
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_an_interrupt_outside_the_workers_shuts_them_down_before_returning(
    corpora: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race once seen with SIGINT and 2 workers, made deterministic: the interrupt lands in
    the writer, outside the code that hands batches to the pool. The pool must be shut down by
    then, here, not later by whichever thread collects what is left (that thread may be the
    pool's own, which cannot join itself)."""
    import multiprocessing

    from rtc.compiler.offline import files
    from rtc.compiler.offline.job import JobFailed
    from rtc.compiler.offline.output import BackgroundWriter
    from rtc.compiler.offline.parsers import ParserRef
    from rtc.compiler.offline.records import Fields

    writes = []
    write = BackgroundWriter.write

    def interrupted_write(self: BackgroundWriter, table: object) -> None:
        writes.append(table)
        if len(writes) == 2:
            raise KeyboardInterrupt  # as Ctrl-C would, in the main thread, between batches
        write(self, table)

    monkeypatch.setattr(BackgroundWriter, "write", interrupted_write)
    out = tmp_path / "out.parquet"
    out.write_bytes(b"previous run")
    with pytest.raises(JobFailed) as failed:
        files.run(
            str(corpora["qwen3"]), str(out), ParserRef.catalogue("qwen3"),
            Fields(prefix_field="prompt"), workers=2, batch_size=100,
        )  # fmt: skip
    assert failed.value.interrupted and "interrupted after 100 records" in str(failed.value)
    assert not multiprocessing.active_children()  # the workers are gone already
    assert out.read_bytes() == b"previous run"
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_an_interrupt_during_the_final_rename_does_not_undo_a_finished_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rtc.compiler.offline import files, output
    from rtc.compiler.offline.parsers import ParserRef
    from rtc.compiler.offline.records import Fields

    publish = output.publish

    def interrupted_publish(temporary: str, path: str) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C right as the output is put in place
        publish(temporary, path)

    monkeypatch.setattr(output, "publish", interrupted_publish)
    source = tmp_path / "in.jsonl"
    source.write_text('{"text": "<think>a</think>b"}\n')
    out = tmp_path / "out.jsonl"
    counts = files.run(
        str(source), str(out), ParserRef.catalogue("qwen3"), Fields(prefix=""), workers=1
    )
    assert counts.records == 1
    assert read_output(out)[0]["message"]["content"] == "b"


@pytest.mark.parametrize("batch_size", ["1", "10"])  # in two batches (two parts), in one batch
def test_fields_whose_types_conflict_are_refused_for_parquet(
    tmp_path: Path, batch_size: str
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"text": "a", "x": 1}\n{"text": "b", "x": "one"}\n')
    out = tmp_path / "out.parquet"
    common = ["parse", "--catalogue", "qwen3", "--input", str(source), "--prefix", ""]
    code, _, err = rtc(*common, "--output", str(out), "--batch-size", batch_size)
    assert code == 2 and "write a .jsonl output instead" in err and err.count("\n") == 1
    assert not out.exists() and not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    code, _, err = rtc(*common, "--output", str(tmp_path / "out.jsonl"))
    assert code == 0 and [r["x"] for r in read_output(tmp_path / "out.jsonl")] == [1, "one"]
