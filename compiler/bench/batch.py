"""``rtc bench --batch``: records per second end to end, JSONL in, Parquet out.

The same reader, batching and Parquet writer (``files.run``) drive three pipelines over the
synthetic corpus (``corpus``: several families, ~1% malformed, a few bad records): rtc in one
process, rtc with two worker processes, and transformers 5.23.0's
``parse_response(text, template_dict, prefix=..., tools=...)`` per record, as tokenizers and TRL
call it. Ratios come from one run, so a busy machine slows all three alike; the load average is
reported with them.
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
FULL = 10_000  # records per family
QUICK = 2_000


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


def _timed(source: str, output: str, parser: Any, workers: int) -> tuple[float, int]:
    started = time.perf_counter()
    counts = files.run(source, output, parser, FIELDS, workers=workers)
    return time.perf_counter() - started, counts.records


def run(per_family: int, families: list[str] | None = None, reference: bool = True) -> dict:
    """Measure every pipeline on ``per_family`` records of each family; the results as a dict."""
    from rtc import generated

    families = families or list(corpus.FAMILIES)
    load_before = os.getloadavg()
    totals: dict[str, list[float]] = {"rtc, 1 worker": [0, 0], "rtc, 2 workers": [0, 0]}
    if reference:
        totals["reference"] = [0, 0]
    with tempfile.TemporaryDirectory(prefix="rtc-bench-batch-") as folder:
        for family in families:
            source = os.path.join(folder, f"{family}.jsonl")
            corpus.write_jsonl(source, family, per_family)
            output = os.path.join(folder, f"{family}.parquet")
            pipelines: dict[str, tuple[Any, int]] = {
                "rtc, 1 worker": (ParserRef.catalogue(family), 1),
                "rtc, 2 workers": (ParserRef.catalogue(family), 2),
            }
            if reference:
                pipelines["reference"] = (_ReferenceRef(generated.get(family).TEMPLATE), 1)
            for name, (parser, workers) in pipelines.items():
                seconds, records = _timed(source, output, parser, workers)
                totals[name][0] += seconds
                totals[name][1] += records
    rates = {name: records / seconds for name, (seconds, records) in totals.items()}
    ratios = {"2 workers / 1 worker": rates["rtc, 2 workers"] / rates["rtc, 1 worker"]}
    if reference:
        ratios["rtc / reference"] = rates["rtc, 1 worker"] / rates["reference"]
    return {
        "families": families,
        "records": int(totals["rtc, 1 worker"][1]),
        "records_per_second": rates,
        "ratios": ratios,
        "targets": TARGETS,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "cpus": os.cpu_count(),
    }


def report(result: dict) -> str:
    lines = [
        f"rtc bench --batch: {result['records']:,} records ({', '.join(result['families'])}), "
        "JSONL in, Parquet out",
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
