"""The figures of README's "From a chat template to a parser": ``rtc match`` and ``rtc infer`` on
every chat template the tests keep, printed as Markdown.

    python tests/match_measure.py                 # the catalogue's chat templates and the others
    python tests/match_measure.py --json out.json  # also every result, for a closer look

For each catalogue family with a chat template (``tests/data/catalogue/NAME/chat_template.jinja``
and the ones ``tests/data/match/families.json`` adds): whether the family's own parser (or one
giving the same messages) ranks first, and the families that round-trip every probe; whether
``rtc infer`` writes a template, and how its parser does on the family's real-output fixtures
(``fixtures.jsonl``, one shot, compared by meaning as ``tests/test_catalogue_fixtures.py``
compares) beside the catalogue parser. For the chat templates outside the catalogue
(``tests/data/match/others/``): how many a family round-trips entirely, how many ``rtc infer``
writes a template for, and the failures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from catalogue_data import (
    CATALOGUE,
    catalogue_names,
    expected_meaning,
    family,
    meaning,
)  # noqa: E402

import rtc.generated as catalogue  # noqa: E402
from rtc.compiler import load  # noqa: E402
from rtc.compiler.infer import infer  # noqa: E402
from rtc.compiler.match import match  # noqa: E402

DATA = Path(__file__).parent / "data" / "match"


def catalogue_chat_templates() -> list[tuple[str, str, dict[str, str]]]:
    """(family, chat template, special tokens) for every family that has one."""
    out = []
    for name in catalogue_names():
        spec = family(name).meta.get("chat_template")
        if spec:
            out.append((name, family(name).chat_template(), spec.get("special_tokens") or {}))
    added = json.loads((DATA / "families.json").read_text(encoding="utf-8"))
    for name, spec in sorted(added["families"].items()):
        if any(n == name for n, _, _ in out):
            continue
        text = (DATA / "chat_templates" / spec["file"]).read_text(encoding="utf-8")
        out.append((name, text, spec.get("special_tokens") or {}))
    return sorted(out)


def other_chat_templates() -> list[tuple[str, str, dict[str, str]]]:
    listing = json.loads((DATA / "others.json").read_text(encoding="utf-8"))
    out = []
    for name, spec in sorted(listing["templates"].items()):
        text = (DATA / "others" / name).read_text(encoding="utf-8")
        out.append((name, text, spec.get("special_tokens") or {}))
    return out


def fixtures_met(module: Any, name: str) -> tuple[int, int]:
    fixtures = family(name).fixtures
    met = 0
    for fx in fixtures:
        try:
            got = module.parse_response(fx.text, prefix=fx.prefix, tools=fx.tools)
        except Exception:  # noqa: BLE001 -- a parser that raises does not meet the fixture
            continue
        met += meaning(got) == expected_meaning(fx.expected)
    return met, len(fixtures)


def catalogue_row(name: str, text: str, tokens: dict[str, str]) -> dict[str, Any]:
    started = time.perf_counter()
    found = match(text, tokens)
    matched = time.perf_counter() - started
    own = next(s for s in found.ranking if s.family == name)
    top = found.ranking[0]
    inferred = infer(text, tokens)
    row: dict[str, Any] = {
        "family": name,
        "probes": own.total,
        "own": own.passed,
        "top": top.passed,
        "own_first": own.passed == top.passed,
        "best": found.best,
        "match_seconds": round(matched, 3),
        "inferred": inferred.template is not None,
        "problems": [f"{p.part}: {p.why}" for p in inferred.problems],
    }
    if (CATALOGUE / name / "fixtures.jsonl").exists():
        row["catalogue_fixtures"] = fixtures_met(catalogue.get(name), name)
        if inferred.template is not None:
            row["inferred_fixtures"] = fixtures_met(load(inferred.template), name)
    return row


def other_row(name: str, text: str, tokens: dict[str, str]) -> dict[str, Any]:
    try:
        found = match(text, tokens)
        inferred = infer(text, tokens)
    except Exception as exc:  # noqa: BLE001 -- a template that does not compile is a row too
        return {"template": name, "error": f"{type(exc).__name__}: {exc}"}
    top = found.ranking[0]
    return {
        "template": name,
        "probes": top.total,
        "top": f"{top.family} {top.passed}/{top.total}",
        "best": found.best,
        "first_difference": top.first_difference,
        "inferred": inferred.template is not None,
        "problems": [f"{p.part}: {p.why}" for p in inferred.problems],
    }


def _fixtures(row: dict[str, Any], key: str) -> str:
    if key not in row:
        return "—"
    met, total = row[key]
    return f"{met}/{total}"


def markdown(rows: list[dict[str, Any]], others: list[dict[str, Any]]) -> str:
    lines = [
        "| family | own parser first | round-trips every probe | `rtc infer` | its parser on the "
        "fixtures | catalogue parser |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        own = f"{'yes' if r['own_first'] else 'no'} ({r['own']}/{r['probes']})"
        best = ", ".join(r["best"]) or "none"
        inferred = "written" if r["inferred"] else "refused: " + "; ".join(r["problems"])[:160]
        lines.append(
            f"| `{r['family']}` | {own} | {best} | {inferred} | "
            f"{_fixtures(r, 'inferred_fixtures')} | {_fixtures(r, 'catalogue_fixtures')} |"
        )
    lines += ["", "| chat template | best | `rtc infer` |", "|---|---|---|"]
    for r in others:
        if "error" in r:
            lines.append(f"| `{r['template']}` | error: {r['error'][:100]} | — |")
            continue
        best = ", ".join(r["best"]) or f"none (top: {r['top']})"
        inferred = "written" if r["inferred"] else "refused: " + "; ".join(r["problems"])[:160]
        lines.append(f"| `{r['template']}` | {best} | {inferred} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="also write every result as JSON")
    args = parser.parse_args()
    rows = [catalogue_row(*entry) for entry in catalogue_chat_templates()]
    others = [other_row(*entry) for entry in other_chat_templates()]
    print(markdown(rows, others))
    first = sum(r["own_first"] for r in rows)
    written = sum(r["inferred"] for r in rows)
    print(f"catalogue: {len(rows)} chat templates; own parser first: {first}; inferred: {written}")
    print(
        f"others: {len(others)}; some family round-trips every probe: "
        f"{sum(bool(r.get('best')) for r in others)}; inferred: "
        f"{sum(bool(r.get('inferred')) for r in others)}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps({"catalogue": rows, "others": others}, indent=1))


if __name__ == "__main__":
    main()
