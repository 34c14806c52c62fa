"""How the region workloads are shown: per template, over templates, per family (text and
Markdown)."""

from __future__ import annotations

from typing import Any

from .cells import cell, num, table
from .config import size_label
from .summary import REGION_COLUMNS, find_region, region_values

_LEGEND = (
    "speedup = reference / ResponseParser, xfloor = ResponseParser / floor, deltas = "
    "DeltaStream / ResponseParser, growth = ResponseParser per chunk with {large} / with {small} "
    "of prose, slow = chunks that left the parser's fast path"
)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _growth_sizes(config: dict[str, Any]) -> tuple[str, str]:
    small, large = config["growth_sizes"]
    return size_label(small), size_label(large)


def legend(config: dict[str, Any]) -> str:
    """What the region tables' columns are (``config``: a report's configuration)."""
    small, large = _growth_sizes(config)
    size = size_label(config["region_size"])
    return (
        f"Region streams: a region of a real generation grown to {size} "
        "of prose, fed in token-sized chunks (a word with its leading space, a run of punctuation "
        "or newlines: 1-8 chars); times in µs per chunk; "
        + _LEGEND.format(small=small, large=large)
    )


def template_lines(record: dict[str, Any]) -> list[str]:
    """The region workloads of one template: a table, then where each generation came from."""
    entries = record.get("regions") or []
    if not entries:
        return []
    header = ["region stream", "chunks", "chars/chunk", "rtc µs", "deltas µs", "ref µs", "floor µs"]
    header += ["speedup", "xfloor", "deltas", "growth", "slow", "slow time"]
    rows = []
    for entry in entries:
        values = region_values(entry)
        path = entry.get("path") or {}
        rows.append(
            [
                entry["name"],
                str(entry["chunks"]),
                f"{entry['chunk_chars']:.1f}",
                cell(entry.get("rtc"), "us"),
                cell(entry.get("deltas"), "us"),
                cell(entry.get("reference"), "us"),
                cell(entry.get("floor"), "us"),
                num(values["speedup"], "x"),
                num(values["floor_ratio"], "x"),
                num(values["deltas_over_rtc"], "x"),
                num(values["growth"], "x"),
                _percent(values["slow_chunks"]),
                _percent(path.get("slow_time")),
            ]
        )
    lines = table(rows, header, left=1)
    sources: dict[str, list[str]] = {}
    for entry in entries:
        sources.setdefault(entry["source"], []).append(entry["name"])
        if "mismatch" in entry:
            lines.append(f"  ! {entry['name']}: {entry['mismatch']}")
        growth = entry.get("growth") or {}
        if "status" in growth:
            lines.append(f"  {entry['name']}: growth not measured: {growth['status']}")
        for label in ("small", "large"):
            status = (growth.get(label) or {}).get("status", "ok")
            if status != "ok":
                lines.append(f"  {entry['name']}: growth ({label} text): {status}")
    for source, names in sources.items():
        lines.append(f"  {', '.join(names)}: {source}")
    return lines


def _summary_cells(row: dict[str, Any]) -> list[str]:
    """One region workload's row over templates (see ``summary.region_summary``)."""
    return [
        row["workload"],
        str(row["templates"]),
        num(row["speedup"], "x"),
        _with_template(row.get("lowest"), row.get("lowest_template")),
        num(row["floor_ratio"], "x"),
        num(row["deltas_over_rtc"], "x"),
        num(row["growth"], "x"),
        _with_template(row.get("highest_growth"), row.get("highest_growth_template")),
        _percent(row["slow_chunks"]),
    ]


def summary_lines(summary: dict[str, Any]) -> list[str]:
    """Over templates, per region workload: medians, the lowest speedup, the highest growth."""
    rows = summary.get("regions") or []
    if not rows:
        return []
    header = ["region stream", "n", "speedup", "lowest", "xfloor", "deltas"]
    header += ["growth", "highest growth", "slow"]
    body = [_summary_cells(row) for row in rows]
    lines = ["Streaming by region (medians over templates)", *table(body, header, left=1)]
    for row in rows:
        failed: dict[str, list[str]] = {}
        for template, status in (row.get("rtc_failed") or {}).items():
            failed.setdefault(status.split(":")[0], []).append(template)
        for status, templates in failed.items():
            lines.append(f"  {row['workload']}: rtc {status} on {', '.join(templates)}")
    return lines


def _with_template(value: float | None, template: str | None) -> str:
    return "-" if value is None else f"{num(value, 'x')} {template}"


def _speedup_cell(entry: dict[str, Any] | None) -> str:
    """A region stream's speedup; what happened to rtc (or the reference) when it did not
    finish; "-": the template has no such region, or the run has no reference."""
    if entry is None:
        return "-"
    status = (entry.get("rtc") or {}).get("status", "ok")
    if status != "ok":
        return status.split(":")[0]
    reference = (entry.get("reference") or {}).get("status", "ok")
    if reference != "ok":
        return f"ref {reference.split(':')[0]}"
    return num(entry.get("speedup"), "x")


def family_rows(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """One row per template: every number of the ``answer`` stream, then the speedup and
    xfloor of the other region streams."""
    names = [row["workload"] for row in report["summary"].get("regions") or []]
    if not names:
        return [], []
    first, others = names[0], names[1:]
    header = ["template", f"{first} speedup", "xfloor", "deltas", "growth", "slow"]
    for name in others:
        header += [f"{name} speedup", "xfloor"]
    rows = []
    for record in report["templates"]:
        if "error" in record or not record.get("regions"):
            continue
        entry = find_region(record, first)
        values = region_values(entry)
        row = [record["name"], _speedup_cell(entry)]
        for key in list(REGION_COLUMNS)[1:]:
            row.append(_percent(values[key]) if key == "slow_chunks" else num(values[key], "x"))
        for name in others:
            other = find_region(record, name)
            row += [_speedup_cell(other), num(region_values(other)["floor_ratio"], "x")]
        rows.append(row)
    return header, rows


def family_lines(report: dict[str, Any]) -> list[str]:
    header, rows = family_rows(report)
    if len(rows) < 2:
        return []
    return ["Region streams per template", *table(rows, header, left=1)]


def markdown_lines(report: dict[str, Any]) -> list[str]:
    """The region tables as Markdown: the summary per region workload, then per template."""
    rows = report["summary"].get("regions") or []
    if not rows:
        return []
    small, large = _growth_sizes(report["config"])
    lines = [
        f"| region stream | templates | speedup (median) | lowest | × floor | DeltaStream / "
        f"ResponseParser | growth {large} / {small} | highest growth | chunks off the fast path |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(_summary_cells(row)) + " |" for row in rows]
    header, family = family_rows(report)
    if family:
        lines += ["", "| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in family]
    return lines
