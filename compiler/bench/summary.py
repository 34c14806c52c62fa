"""The headline numbers of each template and their medians against the targets."""

from __future__ import annotations

import statistics
from typing import Any

from .config import LARGE_EXCEPTIONS, POOLED, TARGETS, BenchConfig, size_label


def _find_run(record: dict[str, Any], workload: str, mode: str, chunk: int | None) -> dict | None:
    for entry in record.get("workloads", []):
        if entry["name"] == workload:
            for run in entry["runs"]:
                if run["mode"] == mode and run["chunk"] == chunk:
                    return run
    return None


def find_region(record: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The entry of a region workload (``answer``, ``answer:unicode``, ...) of a template."""
    return next((r for r in record.get("regions", []) if r["name"] == name), None)


REGION_COLUMNS: dict[str, str] = {
    "speedup": "speedup (reference / rtc)",
    "floor_ratio": "× floor",
    "deltas_over_rtc": "DeltaStream / ResponseParser",
    "growth": "growth 128k / 4k",
    "slow_chunks": "chunks off the fast path",
}
"""The per-region numbers of a template (``region_values``), as the report names them."""


def region_values(entry: dict[str, Any] | None) -> dict[str, float | None]:
    """A region workload's headline numbers (keys of ``REGION_COLUMNS``)."""
    entry = entry or {}
    return {
        "speedup": entry.get("speedup"),
        "floor_ratio": entry.get("floor_ratio"),
        "deltas_over_rtc": entry.get("deltas_over_rtc"),
        "growth": (entry.get("growth") or {}).get("rtc"),
        "slow_chunks": (entry.get("path") or {}).get("slow_chunks"),
    }


def region_summary(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per region workload, over templates: the median of each number, the lowest speedup and
    the highest growth (with the template), and how many templates ran it."""
    names = list(dict.fromkeys(r["name"] for rec in records for r in rec.get("regions", [])))
    rows = []
    for name in names:
        values = {
            rec["name"]: region_values(find_region(rec, name))
            for rec in records
            if find_region(rec, name) is not None
        }
        row: dict[str, Any] = {"workload": name, "templates": len(values)}
        # Templates where the parser itself did not finish the stream (a timeout, an error):
        # furthest from any target, and without a number.
        row["rtc_failed"] = {
            rec["name"]: status
            for rec in records
            if (status := ((find_region(rec, name) or {}).get("rtc") or {}).get("status", "ok"))
            != "ok"
        }
        for key in REGION_COLUMNS:
            known = {t: x for t, v in values.items() if (x := v[key]) is not None}
            row[key] = statistics.median(known.values()) if known else None
            if known and key == "speedup":
                row["lowest"] = min(known.values())
                row["lowest_template"] = min(known, key=lambda t: known[t])
            if known and key == "growth":
                row["highest_growth"] = max(known.values())
                row["highest_growth_template"] = max(known, key=lambda t: known[t])
        rows.append(row)
    return rows


def template_metrics(record: dict[str, Any], config: BenchConfig) -> dict[str, float | None]:
    """The headline numbers of one template (keys of TARGETS)."""
    headline = f"reasoning-{size_label(config.headline_size)}"
    large = f"reasoning-{size_label(max(config.sizes))}"
    stream = _find_run(record, headline, "stream", config.headline_chunk) or {}
    deltas = _find_run(record, headline, "deltas", config.headline_chunk) or {}
    short = _find_run(record, "short", "one-shot", None) or {}
    big = _find_run(record, large, "one-shot", None) or {}
    linearity = record.get("linearity", {})
    linear = linearity.get("interleaved") or linearity.get("by_chunk", {}).get(
        str(config.headline_chunk), {}
    )
    abuse = record.get("abuse", {})
    abuse_ratios = [
        abuse.get("stream", {}).get("rtc", {}).get("last_over_first"),
        abuse.get("chars", {}).get("rtc", {}).get("last_over_first"),
        abuse.get("flood", {}).get("rtc", {}).get("big_over_small"),
    ]
    known = [r for r in abuse_ratios if r is not None]
    looping = [w["growth"] for w in abuse.get("looping", {}).get("worst", {}).values()]
    calls = call_entries(record)
    speedups = [e["speedup"] for e in calls if e["speedup"] is not None]
    loaded = [e["speedup_loaded"] for e in calls if e["speedup_loaded"] is not None]
    answer = region_values(find_region(record, "answer"))
    return {
        "stream_speedup": stream.get("speedup"),
        "stream_floor": stream.get("floor_ratio"),
        "oneshot_short_speedup": short.get("speedup"),
        "oneshot_short_speedup_loaded": short.get("speedup_loaded"),
        "oneshot_large_speedup": big.get("speedup"),
        "construct_speedup": record.get("construction", {}).get("speedup_dict"),
        "linearity": linear.get("rtc"),
        "linearity_reference": linear.get("reference"),
        "abuse_linearity": max(known) if known else None,
        "looping_growth": max(looping) if looping else None,
        "oneshot_calls_speedup": statistics.median(speedups) if speedups else None,
        "oneshot_calls_speedup_loaded": statistics.median(loaded) if loaded else None,
        "oneshot_calls_lowest": min(speedups) if speedups else None,
        "oneshot_large_lowest": (
            None if record.get("name") in LARGE_EXCEPTIONS else big.get("speedup")
        ),
        "deltas_over_rtc": deltas.get("deltas_over_rtc"),
        "answer_speedup": answer["speedup"],
        "answer_lowest": answer["speedup"],
        "answer_floor": answer["floor_ratio"],
        "answer_deltas": answer["deltas_over_rtc"],
        "answer_growth": answer["growth"],
    }


def call_entries(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The one-shot rows of a template's short tool-calling workloads (``call-N:shape``)."""
    out = []
    for entry in record.get("workloads", []):
        if not entry["name"].startswith("call-"):
            continue
        run = next((r for r in entry["runs"] if r["mode"] == "one-shot"), None)
        if run is None:
            continue
        out.append(
            {
                "template": record["name"],
                "workload": entry["name"],
                "shape": entry.get("shape"),
                "rtc_us": run.get("rtc", {}).get("us"),
                "speedup": run.get("speedup"),
                "speedup_loaded": run.get("speedup_loaded"),
            }
        )
    return out


def template_failures(record: dict[str, Any], config: BenchConfig) -> dict[str, str]:
    """Headline metrics of one template that have no value because rtc itself did not finish
    (timeout, error): such a template is furthest from its target, not merely unmeasured."""
    headline = f"reasoning-{size_label(config.headline_size)}"
    small, large = (f"reasoning-{size_label(size)}" for size in config.linearity_sizes)
    runs = {
        "stream_speedup": [_find_run(record, headline, "stream", config.headline_chunk)],
        "oneshot_short_speedup": [_find_run(record, "short", "one-shot", None)],
        "oneshot_large_speedup": [_find_run(record, large, "one-shot", None)],
        "construct_speedup": [record.get("construction")],
        "linearity": [
            _find_run(record, name, "stream", config.headline_chunk) for name in (small, large)
        ],
    }
    runs["stream_floor"] = runs["stream_speedup"]
    calls = [
        _find_run(record, w["name"], "one-shot", None)
        for w in record.get("workloads", [])
        if w["name"].startswith("call-")
    ]
    for key in ("oneshot_calls_speedup", "oneshot_calls_speedup_loaded", "oneshot_calls_lowest"):
        runs[key] = calls
    runs["oneshot_large_lowest"] = (
        [] if record.get("name") in LARGE_EXCEPTIONS else runs["oneshot_large_speedup"]
    )
    deltas = _find_run(record, headline, "deltas", config.headline_chunk)
    runs["deltas_over_rtc"] = [{"rtc": (deltas or {}).get("deltas", {})}]
    answer = find_region(record, "answer") or {}
    for key, sides in (
        ("answer_speedup", ["rtc"]),
        ("answer_lowest", ["rtc"]),
        ("answer_floor", ["rtc"]),
        ("answer_deltas", ["rtc", "deltas"]),
    ):
        runs[key] = [{"rtc": answer.get(side, {})} for side in sides]
    growth = answer.get("growth") or {}
    runs["answer_growth"] = [{"rtc": growth.get(size, {})} for size in ("small", "large")]
    abuse = record.get("abuse", {})
    runs["abuse_linearity"] = [
        {"rtc": abuse.get("stream", {}).get("rtc", {})},
        *({"rtc": part} for part in abuse.get("chars", {}).get("rtc", {}).values()),
        *({"rtc": part} for part in abuse.get("flood", {}).get("rtc", {}).values()),
    ]
    runs["looping_growth"] = [
        {"rtc": entry[mode]}
        for entry in abuse.get("looping", {}).get("fragments", [])
        for mode in ("one-shot", "stream")
    ]
    failed = {}
    for key, found in runs.items():
        for run in found:
            side = (run or {}).get("rtc", {})
            status = side.get("status", "ok") if isinstance(side, dict) else "ok"
            if status != "ok":
                failed[key] = "timeout" if "timed out" in status else status.split(":")[0]
    return failed


def _labels(config: BenchConfig) -> dict[str, str]:
    small, large = config.linearity_sizes
    head = size_label(config.headline_size)
    chunk = f"{config.headline_chunk}-char chunks"
    large_label = size_label(max(config.sizes))
    region = size_label(config.region_size)
    growth = " / ".join(size_label(size) for size in reversed(config.growth_sizes))
    return {
        # The reasoning-heavy workload: a reasoning block, where one literal close is watched.
        "stream_speedup": f"reasoning-block streaming ({chunk}, {head}): speedup",
        "stream_floor": f"reasoning-block streaming ({chunk}, {head}): per chunk / floor",
        "oneshot_short_speedup": "one-shot short speedup (vs from-dict)",
        "oneshot_short_speedup_loaded": "one-shot short speedup (vs preloaded)",
        "oneshot_large_speedup": f"one-shot {large_label} speedup (vs from-dict)",
        "construct_speedup": "construction with prompt speedup (vs from-dict)",
        "linearity": f"linearity per chunk {size_label(large)} / {size_label(small)} (rtc)",
        "linearity_reference": f"linearity per chunk {size_label(large)} / "
        f"{size_label(small)} (reference)",
        "abuse_linearity": "abuse: worst per-char cost growth (rtc)",
        "looping_growth": "abuse: looping generation, 4x the text, worst time growth (rtc)",
        "oneshot_calls_speedup": "one-shot tool calls, all prompt shapes: median (vs from-dict)",
        "oneshot_calls_speedup_loaded": "one-shot tool calls, all prompt shapes: median "
        "(vs preloaded)",
        "oneshot_calls_lowest": "one-shot tool calls, all prompt shapes: lowest (vs from-dict)",
        "oneshot_large_lowest": f"one-shot {large_label}: lowest template (vs from-dict)",
        "deltas_over_rtc": f"reasoning-block streaming ({chunk}, {head}): DeltaStream / rtc",
        "answer_speedup": f"answer streaming (token chunks, {region} of prose): speedup",
        "answer_lowest": f"answer streaming (token chunks, {region}): lowest family speedup",
        "answer_floor": f"answer streaming (token chunks, {region}): per chunk / floor",
        "answer_deltas": f"answer streaming (token chunks, {region}): DeltaStream / rtc",
        "answer_growth": f"answer streaming (token chunks): per chunk {growth}, highest family",
    }


def _meets(value: float, comparison: str, target: float) -> bool:
    return value >= target if comparison == ">=" else value <= target


def _margin(value: float, comparison: str, target: float) -> float:
    """How far a value is from missing its target: below 1 is a miss, the lower the worse."""
    if value <= 0:
        return 0.0
    return value / target if comparison == ">=" else target / value


def measured_metrics(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The summary's metrics that this run measured (a run of some workloads only leaves the
    others without any template)."""
    return [m for m in summary["metrics"] if m["templates"] or m["rtc_failed"]]


def summarize(records: list[dict[str, Any]], config: BenchConfig) -> dict[str, Any]:
    per_template = {r["name"]: template_metrics(r, config) for r in records if "error" not in r}
    failures = {r["name"]: template_failures(r, config) for r in records if "error" not in r}
    labels = _labels(config)
    calls = [e for r in records if "error" not in r for e in call_entries(r)]
    metrics = []
    for key, label in labels.items():
        values = [x for m in per_template.values() if (x := m.get(key)) is not None]
        statistic = POOLED.get(key, "median")
        if key in ("oneshot_calls_speedup", "oneshot_calls_speedup_loaded"):
            # Pooled: the median over every template x workload x prompt shape entry.
            side = "speedup_loaded" if key.endswith("loaded") else "speedup"
            values = [e[side] for e in calls if e[side] is not None]
        elif key == "oneshot_calls_lowest":
            values = [e["speedup"] for e in calls if e["speedup"] is not None]
        if not values:
            median = None
        elif statistic == "lowest":
            median = min(values)
        elif statistic == "highest":
            median = max(values)
        else:
            median = statistics.median(values)
        comparison, target = TARGETS.get(key, ("", 0.0))
        metrics.append(
            {
                "key": key,
                "label": label,
                "median": median,
                "statistic": statistic,
                "templates": len(values),
                "rtc_failed": sum(key in failed for failed in failures.values()),
                "comparison": comparison or None,
                "target": target if comparison else None,
                "pass": (
                    _meets(median, comparison, target)
                    if comparison and median is not None
                    else None
                ),
            }
        )
    worst: list[dict[str, Any]] = []
    for template, failed in failures.items():
        for key, status in failed.items():
            if POOLED.get(key) == "median":
                continue
            comparison, target = TARGETS[key]
            worst.append(
                {
                    "template": template,
                    "key": key,
                    "label": labels[key],
                    "value": None,
                    "status": status,
                    "comparison": comparison,
                    "target": target,
                    "margin": 0.0,
                }
            )
    for template, measured in per_template.items():
        for key, (comparison, target) in TARGETS.items():
            if POOLED.get(key) == "median":
                continue  # a target on the pooled median, not on each template's
            value = measured.get(key)
            if value is not None:
                margin = _margin(value, comparison, target)
                worst.append(
                    {
                        "template": template,
                        "key": key,
                        "label": labels[key],
                        "value": value,
                        "comparison": comparison,
                        "target": target,
                        "margin": margin,
                    }
                )
    worst.sort(key=lambda item: item["margin"])
    return {
        "metrics": metrics,
        "regions": region_summary([r for r in records if "error" not in r]),
        "calls": calls,
        "large_exceptions": {
            name: why for name, why in LARGE_EXCEPTIONS.items() if name in per_template
        },
        "per_template": per_template,
        "rtc_failed": {name: failed for name, failed in failures.items() if failed},
        "worst": worst[:5],
    }
