"""``rtc match``'s output: a table of the ranking, or its JSON."""

from __future__ import annotations

import json

from .ranking import Match


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def as_text(found: Match, source: str) -> str:
    """A line saying what was rendered and which families round-trip it all, then one row per
    family (best first): family, probes round-tripped, first difference."""
    rendered = found.rendered
    skipped = [p for p in found.probes if p.error is not None]
    best = found.best
    verdict = (
        f"{len(best)} round-trip every probe: {', '.join(best)}"
        if best
        else "no family round-trips every probe"
    )
    lines = [
        f"{_printable(source)}: {len(rendered)} probes rendered"
        + (f" ({len(skipped)} not rendered)" if skipped else "")
        + f"; {verdict}",
        "",
    ]
    width = max((len(s.family) for s in found.ranking), default=6)
    lines.append(f"{'family':<{width}}  probes  first difference")
    for s in found.ranking:
        count = f"{s.passed}/{s.total}"
        lines.append(f"{s.family:<{width}}  {count:>6}  {_printable(s.first_difference or '-')}")
    for p in skipped:
        lines.append(f"not rendered: {p.label}: {_printable(p.error or '')}")
    return "\n".join(lines) + "\n"


def as_json(found: Match, source: str) -> str:
    return json.dumps({"source": source, **found.to_json()}, ensure_ascii=False, indent=2)
