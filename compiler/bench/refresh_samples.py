"""Choosing the region samples from the test data (a maintainer's tool, not run by the bench).

``python -m rtc.compiler.bench.refresh_samples tests/data`` rewrites ``region_samples.json``: for
every family of the installed catalogue (``rtc.generated``) and every region its template has,
the first record, in this order, whose region can be grown:

1. the catalogue fixtures, ``catalogue/FAMILY/fixtures.jsonl`` (model outputs from the serving
   engines' own test suites, each with its upstream provenance; not those listed in the
   family's ``known_gaps.json``), then the family's hand-written cases, ``cases/FAMILY.jsonl``
   and ``family_cases/FAMILY.jsonl``;
2. within each file, records whose message has more regions first (an answer after reasoning
   and before tool calls is a whole turn), then in file order.

A region can be grown when its text occurs exactly once in the generation (the content or
reasoning value stripped; for ``arguments`` the longest string argument, as written, inside a
JSON string, or quoted, which a JSON string then replaces) and, replaced by the bench's prose in
both variants, comes back in the intended field when the family's parser parses it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from ..codegen import load
from .config import FULL
from .prose import VARIANTS
from .region_samples import (
    DATA_FILE,
    ENCODINGS,
    REGIONS,
    Sample,
    argument_strings,
    region_problem,
)
from .regions import region_field
from .workloads import plan_template

_ABOUT = (
    "Real generations of each catalogue family, one per region, copied byte for byte from the "
    "test data (file, id and the record's own origin kept with each); written by "
    "`python -m rtc.compiler.bench.refresh_samples tests/data`, read by rtc.compiler.bench."
)


def _records(data: Path, family: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The family's records, each with the rank of its file (see the module docstring)."""
    folder = data / "catalogue" / family
    meta = json.loads((folder / "family.json").read_text(encoding="utf-8"))
    gaps_file = folder / "known_gaps.json"
    gaps = json.loads(gaps_file.read_text(encoding="utf-8")) if gaps_file.exists() else {}
    files = [
        (folder / "fixtures.jsonl", "id"),
        (data / "cases" / f"{family}.jsonl", "name"),
        (data / "family_cases" / f"{family}.jsonl", "name"),
    ]
    for rank, (path, key) in enumerate(files):
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            raw = json.loads(line)
            if raw[key] in gaps and rank == 0:
                continue  # the family's parser does not give what this output means
            record = {
                "file": "tests/data/" + path.relative_to(data).as_posix(),
                "id": raw[key],
                "text": raw["text"],
                "prefix": raw.get("prefix", meta.get("prompt", "")),
            }
            if raw.get("source"):
                record["origin"] = raw["source"]
            if raw.get("tools") is not None:
                record["tools"] = raw["tools"]
            yield rank, record


def _values(message: dict[str, Any], region: str, field: str) -> list[str]:
    """The texts a region of a parsed message holds, most promising first."""
    value = message.get(field)
    if region != "arguments":
        return [value.strip()] if isinstance(value, str) and value.strip() else []
    found = {text for text in argument_strings(value) if len(text) >= 2 and text[:1] not in "{["}
    return sorted(found, key=lambda text: (-len(text), text))


def _grows(sample: Sample, parse: Any, field: str) -> bool:
    for variant in VARIANTS.values():
        body = variant(FULL.region_size, FULL.region_size)
        grown = sample.grow(body)
        if grown is None:
            return False
        try:
            message = parse(grown, sample.prefix, sample.tools)
        except Exception:  # does not parse: not this sample
            return False
        if region_problem(message, sample.region, field, body) is not None:
            return False
    return True


def choose(family: str, template: dict[str, Any], data: Path) -> tuple[dict[str, Any], list[str]]:
    """The records and region entries of one family (its part of the data file), and the
    regions its template has but no record could grow."""
    module = load(template)
    plan = plan_template(template)

    def parse(text: str, prefix: str, tools: Any) -> Any:
        return module.parse_response(text, prefix=prefix, tools=tools)

    parsed: list[tuple[tuple[int, int], dict[str, Any], dict[str, Any]]] = []
    for index, (rank, record) in enumerate(_records(data, family)):
        try:
            message = parse(record["text"], record["prefix"], record.get("tools"))
        except Exception:  # a fixture of an error case: no region to grow
            continue
        parsed.append(((rank, index), record, message))
    fields = [f.name for r in REGIONS if not isinstance(f := region_field(plan, r), str)]

    def present(message: dict[str, Any]) -> int:
        return sum(1 for f in fields if message.get(f) and str(message.get(f)).strip())

    # Preferred file first, then more regions, then file order.
    parsed.sort(key=lambda item: (item[0][0], -present(item[2]), item[0][1]))
    records: list[dict[str, Any]] = []
    regions: dict[str, Any] = {}
    missing: list[str] = []
    for region in REGIONS:
        field = region_field(plan, region)
        if isinstance(field, str):
            continue
        chosen = _first_growable(parsed, region, field.name, family, parse)
        if chosen is None:
            missing.append(region)
            continue
        record, value, encoding = chosen
        if record not in records:
            records.append(record)
        regions[region] = {"record": records.index(record), "value": value, "encoding": encoding}
    return {"records": records, "regions": regions}, missing


def _first_growable(
    ranked: list[tuple[tuple[int, int], dict[str, Any], dict[str, Any]]],
    region: str,
    field: str,
    family: str,
    parse: Any,
) -> tuple[dict[str, Any], str, str] | None:
    for _index, record, message in ranked:
        for value in _values(message, region, field):
            inner = ENCODINGS["json"](value)
            written_as = [
                (value, "raw"),
                (inner, "json"),
                (f'"{inner}"', "quoted"),
                (f"'{value}'", "quoted"),
            ]
            for written, encoding in written_as:
                if record["text"].count(written) != 1:
                    continue
                sample = Sample(
                    family,
                    region,
                    record["text"],
                    record["prefix"],
                    record.get("tools"),
                    written,
                    encoding,
                    {},
                )
                if _grows(sample, parse, field):
                    return record, written, encoding
    return None


def refresh(data: Path) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The whole data file's content, from the test data folder ``data``, and the regions
    of each family that no record could grow."""
    families: dict[str, Any] = {}
    missing: dict[str, list[str]] = {}
    generated = resources.files("rtc.generated")
    for entry in sorted(generated.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        family = entry.name[: -len(".json")]
        if not (data / "catalogue" / family / "family.json").exists():
            continue
        template = json.loads(entry.read_text(encoding="utf-8"))
        families[family], missing[family] = choose(family, template, data)
    return {"about": _ABOUT, "families": families}, missing


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0], "catalogue").is_dir():
        print("usage: python -m rtc.compiler.bench.refresh_samples TESTS_DATA_DIR", file=sys.stderr)
        return 2
    content, missing = refresh(Path(argv[0]).resolve())
    target = Path(str(resources.files("rtc.compiler.bench") / DATA_FILE))
    text = json.dumps(content, ensure_ascii=False, indent=1, sort_keys=False) + "\n"
    target.write_text(text, encoding="utf-8")
    for family, regions in missing.items():
        if regions:
            print(f"{family}: no record grows {', '.join(regions)}", file=sys.stderr)
    print(f"wrote {target} ({len(text.encode('utf-8')) // 1024} KB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
