"""What ``rtc infer`` learned and from where, and what it could not prove."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Evidence:
    """One inferred part (``part``: the template key or a description), its value, and the
    renders that show it."""

    part: str
    value: str
    why: str

    def to_json(self) -> dict[str, str]:
        return {"part": self.part, "value": self.value, "why": self.why}


class Unproven(Exception):
    """A part of the template the renders do not prove: ``part`` names it, the message says
    why."""

    def __init__(self, part: str, why: str) -> None:
        super().__init__(f"{part}: {why}")
        self.part = part
        self.why = why

    def to_json(self) -> dict[str, str]:
        return {"part": self.part, "why": self.why}
