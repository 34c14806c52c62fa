"""Showing findings (text or JSON), exit statuses, and the baseline of accepted findings.

A baseline lists findings a project has reviewed and accepted; ``rtc lint --baseline FILE``
reports them but does not fail on them, so a CI job fails only on new findings. A finding is
identified by its source file name, code, severity, key path and example text (not by its
message, whose wording may improve). An accepted finding may carry a ``reason`` (why it is
accepted), which ``--write-baseline`` keeps for every finding still there.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

import click

from .findings import RANK, SEVERITIES, Finding

_COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}
BASELINE_NOTE = (
    "Accepted rtc lint findings: each is reported but does not fail `rtc lint --baseline`. "
    "Regenerate with `rtc lint --all generated/ --write-baseline tests/data/lint_baseline.json` "
    "and review the diff."
)


def key(finding: Finding) -> tuple[str, str, str, str, str]:
    text = finding.example.text if finding.example is not None else ""
    return (finding.source or "", finding.code, finding.severity, finding.path, text)


def source_name(path: str) -> str:
    """How a source is named in a baseline: its file name (folders: the folder's name)."""
    return os.path.basename(os.path.normpath(path))


def read_baseline(path: str) -> set[tuple[str, str, str, str, str]]:
    return set(read_reasons(path))


def read_reasons(path: str) -> dict[tuple[str, str, str, str, str], str | None]:
    """Every accepted finding's key, and the reason it was accepted (None if none is given)."""
    from rtc.compiler.sources import read_json_file

    data = read_json_file(path)
    accepted = data.get("accepted") if isinstance(data, dict) else None
    if not isinstance(accepted, dict):
        from rtc.compiler.errors import SourceError

        raise SourceError(f'{path}: not an rtc lint baseline (no "accepted" object)')
    out = {}
    for source, items in accepted.items():
        for item in items:
            found = (source, item["code"], item["severity"], item["path"], item["text"])
            out[found] = item.get("reason")
    return out


def baseline_json(
    findings: Iterable[Finding],
    reasons: dict[tuple[str, str, str, str, str], str | None] | None = None,
) -> str:
    """The baseline accepting ``findings``; ``reasons`` (by key) are kept on those that have
    one."""
    accepted: dict[str, list[dict[str, str]]] = {}
    for finding in sorted(findings, key=lambda f: key(f)):
        source, code, severity, path, text = key(finding)
        item = {"code": code, "severity": severity, "path": path, "text": text}
        reason = (reasons or {}).get(key(finding))
        if reason:
            item["reason"] = reason
        accepted.setdefault(source, []).append(item)
    payload = {"note": BASELINE_NOTE, "accepted": dict(sorted(accepted.items()))}
    return json.dumps(payload, ensure_ascii=False, indent=1) + "\n"


def failing(findings: Iterable[Finding], fail_on: str) -> bool:
    return any(RANK[f.severity] <= RANK[fail_on] for f in findings)


def as_json(findings: list[Finding], accepted: int = 0) -> str:
    """``{"findings": [...]}``; ``tools`` is the tool list every example was parsed with."""
    from .shapes import TOOLS

    payload: dict[str, Any] = {"findings": [f.to_json() for f in findings], "tools": TOOLS}
    if accepted:
        payload["accepted"] = accepted
    return json.dumps(payload, ensure_ascii=False, indent=2)


def _printable(text: str) -> str:
    """``text`` with every non-printable character escaped: messages quote template data and
    model output, which must not reach the terminal as control sequences or line breaks."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def _value(value: Any) -> str:
    text = _printable(json.dumps(value, ensure_ascii=False))
    return text if len(text) <= 400 else text[:399] + "…"


def as_text(findings: list[Finding], sources: list[str], accepted: int = 0) -> str:
    """Findings grouped by source, then by severity; colours are added by ``click.echo`` and
    kept only on a terminal."""
    lines: list[str] = []
    for source in sources:
        mine = [f for f in findings if f.source == source]
        counts = ", ".join(f"{sum(f.severity == s for f in mine)} {s}" for s in SEVERITIES)
        lines.append(click.style(f"{_printable(source)}: {counts}", bold=True))
        for severity in SEVERITIES:
            group = [f for f in mine if f.severity == severity]
            if not group:
                continue
            lines.append("")
            lines.append(click.style(f"  {severity.upper()}", fg=_COLOURS[severity], bold=True))
            for f in group:
                lines += _finding_lines(f)
        lines.append("")
    if accepted:
        lines.append(f"({accepted} accepted finding(s) from the baseline not shown)")
    return "\n".join(lines).rstrip() + "\n"


def _finding_lines(f: Finding) -> list[str]:
    colour = _COLOURS[f.severity]
    lines = [
        "  " + click.style(f"{f.severity}[{f.code}]", fg=colour) + f" {_printable(f.path)}",
        f"    {_printable(f.message)}",
    ]
    if f.example is not None:
        lines.append(f"    prefix: {_value(f.example.prefix)}")
        lines.append(f"    text:   {_value(f.example.text)}")
        if isinstance(f.result, dict) and len(f.example.runs) > 1:
            for label, result in f.result.items():
                lines.append(f"    {_printable(label)}: {_value(result)}")
        else:
            lines.append(f"    result: {_value(f.result)}")
    if f.suggestion:
        lines.append(f"    suggestion: {_printable(f.suggestion)}")
    return lines
