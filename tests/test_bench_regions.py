"""``rtc bench``'s region streams: the prose, the token chunker, the family samples, the records.

No time or ratio is asserted (timings depend on the machine): these check that the workloads are
what they say — deterministic, cut as tokens come, and that the grown text really lands in the
intended field when the family's own parser parses it.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import regex
from click.testing import CliRunner
from test_bench import TEMPLATE

from rtc.compiler import bench, load
from rtc.compiler.bench.prose import VARIANTS, answer_prose, unicode_prose
from rtc.compiler.bench.region_samples import REGIONS, load_samples, region_problem
from rtc.compiler.bench.regions import build_region_streams, region_field
from rtc.compiler.bench.summary import region_summary, template_metrics
from rtc.compiler.bench.tokens import MAX_CHUNK, token_chunks
from rtc.compiler.cli import bench as cli_bench
from rtc.compiler.cli import main

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"
FAMILIES = sorted(p.stem for p in GENERATED.glob("*.json"))
SIZE = 8192
REFRESH = "the test data changed: python -m rtc.compiler.bench.refresh_samples tests/data"
# Every region in English and non-ASCII prose; the answer also mostly code (prose.VARIANT_REGIONS).
ALL_STREAMS = [
    f"{r}{v}" for r in REGIONS for v in ("", ":unicode", ":code") if v != ":code" or r == "answer"
]


# --- prose and chunks --------------------------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_prose_is_deterministic_and_ordinary(variant: str) -> None:
    text = VARIANTS[variant](SIZE, 3)
    assert text == VARIANTS[variant](SIZE, 3) != VARIANTS[variant](SIZE, 4)
    assert SIZE - 2 <= len(text) <= SIZE
    assert text == text.strip()
    assert "\n\n" in text and regex.search(r"(?m)^(?:- |\d+\. )\S", text)  # paragraphs, lists
    assert regex.search(r"\d", text)
    # Delimiter-shaped characters real templates open tool calls on are left out (see prose);
    # code has braces, but no "[" and no call-shaped JSON.
    assert not set("['" if variant == "code" else "[{'") & set(text)
    assert '{"name"' not in text


def test_code_prose() -> None:
    code = VARIANTS["code"](SIZE, 0)
    assert code.count("```") >= 10 and code.count("<") >= 50 and "{" in code
    assert regex.search(r"<div|template <|Map<", code)
    assert not regex.search(r"\p{Han}", code)


def test_english_and_unicode_prose() -> None:
    english, mixed = answer_prose(SIZE), unicode_prose(SIZE)
    assert regex.search(r"`[^`\n]+`", english)  # code spans
    assert regex.search(r"\p{Han}", mixed) and regex.search(r"[éàüñçß]", mixed)
    assert any(ord(char) > 0xFFFF for char in mixed)  # emoji beyond the BMP
    assert not regex.search(r"\p{Han}", english)


def test_token_chunks_example() -> None:
    text = "Take line 12 of the metro; it runs\n\nevery 4 minutes (see `set_alarm`).  ok"
    assert token_chunks(text) == token_chunks(text)
    chunks = token_chunks(text)
    assert "".join(chunks) == text
    assert chunks[:8] == ["Take", " line", " 12", " of", " the", " metro", ";", " it"]
    assert "\n\n" in chunks and " (" in chunks and " `" in chunks
    assert token_chunks("1234567") == ["123", "456", "7"]
    long_word = token_chunks(" internationalisation")
    assert "".join(long_word) == " internationalisation" and len(long_word) > 2
    assert long_word[0].startswith(" ") and all(3 <= len(c) <= 7 for c in long_word)
    assert all(1 <= len(c) <= 2 for c in token_chunks("今天巴黎天气晴朗"))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_token_chunks_of_the_prose(variant: str) -> None:
    text = VARIANTS[variant](SIZE, 5)
    chunks = token_chunks(text)
    assert chunks == token_chunks(text) and "".join(chunks) == text
    assert all(1 <= len(chunk) <= MAX_CHUNK for chunk in chunks)
    # Token-sized: a few characters on average, and never two words in one chunk.
    assert 1.5 <= len(text) / len(chunks) <= 5
    assert not any(regex.search(r"\p{L}\s+\p{L}", chunk) for chunk in chunks)
    # A word comes with its leading space; a run of newlines is one chunk.
    assert sum(chunk.startswith(" ") and chunk[1:].isalpha() for chunk in chunks) > len(chunks) / 5
    assert all(set(c) == {"\n"} for c in chunks if "\n" in c)


# --- the family samples land where they should --------------------------------------------------


@cache
def _family(name: str) -> tuple[Any, bench.TemplatePlan]:
    """The family's committed parser module (importing it is cheaper than compiling)."""
    template = json.loads((GENERATED / f"{name}.json").read_text(encoding="utf-8"))
    return importlib.import_module(f"rtc.generated.{name}"), bench.plan_template(template)


def _parse(module: Any) -> Any:
    return lambda text, prefix, tools: module.parse_response(text, prefix=prefix, tools=tools)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_region_of_every_family_grows_from_its_sample(family: str) -> None:
    module, plan = _family(family)
    parse = _parse(module)
    streams, skipped, notes = build_region_streams(family, plan, parse, bench.FULL)
    assert not notes, notes
    names = {stream.name for stream in streams}
    for region in REGIONS:
        field = region_field(plan, region)
        wanted = {region, f"{region}:unicode"} | ({"answer:code"} if region == "answer" else set())
        if isinstance(field, str):
            assert not names & wanted
            assert {s["workload"] for s in skipped} >= wanted
            continue
        assert wanted <= names, f"{family}: no {region} stream ({skipped})"
    for stream in streams:
        # A real generation of the family, not one composed from the template's delimiters.
        assert stream.source.startswith("tests/data/"), f"{stream.source}; {REFRESH}"
        # The growth sizes are checked by the bench when it runs; the answer's here too.
        sizes = (SIZE, *bench.FULL.growth_sizes) if stream.name == "answer" else (SIZE,)
        for size in sizes:
            body = stream.body(size)
            message = module.parse_response(
                stream.text(size), prefix=stream.prefix, tools=stream.tools
            )
            assert region_problem(message, stream.region, stream.field, body) is None
            if stream.region != "arguments":
                assert message[stream.field].strip() == body
            else:
                assert body in json.dumps(message[stream.field], ensure_ascii=False) or any(
                    body == value
                    for call in message[stream.field]
                    for value in _arguments(call).values()
                )


def _arguments(call: dict[str, Any]) -> dict[str, Any]:
    arguments = call.get("function", call).get("arguments", {})
    return json.loads(arguments) if isinstance(arguments, str) else arguments


def test_samples_are_copies_of_the_test_data() -> None:
    """Each sample is byte for byte a record of the family's test data, with its provenance."""
    samples = load_samples()
    assert set(samples) == set(FAMILIES), REFRESH
    for family, regions in samples.items():
        for sample in regions.values():
            path = ROOT / sample.source["file"]
            assert path.parts[-2] in (family, "cases", "family_cases"), sample.source
            key = "id" if path.name == "fixtures.jsonl" else "name"
            records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
            found = [r for r in records if r[key] == sample.source["id"]]
            assert len(found) == 1, f"{sample.describe()}: {REFRESH}"
            (record,) = found
            assert record["text"] == sample.text, f"{sample.describe()}: {REFRESH}"
            meta = json.loads((ROOT / "tests/data/catalogue" / family / "family.json").read_text())
            assert record.get("prefix", meta["prompt"]) == sample.prefix
            assert record.get("tools") == sample.tools
            assert sample.source.get("origin") == record.get("source")
            assert sample.text.count(sample.value) == 1


def test_a_template_outside_the_catalogue_is_composed_from_its_delimiters() -> None:
    module, plan = load(TEMPLATE), bench.plan_template(TEMPLATE)
    config = replace(bench.QUICK, region_size=1500)
    streams, skipped, notes = build_region_streams("tiny", plan, _parse(module), config)
    assert not skipped and not notes
    assert [s.name for s in streams] == ALL_STREAMS
    for stream in streams:
        assert stream.source == "composed from the template's delimiters"
        assert stream.problem(_parse(module), 1500) is None
    chosen = replace(config, workloads=("answer:unicode", "reasoning"))
    streams, _, _ = build_region_streams("tiny", plan, _parse(module), chosen)
    assert [s.name for s in streams] == ["answer:unicode", "reasoning", "reasoning:unicode"]


# --- records, summary, report -------------------------------------------------------------------


def test_region_records_and_report() -> None:
    config = replace(
        bench.QUICK,
        reference=False,
        workloads=("answer", "arguments:unicode"),
        region_size=1024,
        growth_sizes=(512, 2048),
    )
    report = bench.run_benchmark(
        [("qwen3", json.loads((GENERATED / "qwen3.json").read_text()))], config
    )
    (record,) = report["templates"]
    assert record["workloads"] == []
    regions = {entry["name"]: entry for entry in record["regions"]}
    assert list(regions) == ["answer", "answer:unicode", "answer:code", "arguments:unicode"]
    answer = regions["answer"]
    assert answer["field"] == "content" and answer["source"].startswith("tests/data/catalogue/")
    assert answer["chunks"] > len(token_chunks(answer_prose(1024, 1024)))  # and the fixture's
    for key in ("rtc", "deltas", "floor"):
        assert answer[key]["status"] == "ok" and answer[key]["samples"] >= 3
    assert "reference" not in answer and answer["speedup"] is None
    assert answer["floor_ratio"] is not None and answer["deltas_over_rtc"] is not None
    assert answer["growth"]["sizes"] == [512, 2048] and answer["growth"]["rtc"] is not None
    assert "growth" not in regions["answer:unicode"]  # growth is measured on English prose
    path = answer["path"]
    assert set(path) == {"slow_chunks", "slow_time", "held_chunks", "slow_us", "fast_us"}
    assert 0 <= path["slow_chunks"] <= 1 and 0 <= path["held_chunks"] <= 1
    metrics = report["summary"]["per_template"]["qwen3"]
    assert metrics["answer_floor"] == answer["floor_ratio"]
    assert metrics["answer_growth"] == answer["growth"]["rtc"]
    keys = {m["key"]: m for m in report["summary"]["metrics"]}
    assert keys["answer_floor"]["templates"] == 1 and keys["answer_speedup"]["templates"] == 0
    text = bench.format_report(report)
    assert "region stream" in text and "Streaming by region" in text
    assert "answer streaming (token chunks" in text
    markdown = bench.format_markdown(report)
    assert markdown.startswith("| region stream |")
    assert "| answer:unicode |" in markdown


def test_region_summary_over_templates() -> None:
    def record(name: str, speedup: float, growth: float) -> dict[str, Any]:
        entry = {
            "name": "answer",
            "speedup": speedup,
            "floor_ratio": 10 / speedup,
            "deltas_over_rtc": 1.1,
            "growth": {"rtc": growth},
            "path": {"slow_chunks": 0.5},
        }
        return {"name": name, "regions": [entry], "workloads": []}

    records = [record("a", 2.0, 1.0), record("b", 9.0, 1.5), record("c", 12.0, 0.9)]
    (row,) = region_summary(records)
    assert row["workload"] == "answer" and row["templates"] == 3
    assert row["speedup"] == 9.0 and row["lowest"] == 2.0 and row["lowest_template"] == "a"
    assert row["highest_growth"] == 1.5 and row["highest_growth_template"] == "b"
    summary = bench.summarize(records, bench.FULL)
    metrics = {m["key"]: m for m in summary["metrics"]}
    assert metrics["answer_speedup"]["median"] == 9.0 and metrics["answer_speedup"]["pass"]
    assert metrics["answer_lowest"]["median"] == 2.0 and not metrics["answer_lowest"]["pass"]
    assert metrics["answer_growth"]["median"] == 1.5 and not metrics["answer_growth"]["pass"]
    assert template_metrics(records[0], bench.FULL)["answer_deltas"] == 1.1
    # The median target is not held against each template; the lowest and highest are.
    worst = {(w["template"], w["key"]) for w in summary["worst"]}
    assert ("a", "answer_lowest") in worst and ("a", "answer_speedup") not in worst


def test_cli_streaming_selects_the_region_streams(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Shorter texts than a real quick run, so that the test stays cheap.
    small = replace(bench.QUICK, region_size=1024, growth_sizes=(512, 1024))
    monkeypatch.setattr(cli_bench, "QUICK", small)
    qwen3 = str(GENERATED / "qwen3.json")
    out = tmp_path / "report.json"
    args = ["bench", qwen3, "--quick", "--no-reference", "--streaming", "--json", str(out)]
    result = CliRunner().invoke(main, [*args, "--workload", "short"])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    (record,) = report["templates"]
    assert [w["name"] for w in record["workloads"]] == ["short"]
    assert [r["name"] for r in record["regions"]] == ALL_STREAMS
    assert "rtc bench: [1/1] qwen3: answer (token-sized chunks)" in result.stderr
    bad = CliRunner().invoke(main, ["bench", qwen3, "--quick", "--workload", "answer:latin"])
    assert bad.exit_code == 2 and "unknown workload answer:latin" in bad.output
