"""``rtc bench``: smoke tests of the command and the function API.

Only the structure of what is reported is checked, never a time or a ratio: timings depend on the
machine and its load. Runs use --quick and one or two workloads to stay within seconds.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rtc.compiler import bench
from rtc.compiler.cli import main

TEMPLATE: dict[str, Any] = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|assistant|>",
    "fields": {
        "reasoning_content": {"open": "<think>", "close": "</think>"},
        "tool_calls": {
            "open_pattern": r"<tool_call>(?P<name>\w+)\n?",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {
                "type": "function",
                "function": {"name": "{name}", "arguments": "{content}"},
            },
        },
        "content": {"close_pattern": r"\s*<\|end\|>"},
    },
}

SIDE_KEYS = {"status", "us", "min_us", "median_us", "op_us", "mb_s", "samples", "number"}


def _has_reference() -> bool:
    return bench.load_reference() is not None


@pytest.fixture(scope="module")
def template_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bench") / "tiny.json"
    path.write_text(json.dumps(TEMPLATE), encoding="utf-8")
    return path


def _check_run(run: dict[str, Any], reference: bool) -> None:
    assert run["mode"] in ("one-shot", "stream")
    assert set(run) >= {"mode", "chunk", "chunks", "rtc", "speedup", "speedup_loaded"}
    assert set(run["rtc"]) == SIDE_KEYS and run["rtc"]["status"] == "ok"
    if run["mode"] == "stream":
        assert run["chunk"] in (3, 16)
        assert set(run["floor"]) == SIDE_KEYS
        assert run["floor_ratio"] is not None
    else:
        assert run["chunk"] is None and "floor" not in run
    if reference:
        assert run["reference"]["status"] == "ok"
        assert run["speedup"] is not None
    else:
        assert "reference" not in run and run["speedup"] is None


def test_cli_quick_table_and_json(template_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    args = ["bench", "--quick", str(template_file), "--workload", "short"]
    result = CliRunner().invoke(main, [*args, "--workload", "tools-4", "--json", str(out)])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "== tiny" in text
    assert "construction (" in text
    assert "Summary (median over templates" in text
    # The summary shows the metrics this run measured, each with its target; the JSON has all.
    assert "one-shot short speedup (vs from-dict)" in text and "≥12.0x" in text
    assert "one-shot tool calls, all prompt shapes" not in text
    assert "rtc bench: [1/1] tiny: short" in result.stderr

    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report) == {
        "rtc_version",
        "reference_version",
        "python",
        "platform",
        "config",
        "templates",
        "summary",
    }
    reference = report["reference_version"] is not None
    assert reference == _has_reference()
    assert report["config"]["quick"] is True
    (record,) = report["templates"]
    assert record["name"] == "tiny"
    assert set(record) >= {"notes", "skipped", "workloads", "construction", "linearity"}
    assert [w["name"] for w in record["workloads"]] == ["short", "tools-4"]
    for workload in record["workloads"]:
        assert set(workload) >= {"name", "description", "chars", "bytes", "runs"}
        assert "mismatch" not in workload
        modes = [r["mode"] for r in workload["runs"]]
        assert modes == ["one-shot", "stream", "stream", "deltas"]
        for run in workload["runs"][:-1]:
            _check_run(run, reference)
        deltas = workload["runs"][-1]
        assert deltas["chunk"] == 3 and deltas["deltas_over_rtc"] is not None
        assert deltas["rtc"]["status"] == deltas["deltas"]["status"] == "ok"
        assert (deltas["speedup"] is not None) == reference
    assert "OpenAI deltas, short in 3-char chunks: ResponseParser" in text
    construction = record["construction"]
    assert construction["rtc"]["status"] == "ok"
    assert construction["prompt_chars"] > 1000
    if reference:
        assert construction["reference_dict"]["status"] == "ok"
        assert construction["reference_loaded"]["status"] == "ok"
    summary = report["summary"]
    assert set(summary) == {
        "metrics",
        "per_template",
        "rtc_failed",
        "worst",
        "calls",
        "large_exceptions",
        "regions",
    }
    keys = [m["key"] for m in summary["metrics"]]
    assert set(bench.TARGETS) <= set(keys)
    for metric in summary["metrics"]:
        assert set(metric) >= {
            "key",
            "label",
            "median",
            "templates",
            "comparison",
            "target",
            "pass",
            "statistic",
        }


def test_cli_json_to_stdout(template_file: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["bench", "--quick", "--no-reference", "-q", "--clock", "cpu", "--workload", "short"]
        + [str(template_file), "--json"],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["reference_version"] is None
    assert report["config"]["clock"] == "cpu"
    assert result.stderr == ""


def test_cli_needs_one_source(template_file: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["bench"]).exit_code == 2
    assert runner.invoke(main, ["bench", "--catalogue", str(template_file)]).exit_code == 2


def test_cli_errors_are_one_line(template_file: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"start_anchor": "<a>", "fields": {}}), encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(main, ["bench", "--quick", str(bad)])
    assert result.exit_code == 2
    assert result.stderr.startswith("rtc: error: ") and result.stderr.count("\n") == 1
    result = runner.invoke(main, ["bench", "--quick", "--workload", "nope", str(template_file)])
    assert result.exit_code == 2 and "unknown workload nope" in result.stderr


def test_cli_never_writes_the_report_over_the_template(template_file: Path) -> None:
    before = template_file.read_text(encoding="utf-8")
    runner = CliRunner()
    # --json takes a FILE: here the template would be read as the report's path.
    assert runner.invoke(main, ["bench", "--quick", "--json", str(template_file)]).exit_code == 2
    result = runner.invoke(main, ["bench", str(template_file), "--json", str(template_file)])
    assert result.exit_code == 2
    assert "refusing to write the JSON report over a benchmarked template" in result.stderr
    assert template_file.read_text(encoding="utf-8") == before


def test_function_api_without_reference() -> None:
    config = replace(
        bench.QUICK, reference=False, sizes=(1024, 2048), chunk_sizes=(3,), abuse=False, regions=()
    )
    report = bench.run_benchmark([("tiny", TEMPLATE)], config)
    (record,) = report["templates"]
    names = [w["name"] for w in record["workloads"]]
    assert names[:4] == ["short", "reasoning-1k", "reasoning-2k", "tools-4"]
    assert names[4:] == [f"call-{n}:{s}" for n in (1, 2) for s in ("prompt", "empty", "prefill")]
    linearity = record["linearity"]
    assert linearity["sizes"] == [1024, 2048]
    assert set(linearity["by_chunk"]["3"]) == {"rtc", "reference"}
    assert linearity["by_chunk"]["3"]["reference"] is None
    assert set(linearity["interleaved"]) == {"chunk", "rtc", "reference"}
    assert linearity["interleaved"]["rtc"] is not None
    assert report["summary"]["per_template"]["tiny"]["linearity"] is not None
    table = bench.format_report(report)
    assert "measured again interleaved" in table and "Summary" in table
    assert report["summary"]["per_template"]["tiny"]["deltas_over_rtc"] is None  # no 16k
    plain = replace(config, deltas=False, sizes=(1024,))
    without = bench.run_benchmark([("tiny", TEMPLATE)], plain)
    modes = {r["mode"] for w in without["templates"][0]["workloads"] for r in w["runs"]}
    assert modes == {"one-shot", "stream"}


def test_function_api_abuse_structure() -> None:
    config = replace(
        bench.QUICK,
        reference=False,
        abuse=True,
        workloads=("short",),
        abuse_run=replace(
            bench.QUICK.abuse_run, size=65536, small=16384, segment=1024, char_budget=0.05
        ),
        looping_size=200,
        looping_budget=5.0,
    )
    record = bench.bench_template("tiny", TEMPLATE, config)
    abuse = record["abuse"]
    assert abuse["region"] == "reasoning_content"
    assert abuse["flood_char"] == "<"
    assert set(abuse["stream"]["rtc"]) == {
        "status",
        "us_per_chunk",
        "mb_s",
        "first_chunk_us",
        "finalize_us",
        "last_over_first",
    }
    assert set(abuse["chars"]["rtc"]) == {"first", "last", "last_over_first"}
    assert set(abuse["flood"]["rtc"]) == {"small", "big", "big_over_small"}
    # Looping generations: every fragment of the template repeated, at two sizes.
    looping = abuse["looping"]
    assert {e["fragment"] for e in looping["fragments"]} >= {"<think>", "</think> x "}
    for entry in looping["fragments"]:
        assert entry["chars"][1] > 3 * entry["chars"][0]
        assert {"status", "small_us", "big_us", "growth"} <= set(entry["stream"])
    assert set(looping["worst"]) == {"one-shot", "stream", "fed-whole"}
    table = _table([record], bench.summarize([record], config))
    assert "abuse (" in table and "looping generations (" in table
    assert "looping generation, 4x the text" in table


def _table(records: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    """The human-readable report of records benchmarked by the function API."""
    report = {
        "rtc_version": "x",
        "reference_version": None,
        "python": "3",
        "config": {"quick": True, "statistic": "min"},
        "templates": records,
        "summary": summary,
    }
    return bench.format_report(report)


def test_pattern_samples_verified_and_in_context() -> None:
    samples, in_place = bench.pattern_samples(
        r"<tool_call>(?P<name>\S+)\n?", lambda group: ["get_weather"] if group == "name" else []
    )
    assert samples[0] == "<tool_call>get_weather\n" and not in_place
    samples, in_place = bench.pattern_samples(r"(?=[\s\S]*?</think>)")
    assert samples == [""] and in_place
    # Constructs only the `regex` module has are sampled (a property class, a DEFINE group
    # called by a look-ahead over what follows); one the sampler does not model (\X, a
    # grapheme of one or more characters) gives no sample, so the workload is skipped.
    assert bench.pattern_samples(r"\p{L}+<x>") == (["a<x>"], False)
    samples, in_place = bench.pattern_samples(r"<c>(?=(?&v))(?(DEFINE)(?P<v>\{\}))")
    assert samples == ["<c>"] and in_place
    assert bench.pattern_samples(r"\X+<x>") == ([], False)


def test_underivable_delimiter_skips_workloads() -> None:
    template = json.loads(json.dumps(TEMPLATE))
    template["fields"]["reasoning_content"] = {"open_pattern": r"\X+:", "close": "</think>"}
    plan = bench.plan_template(template)
    workloads, skipped = bench.build_workloads(plan, replace(bench.QUICK, sizes=(1024,)))
    assert workloads == []
    assert {s["workload"] for s in skipped} == {"short", "reasoning-1k", "tools-4"} | {
        f"call-{n}:{s}" for n in (1, 2) for s in ("prompt", "empty", "prefill")
    }
    assert all(
        "no sample string" in s["reason"] or "nothing to prefill" in s["reason"] for s in skipped
    )


def test_measure_reports_a_timeout() -> None:
    def prepare(number: int) -> Any:
        return lambda: time.sleep(5)

    config = replace(bench.QUICK, hard_cap=10.0)
    results = bench.measure({"slow": (prepare, 0.05)}, config, time.monotonic() + 10)
    assert results["slow"].status == "timeout"
    assert results["slow"].value("min") is None


def test_catalogue_sources_found() -> None:
    sources = bench.catalogue_sources()
    assert sources and all(path.suffix == ".json" for path in sources)
    live = bench.catalogue_sources(live=True)
    assert live and all(path.suffix == ".json" for path in live)


def test_benchmark_templates_are_frozen() -> None:
    """The bench's own 16 templates are the ones the tool-call targets were set on (byte copies of
    the catalogue at that time): they must not move when the catalogue changes."""
    sources = bench.catalogue_sources()
    assert [p.stem for p in sources] == [
        "cohere",
        "deepseek_v4",
        "ernie",
        "gemma4",
        "glm4_moe",
        "gpt_oss",
        "granite4",
        "lfm2_5",
        "llama3",
        "mistral",
        "nemotron3",
        "qwen3",
        "qwen3_5",
        "qwen3_coder",
        "r1_distill",
        "smollm3",
    ]
    sums = (sources[0].parent / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    recorded = dict(reversed(line.split("  ")) for line in sums)
    for path in sources:
        assert hashlib.sha256(path.read_bytes()).hexdigest() == recorded[path.name], path.name


def test_short_tool_calls_under_every_prompt_shape() -> None:
    """call-N:shape workloads: one-shot only, each with its own prefix, pooled in the summary."""
    config = replace(bench.QUICK, workloads=("call-1", "call-2:prefill"), abuse=False)
    record = bench.bench_template("tiny", TEMPLATE, config, reference=bench.load_reference())
    names = [w["name"] for w in record["workloads"]]
    assert names == ["call-1:prompt", "call-1:empty", "call-1:prefill", "call-2:prefill"]
    for workload in record["workloads"]:
        assert workload["shape"] == workload["name"].split(":")[1]
        assert "mismatch" not in workload
        (run,) = workload["runs"]
        assert run["mode"] == "one-shot"
        _check_run(run, _has_reference())
    summary = bench.summarize([record], config)
    assert [e["workload"] for e in summary["calls"]] == names
    by_key = {m["key"]: m for m in summary["metrics"]}
    assert by_key["oneshot_calls_lowest"]["statistic"] == "lowest"
    assert by_key["oneshot_calls_speedup"]["templates"] == 4
    assert "Short tool calls, one-shot" in _table([record], summary)


def test_prefill_needs_a_literal_reasoning_opening() -> None:
    template = json.loads(json.dumps(TEMPLATE))
    plan = bench.plan_template(template)
    assert plan.prefill == "<think>\n"
    template["fields"]["reasoning_content"] = {"open_pattern": "<think>", "close": "</think>"}
    workloads, skipped = bench.build_workloads(
        bench.plan_template(template), replace(bench.QUICK, workloads=("call-1",))
    )
    assert [w.name for w in workloads] == ["call-1:prompt", "call-1:empty"]
    assert skipped[-1]["workload"] == "call-1:prefill"  # what was asked for, and why not
    assert "opens on a pattern" in skipped[-1]["reason"]
