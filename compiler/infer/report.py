"""``rtc infer``'s explanation: the evidence for each part, the verification, the refusals."""

from __future__ import annotations

from . import Inference
from .text import shown


def explanation(found: Inference, source: str, rendered: int) -> str:
    lines = [f"{source}: {rendered} probes rendered"]
    for e in found.evidence:
        value = shown(e.value, 80) if e.value else "(none)"
        lines.append(f"  {e.part}: {value}: {e.why}")
    if found.outcomes:
        passed = sum(o.ok for o in found.outcomes)
        lines.append(f"  verified: {passed}/{len(found.outcomes)} probes round-trip")
    if found.template is not None:
        lines.append("  rtc lint: no error")
    return "\n".join(lines) + "\n"


def refusals(found: Inference) -> str:
    lines = [f"rtc infer: cannot infer {p.part}: {p.why}" for p in found.problems]
    lines.append("rtc infer: no template written")
    return "\n".join(lines) + "\n"
