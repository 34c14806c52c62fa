"""Real generations of each catalogue family, one per region, for the region workloads.

``region_samples.json`` (beside this module) holds, for each family of the installed catalogue
and each region it has (``answer``: the content field, ``reasoning``, ``arguments``: a tool call's
string argument), one model output from the family's own test data: the catalogue fixtures
(what the serving engines' test suites feed their parsers) first, then the hand-written cases.
The bench never reads the test suite at run time (it is not installed with the package): the
records are copied here, byte for byte, each with the file and id it came from and that
record's own provenance. ``python -m rtc.compiler.bench.refresh_samples tests/data`` writes the
file again (``refresh_samples`` says how a record is chosen).

A sample names the text of its region in the generation (``value``, found exactly once) and how
prose is written in its place (``encoding``: as it is, inside a JSON string, or as a whole JSON
string); growing the region replaces that text with prose (``grow``), and ``region_problem``
checks, on the parsed message, that the prose came back in the intended field.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

DATA_FILE = "region_samples.json"
REGIONS: tuple[str, ...] = ("answer", "reasoning", "arguments")
"""The regions a server streams: the answer (content), the reasoning, a tool call's arguments."""

ENCODINGS: dict[str, Callable[[str], str]] = {
    "raw": lambda text: text,
    # Inside a JSON string, as a model writes a string argument of a JSON call (UTF-8 as is).
    "json": lambda text: json.dumps(text, ensure_ascii=False)[1:-1],
    # A whole JSON string, quotes included: replaces a quoted value of a Python-style call
    # (`f(city='LA')`), whose single quotes could not hold the prose's apostrophes.
    "quoted": lambda text: json.dumps(text, ensure_ascii=False),
}


@dataclass(frozen=True)
class Sample:
    """One generation and where its region's text is."""

    family: str
    region: str
    text: str
    prefix: str
    tools: list[Any] | None
    value: str
    """The region's text in ``text`` (it occurs there exactly once)."""
    encoding: str
    """How text is written in the region (a key of ``ENCODINGS``)."""
    source: dict[str, Any]
    """``file`` and ``id`` of the record in the test data, and ``origin``: the record's own
    provenance (an upstream repository, path and commit), when it has one."""

    def grow(self, body: str) -> str | None:
        """The generation with the region's text replaced by ``body`` (None: the value no
        longer occurs exactly once, the sample is stale)."""
        if self.text.count(self.value) != 1:
            return None
        head, tail = self.text.split(self.value)
        return head + ENCODINGS[self.encoding](body) + tail

    def describe(self) -> str:
        where = f"{self.source['file']}#{self.source['id']}"
        origin = self.source.get("origin") or {}
        upstream = origin.get("repo") or origin.get("url")
        return f"{where} (from {upstream})" if upstream else where


@cache
def load_samples() -> dict[str, dict[str, Sample]]:
    """``{family: {region: Sample}}`` from the packaged data file (empty when it is absent)."""
    entry = resources.files("rtc.compiler.bench") / DATA_FILE
    if not entry.is_file():
        return {}
    data = json.loads(entry.read_text(encoding="utf-8"))
    out: dict[str, dict[str, Sample]] = {}
    for family, entry_data in data["families"].items():
        records = entry_data["records"]
        out[family] = {}
        for region, where in entry_data["regions"].items():
            record = records[where["record"]]
            out[family][region] = Sample(
                family=family,
                region=region,
                text=record["text"],
                prefix=record["prefix"],
                tools=record.get("tools"),
                value=where["value"],
                encoding=where["encoding"],
                source={k: record[k] for k in ("file", "id", "origin") if k in record},
            )
    return out


ARGUMENT_KEYS = frozenset(("arguments", "parameters", "args", "input"))
"""Keys under which a parsed tool call keeps its arguments (its name is not an argument)."""


def argument_strings(value: Any, inside: bool = False) -> Iterator[str]:
    """Every string among the arguments of parsed tool calls (``inside``: ``value`` already is
    arguments); a string of JSON arguments is decoded too."""
    if isinstance(value, str):
        if not inside:
            return
        yield value
        if value[:1] in ("{", "["):
            try:
                yield from argument_strings(json.loads(value), True)
            except ValueError:
                pass
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from argument_strings(item, inside or key in ARGUMENT_KEYS)
    elif isinstance(value, list):
        for item in value:
            yield from argument_strings(item, inside)


def region_problem(message: Any, region: str, field: str, body: str) -> str | None:
    """Why ``body`` did not come back in ``field`` of a parsed message (None: it did).

    Text regions compare stripped, as text fields are; ``arguments``: some string of the tool
    calls (an argument's value) is ``body`` exactly.
    """
    if not isinstance(message, dict):
        return f"parsed to {type(message).__name__}"
    value = message.get(field)
    if region == "arguments":
        if any(text == body for text in argument_strings(value)):
            return None
        return f"no argument of {field!r} is the grown text"
    if isinstance(value, str) and value.strip() == body:
        return None
    shown = repr(value) if not isinstance(value, str) else f"{len(value)} chars"
    return f"field {field!r} is not the grown text (got {shown})"
