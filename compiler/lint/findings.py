"""What the lint reports: findings, their examples and severities."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .probe import ONE_SHOT, Probe, Run

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)
"""Most severe first."""

RANK = {ERROR: 0, WARNING: 1, INFO: 2}


@dataclass(frozen=True)
class Example:
    """A minimal input and what the compiled parser gives for it.

    ``runs`` say how ``result`` was produced, so it can be produced again (the tests re-run
    every example): one run gives ``result`` itself, several give ``{label: result}``. Runs
    pass the probe's tool list (``shapes.TOOLS``), so tool arguments are typed as in a server.
    """

    prefix: str
    text: str
    runs: tuple[Run, ...] = (Run("result", ONE_SHOT),)

    def produce(self, probe: Probe) -> Any:
        results = {run.label: probe.result(self.prefix, self.text, run) for run in self.runs}
        return results[self.runs[0].label] if len(self.runs) == 1 else results


@dataclass(frozen=True)
class Finding:
    """One problem: ``path`` is the template key it is about (``fields.tool_calls.open``)."""

    code: str
    severity: str
    path: str
    message: str
    example: Example | None = None
    result: Any = None
    suggestion: str | None = None
    source: str | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity,
            "path": self.path,
            "message": self.message,
            "example": None,
            "suggestion": self.suggestion,
        }
        if self.example is not None:
            example: dict[str, Any] = {
                "prefix": self.example.prefix,
                "text": self.example.text,
                "result": self.result,
            }
            out["example"] = example
        if self.source is not None:
            out["source"] = self.source
        return out

    def sort_key(self) -> tuple[int, str, str, str]:
        return (
            RANK[self.severity],
            self.code,
            self.path,
            self.example.text if self.example else "",
        )
