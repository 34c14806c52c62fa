"""The README's Performance tables, from one run's report (``rtc bench --markdown FILE``)."""

from __future__ import annotations

from typing import Any

from .cells import num
from .region_report import markdown_lines
from .summary import _find_run, measured_metrics


def format_markdown(report: dict[str, Any]) -> str:
    """The region streams (per region workload, then per template), the summary against the
    targets, the per-template table and the short tool calls (each when the run measured it)."""
    config = report["config"]
    lines = markdown_lines(report)
    if lines:
        lines.append("")
    lines += [
        "| metric | result | target | |",
        "|---|---|---|---|",
    ]
    for metric in measured_metrics(report["summary"]):
        target = ""
        if metric["comparison"]:
            sign = "≥" if metric["comparison"] == ">=" else "≤"
            target = f"{sign} {num(metric['target'], 'x')}"
        verdict = {True: "PASS", False: "MISS", None: ""}[metric["pass"]]
        label = metric["label"].replace("|", "\\|")
        lines.append(f"| {label} | {num(metric['median'], 'x')} | {target} | {verdict} |")
    if any(record.get("workloads") for record in report["templates"]):
        lines += ["", *_template_table(report, config)]
    calls = _calls_table(report)
    if calls:
        lines += ["", *calls]
    return "\n".join(lines) + "\n"


def _template_table(report: dict[str, Any], config: dict[str, Any]) -> list[str]:
    chunk, size = config["headline_chunk"], config["headline_size"] // 1024
    large = max(config["sizes"]) // 1024
    lines = [
        f"| template | reasoning block, {chunk}-char, {size} KB: rtc µs/chunk | speedup | × floor "
        f"| one-shot short: rtc µs | speedup | one-shot {large} KB: rtc µs | speedup "
        "| construction speedup | linearity |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    per_template = report["summary"]["per_template"]
    for record in report["templates"]:
        name = record["name"]
        if "error" in record:
            continue
        metrics = per_template.get(name, {})
        stream = _find_run(record, f"reasoning-{size}k", "stream", chunk) or {}
        short = _find_run(record, "short", "one-shot", None) or {}
        big = _find_run(record, f"reasoning-{large}k", "one-shot", None) or {}
        cells = [
            name,
            num(stream.get("rtc", {}).get("us")),
            num(stream.get("speedup"), "x"),
            num(stream.get("floor_ratio"), "x"),
            num(short.get("rtc", {}).get("us"), digits=3),
            num(short.get("speedup"), "x"),
            num(big.get("rtc", {}).get("us"), digits=3),
            num(big.get("speedup"), "x"),
            num(metrics.get("construct_speedup"), "x"),
            num(metrics.get("linearity"), "x"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _calls_table(report: dict[str, Any]) -> list[str]:
    calls = report["summary"].get("calls", [])
    workloads = list(dict.fromkeys(e["workload"] for e in calls))
    if not workloads:
        return []
    lines = [
        "| template | " + " | ".join(workloads) + " |",
        "|---|" + "---|" * len(workloads),
    ]
    by_template: dict[str, dict[str, dict[str, Any]]] = {}
    for e in calls:
        by_template.setdefault(e["template"], {})[e["workload"]] = e
    for template, entries in by_template.items():
        cells = []
        for workload in workloads:
            e = entries.get(workload)
            if e is None:
                cells.append("—")
                continue
            cells.append(
                f"{num(e['rtc_us'], digits=3)} µs {num(e['speedup'], 'x')} / "
                f"{num(e['speedup_loaded'], 'x')}"
            )
        lines.append(f"| {template} | " + " | ".join(cells) + " |")
    return lines
