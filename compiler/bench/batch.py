"""``rtc bench --batch``: records per second end to end, JSONL in, Parquet out.

The same reader, batching and Parquet writer (``rtc.compiler.offline.files.run``) drive three
pipelines over the synthetic corpus (``rtc.compiler.offline.corpus``: several families, ~1%
malformed, a few bad records): rtc in one process, rtc with two worker processes, and
transformers 5.23.0's ``parse_response(text, template_dict, prefix=..., tools=...)`` per record,
as tokenizers and TRL call it. The ratios isolate parsing: everything else is the same code.

The pipelines take turns, family by family, and each keeps its fastest of ``repeats`` runs, so
a burst of load on a shared machine hits one run, not one pipeline. The load average before and
after is reported with the figures.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from rtc.compiler.offline import corpus, files
from rtc.compiler.offline.parsers import ParserRef
from rtc.compiler.offline.records import Fields

FIELDS = Fields(prefix_field="prompt", tools_field="tools")
TARGETS = {"rtc / reference": 3.0, "2 workers / 1 worker": 1.3}
FULL = (25_000, 3)  # records per family, runs per pipeline (the fastest counts)
QUICK = (2_000, 2)
RTC_1, RTC_2, REFERENCE = "rtc, 1 worker", "rtc, 2 workers", "reference"


@dataclass(frozen=True)
class _ReferenceParser:
    """The reference as a parser "module": transformers' parse_response with the template dict."""

    template: dict[str, Any]

    def parse_response(self, text: Any, *, prefix: Any = None, tools: Any = None) -> Any:
        from transformers.utils.chat_parsing import parse_response

        return parse_response(text, self.template, prefix=prefix, tools=tools)


@dataclass(frozen=True)
class _ReferenceRef:
    template: dict[str, Any]

    def module(self) -> Any:
        return _ReferenceParser(self.template)


def _seconds(source: str, output: str, parser: Any, workers: int) -> tuple[float, int]:
    started = time.perf_counter()
    counts = files.run(source, output, parser, FIELDS, workers=workers)
    return time.perf_counter() - started, counts.records


def run(
    size: tuple[int, int] = FULL, families: list[str] | None = None, reference: bool = True
) -> dict[str, Any]:
    """Measure every pipeline on each family's corpus; the results as a dict."""
    from rtc import generated

    per_family, repeats = size
    families = families or list(corpus.FAMILIES)
    load_before = os.getloadavg()
    names = [RTC_1, RTC_2] + ([REFERENCE] if reference else [])
    seconds = dict.fromkeys(names, 0.0)
    records = dict.fromkeys(names, 0)
    with tempfile.TemporaryDirectory(prefix="rtc-bench-batch-") as folder:
        for family in families:
            source = os.path.join(folder, f"{family}.jsonl")
            corpus.write_jsonl(source, family, per_family)
            output = os.path.join(folder, f"{family}.parquet")
            pipelines: dict[str, tuple[Any, int]] = {
                RTC_1: (ParserRef.catalogue(family), 1),
                RTC_2: (ParserRef.catalogue(family), 2),
            }
            if reference:
                pipelines[REFERENCE] = (_ReferenceRef(generated.get(family).TEMPLATE), 1)
            best = dict.fromkeys(pipelines, float("inf"))
            counted = dict.fromkeys(pipelines, 0)
            for _ in range(repeats):
                for name, (parser, workers) in pipelines.items():
                    took, counted[name] = _seconds(source, output, parser, workers)
                    best[name] = min(best[name], took)
            for name in pipelines:
                seconds[name] += best[name]
                records[name] += counted[name]
    rates = {name: records[name] / seconds[name] for name in names}
    ratios = {"2 workers / 1 worker": rates[RTC_2] / rates[RTC_1]}
    if reference:
        ratios["rtc / reference"] = rates[RTC_1] / rates[REFERENCE]
    return {
        "families": families,
        "records": records[RTC_1],
        "repeats": repeats,
        "records_per_second": rates,
        "ratios": ratios,
        "targets": TARGETS,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "cpus": os.cpu_count(),
    }


def report(result: dict[str, Any]) -> str:
    lines = [
        f"rtc bench --batch: {result['records']:,} records ({', '.join(result['families'])}), "
        f"JSONL in, Parquet out, fastest of {result['repeats']} runs",
        "",
        "| pipeline | records/s |",
        "|---|---|",
    ]
    for name, rate in result["records_per_second"].items():
        lines.append(f"| {name} | {rate:,.0f} |")
    lines += ["", "| ratio | result | target | |", "|---|---|---|---|"]
    for name, value in result["ratios"].items():
        target = result["targets"][name]
        verdict = "PASS" if value >= target else "MISS"
        lines.append(f"| {name} | {value:.2f}x | >= {target}x | {verdict} |")
    before = ", ".join(f"{x:.2f}" for x in result["load_average_before"])
    after = ", ".join(f"{x:.2f}" for x in result["load_average_after"])
    lines += ["", f"Load average before: {before}; after: {after} ({result['cpus']} CPUs)."]
    return "\n".join(lines)
