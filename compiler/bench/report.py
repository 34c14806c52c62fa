"""The human-readable report: a table per template, the abuse lines, the summary."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cells import cell, num, size_text, table
from .config import size_label
from .deltas import delta_lines
from .region_report import family_lines, legend, summary_lines, template_lines
from .summary import measured_metrics


def format_report(report: dict[str, Any]) -> str:
    """The human-readable table of a report (per template, then the summary)."""
    config = report["config"]
    lines = [
        f"rtc {report['rtc_version']} vs "
        + (
            f"transformers {report['reference_version']}"
            if report["reference_version"]
            else "no reference (transformers not installed or disabled)"
        )
        + f"; Python {report['python']}; {'quick' if config['quick'] else 'full'} run",
        f"times ({config.get('clock', 'wall')} clock): one-shot in µs per op, streamed in µs per "
        f"chunk ({config['statistic']} of samples); speedup = reference / rtc (one-shot: "
        "reference given the template dict; x preload: given a preloaded template); "
        "xfloor = rtc / floor",
    ]
    header = ["workload", "size", "mode", "rtc µs", "ref µs", "speedup", "x preload"]
    header += ["rtc MB/s", "ref MB/s", "floor µs", "xfloor"]
    for record in report["templates"]:
        lines.append("")
        lines.append(f"== {record['name']}")
        if "error" in record:
            lines.append(f"  cannot benchmark: {record['error']}")
            continue
        rows = []
        for entry in record["workloads"]:
            for index, run in enumerate(r for r in entry["runs"] if r["mode"] != "deltas"):
                mode = "one-shot" if run["mode"] == "one-shot" else f"stream/{run['chunk']}"
                rows.append(
                    [
                        entry["name"] if index == 0 else "",
                        size_text(entry["bytes"]) if index == 0 else "",
                        mode,
                        cell(run.get("rtc"), "us"),
                        cell(run.get("reference"), "us"),
                        num(run.get("speedup"), "x"),
                        num(run.get("speedup_loaded"), "x"),
                        cell(run.get("rtc"), "mb_s"),
                        cell(run.get("reference"), "mb_s"),
                        cell(run.get("floor"), "us"),
                        num(run.get("floor_ratio"), "x"),
                    ]
                )
        if rows:
            lines += table(rows, header)
        lines += delta_lines(record)
        lines += template_lines(record)
        details: dict[str, list[str]] = {}
        for entry in record["workloads"]:
            if "mismatch" in entry:
                lines.append(f"  ! {entry['name']}: {entry['mismatch']}")
            for run in entry["runs"]:
                mode = run["mode"] if run["mode"] != "stream" else f"stream/{run['chunk']}"
                for side in ("rtc", "deltas", "reference", "reference_loaded"):
                    status = run.get(side, {}).get("status", "ok")
                    if status not in ("ok", "timeout"):
                        details.setdefault(f"{side}: {status}", []).append(
                            f"{entry['name']} {mode}"
                        )
        for status, where in details.items():
            lines.append(f"  {status} ({', '.join(where)})")
        construction = record.get("construction")
        if construction:
            lines.append(
                f"  construction ({construction['prompt_chars']} chars of prompt): "
                f"rtc {cell(construction.get('rtc'), 'us')} µs; reference from dict "
                f"{cell(construction.get('reference_dict'), 'us')} µs "
                f"({num(construction.get('speedup_dict'), 'x')}), preloaded "
                f"{cell(construction.get('reference_loaded'), 'us')} µs "
                f"({num(construction.get('speedup_loaded'), 'x')})"
            )
        linearity = record.get("linearity", {})
        if linearity.get("by_chunk"):
            small, large = linearity["sizes"]
            parts = [
                f"{chunk}-char rtc {num(v.get('rtc'), 'x')} ref {num(v.get('reference'), 'x')}"
                for chunk, v in linearity["by_chunk"].items()
            ]
            again = linearity.get("interleaved")
            if again:
                parts.append(
                    f"measured again interleaved, {again['chunk']}-char: rtc "
                    f"{num(again.get('rtc'), 'x')} ref {num(again.get('reference'), 'x')}"
                )
            lines.append(
                f"  linearity (per chunk, {size_label(large)} / {size_label(small)}): "
                + "; ".join(parts)
            )
        if "abuse" in record:
            lines += _abuse_lines(record["abuse"])
        for note in record["notes"]:
            lines.append(f"  note: {note}")
        for skip in record["skipped"]:
            lines.append(f"  skipped {skip['workload']}: {skip['reason']}")
    if report["summary"].get("regions"):
        lines += ["", legend(config), *family_lines(report)]
        lines += summary_lines(report["summary"])
    lines += ["", *format_calls(report["summary"].get("calls", []))]
    lines += ["", *format_summary(report["summary"])]
    return "\n".join(lines) + "\n"


def format_calls(calls: list[dict[str, Any]]) -> list[str]:
    """The short tool-calling workloads side by side: per template, each workload's rtc time
    and its speedups (from the dict / preloaded)."""
    if not calls:
        return []
    workloads = list(dict.fromkeys(e["workload"] for e in calls))
    by_template: dict[str, dict[str, dict[str, Any]]] = {}
    for e in calls:
        by_template.setdefault(e["template"], {})[e["workload"]] = e
    rows = []
    for template, entries in by_template.items():
        row = [template]
        for workload in workloads:
            entry = entries.get(workload)
            row.append(
                "-"
                if entry is None
                else f"{num(entry['rtc_us'])} µs {num(entry['speedup'], 'x')}"
                f"/{num(entry['speedup_loaded'], 'x')}"
            )
        rows.append(row)
    lines = [
        "Short tool calls, one-shot (rtc µs, speedup vs from-dict / vs preloaded; "
        'prompt: multi-turn, empty: prefix="", prefill: the reasoning opening prefilled)'
    ]
    widths = [
        max(len(r[i]) for r in [["template", *workloads], *rows]) for i in range(len(rows[0]))
    ]
    for row in [["template", *workloads], *rows]:
        lines.append(
            "  "
            + "  ".join(
                c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(row)
            )
        )
    return lines


def _looping_lines(looping: dict[str, Any]) -> list[str]:
    """The worst looping generation of each mode, rtc's times and the reference's on it."""
    if not looping:
        return []
    size = looping["size"]
    lines = [
        f"  looping generations ({len(looping['fragments'])} fragments repeated, {size} and "
        f"{4 * size} characters; time for 4x the text, worst fragment):"
    ]
    for mode, worst in looping.get("worst", {}).items():
        entry = looping["fragments"][worst["index"]]
        head = f" after {entry['head']!r}" if entry["head"] else ""
        how = {"one-shot": "one shot", "fed-whole": "fed whole"}.get(
            mode, f"{looping['chunk']}-char chunks"
        )
        run = entry[mode]
        line = (
            f"    rtc       {how}: {num(run['growth'], 'x')} ({num(run['small_us'])} / "
            f"{num(run['big_us'])} µs) on {entry['fragment']!r}{head}"
        )
        ref = looping.get("reference_on_worst", {}).get(mode)
        if ref is not None:
            ref_growth = num(ref["growth"], "x") if ref["status"] == "ok" else ref["status"]
            line += f"; reference {ref_growth} ({num(ref['small_us'])} / {num(ref['big_us'])} µs)"
        lines.append(line)
    return lines


def _per_char(side: dict[str, Any], label: str, more: Callable[[dict[str, Any]], str]) -> str:
    """One measured part of an abuse run: its cost per character (and ``more``), or its status."""
    part = side.get(label, {})
    if part.get("status") == "ok":
        return f"{num(part['ns_per_char'])} ns/char" + more(part)
    return str(part.get("status", "-"))


def _abuse_lines(abuse: dict[str, Any]) -> list[str]:
    if "skipped" in abuse:
        return [f"  abuse: skipped ({abuse['skipped']})", *_looping_lines(abuse.get("looping", {}))]
    lines = [f"  abuse ({size_label(abuse['body_size'])} in {abuse['region']}):"]
    for key, side in abuse["stream"].items():
        if side.get("status") != "ok":
            lines.append(f"    {key:9} {abuse['chunk']}-char chunks: {side.get('status')}")
            continue
        lines.append(
            f"    {key:9} {abuse['chunk']}-char chunks: {num(side['us_per_chunk'])} µs/chunk, "
            f"{num(side['mb_s'])} MB/s, per-char cost last/first eighth "
            f"{num(side['last_over_first'], 'x')} (first chunk {num(side['first_chunk_us'])} "
            f"µs, finalize {num(side['finalize_us'])} µs)"
        )
    for key, side in abuse["chars"].items():
        cells = [
            f"{label} " + _per_char(side, label, lambda part: f" ({part['chars']} fed)")
            for label in ("first", "last")
        ]
        lines.append(
            f"    {key:9} 1-char chunks: {', '.join(cells)}; last/first "
            f"{num(side.get('last_over_first'), 'x')}"
        )
    small, big = (size_label(s) for s in abuse["flood_sizes"])
    for key, side in abuse["flood"].items():
        cells = [_per_char(side, label, lambda part: "") for label in ("small", "big")]
        lines.append(
            f"    {key:9} {abuse['flood_char']!r} flood {small} / {big}: {' / '.join(cells)}; "
            f"per-char {big}/{small} {num(side.get('big_over_small'), 'x')}"
        )
    return lines + _looping_lines(abuse.get("looping", {}))


def format_summary(summary: dict[str, Any]) -> list[str]:
    lines = ["Summary (median over templates, unless the label says otherwise)"]
    rows = []
    for metric in measured_metrics(summary):
        target = (
            f"{'≥' if metric['comparison'] == '>=' else '≤'}{num(metric['target'], 'x')}"
            if metric["comparison"]
            else ""
        )
        verdict = {True: "PASS", False: "MISS", None: "-" if metric["comparison"] else ""}[
            metric["pass"]
        ]
        rows.append(
            [
                metric["label"],
                num(metric["median"], "x"),
                target,
                verdict,
                str(metric["templates"])
                + (f", rtc failed on {metric['rtc_failed']}" if metric["rtc_failed"] else ""),
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for row in rows:
        lines.append(
            f"  {row[0].ljust(widths[0])}  {row[1].rjust(widths[1])}  "
            f"{row[2].ljust(widths[2])}  {row[3].ljust(widths[3])}  (n={row[4]})".rstrip()
        )
    for name, why in summary.get("large_exceptions", {}).items():
        lines.append(f"  (one-shot lowest leaves out {name}: {why})")
    if summary["worst"]:
        lines.append("Furthest from target (template: metric value, target)")
        for item in summary["worst"]:
            sign = "≥" if item["comparison"] == ">=" else "≤"
            target = f"target {sign}{num(item['target'], 'x')}"
            if item.get("status"):
                lines.append(
                    f"  {item['template']}: {item['label']}: rtc {item['status']} ({target})"
                )
                continue
            lines.append(
                f"  {item['template']}: {item['label']} {num(item['value'], 'x')} "
                f"({target}, {item['margin']:.2f} of target)"
            )
    return lines
