"""Every catalogue parser on every rendered probe, ranked by the probes each one gives back."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import rtc.generated as catalogue

from .compare import difference
from .probes import Rendered, render_all


@dataclass(frozen=True)
class Outcome:
    """One probe parsed by one parser: ``difference`` is None when it round-trips."""

    label: str
    difference: str | None
    message: Any

    @property
    def ok(self) -> bool:
        return self.difference is None

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "ok": self.ok, "difference": self.difference}


@dataclass(frozen=True)
class Score:
    """One parser's evidence: its outcome on every rendered probe."""

    family: str
    outcomes: tuple[Outcome, ...]

    @property
    def passed(self) -> int:
        return sum(o.ok for o in self.outcomes)

    @property
    def total(self) -> int:
        return len(self.outcomes)

    @property
    def complete(self) -> bool:
        """Every probe round-trips."""
        return self.passed == self.total

    @property
    def first_difference(self) -> str | None:
        failed = next((o for o in self.outcomes if not o.ok), None)
        return None if failed is None else f"{failed.label}: {failed.difference}"

    def to_json(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "round_tripped": self.passed,
            "probes": self.total,
            "first_difference": self.first_difference,
            "outcomes": [o.to_json() for o in self.outcomes],
        }


@dataclass(frozen=True)
class Match:
    """The probes as the chat template rendered them, and every parser's score, best first."""

    probes: tuple[Rendered, ...]
    ranking: tuple[Score, ...]

    @property
    def rendered(self) -> list[Rendered]:
        return [p for p in self.probes if p.error is None]

    @property
    def best(self) -> list[str]:
        """The families that round-trip every rendered probe (empty when none does)."""
        return [s.family for s in self.ranking if s.complete and s.total]

    def to_json(self) -> dict[str, Any]:
        return {
            "probes": [p.to_json() for p in self.probes],
            "best": self.best,
            "ranking": [s.to_json() for s in self.ranking],
        }


def outcome(module: ModuleType, probe: Rendered) -> Outcome:
    """``probe``'s turn parsed by ``module`` after its prompt, compared with what was written."""
    try:
        message = module.parse_response(probe.turn, prefix=probe.prompt, tools=probe.tools)
    except Exception as exc:  # noqa: BLE001 -- the parser's answer, whatever it raises
        return Outcome(probe.label, f"parsing raises {type(exc).__name__}: {exc}", None)
    return Outcome(probe.label, difference(probe.expected, message), message)


def score(family: str, module: ModuleType, probes: Iterable[Rendered]) -> Score:
    return Score(family, tuple(outcome(module, p) for p in probes if p.error is None))


def rank(probes: Iterable[Rendered], families: Iterable[str] | None = None) -> Match:
    """Each family of ``families`` (default: the whole catalogue) scored on ``probes``."""
    probes = tuple(probes)
    names = list(families) if families is not None else catalogue.names()
    scores = [score(name, catalogue.get(name), probes) for name in names]
    scores.sort(key=lambda s: (-s.passed, s.family))
    return Match(probes, tuple(scores))


def match(
    chat_template: str,
    special_tokens: Mapping[str, str] | None = None,
    *,
    families: Iterable[str] | None = None,
) -> Match:
    """The catalogue ranked by how many probes rendered by ``chat_template`` it gives back.

    Raises :class:`rtc.compiler.chat.ChatTemplateError` when the template does not compile.
    """
    return rank(render_all(chat_template, special_tokens), families)
