"""The catalogue's real-output data: what each family's model emits and what it means.

Layout, one folder per catalogue family (``tests/data/catalogue/NAME/``, NAME as in ``generated/``):

``family.json``
    ``origin``: ``"official"`` (a checkpoint or transformers ships this exact template; then
    ``official_copy`` names the byte-identical copy under ``tests/data``) or ``"rtc"`` (written and
    maintained here); ``base``: the family a sibling or variant belongs to (its name starts with the
    base's model name, ``gemma4`` → ``gemma4_rtc``, ``granite4`` → ``granite3``, and its start
    anchor is the base's); ``written_from``: where the template's
    format comes from (chat template, model card, parser tests), each ``{"repo", "path", "commit"}``
    or ``{"url"}`` with a ``what``; ``model_types``: what ``rtc.generated.for_model_type`` maps to
    it; ``reasoning_field``: the template's reasoning field (``reasoning_content``, ``thinking`` or
    ``reasoning``) or null; ``prompt``: a real generation prompt ending where the model starts
    writing (fixtures are parsed after it unless they carry their own ``prefix``); ``stop``: the
    end-of-turn / stop tokens that serving engines strip; ``chat_template``: null, or
    ``{"file", "repo", "path", "commit", "licence", "special_tokens", "kwargs", "reasoning_key"}``
    for round trips (the file is kept verbatim beside ``family.json``); ``not_expressible``: what
    the model means that response templates (transformers 5.23.0) cannot express, and why;
    ``whitespace``: what ``tests/test_catalogue_whitespace.py`` needs to know to build texts for
    the family (documented there).

``fixtures.jsonl``
    One model output per line: ``id``; ``source`` (``{"repo", "path", "commit", "test"}`` for a test
    suite, ``{"url", "what"}`` for documentation); ``text`` (as the engine hands it over: stop token
    stripped); optional ``prefix`` and ``tools``; ``expected``: ``reasoning``, ``content`` (strings,
    absent or null when there is none) and ``tool_calls`` (``[{"name", "arguments"}]``, arguments as
    a JSON value).

``known_gaps.json``
    ``{fixture id or "round-trip:CASE": reason}``: what the family's parser does not meet, and why.
    A gap that starts passing fails the suite until it is removed from the list.

``tests/data/catalogue/fixtures_before.json``
    What the catalogue's parsers met of these fixtures at an earlier commit (README's table).

``tests/data/catalogue/cut_off_calls.jsonl``
    One call per rtc-written family cut off by the end of the generation (``text``; the
    ``complete`` call it was cut from, with that fixture's ``source``), and real partial outputs
    from llama.cpp's tests: material for the serving layer's report of a truncated call.

Comparison is by meaning: reasoning and content are compared stripped of surrounding whitespace
(an empty one counts as absent), tool calls by name and by arguments as JSON values (a string of
arguments is decoded first).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
CATALOGUE = DATA / "catalogue"
GENERATED = Path(__file__).resolve().parents[1] / "generated"

REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
ORIGINS = ("official", "rtc")
FAMILY_KEYS = {
    "origin",
    "official_copy",
    "base",
    "written_from",
    "model_types",
    "reasoning_field",
    "prompt",
    "stop",
    "chat_template",
    "not_expressible",
    "description",
    "whitespace",
}
FIXTURE_KEYS = {"id", "source", "text", "prefix", "tools", "expected", "note"}
EXPECTED_KEYS = {"reasoning", "content", "tool_calls"}


@dataclass(frozen=True)
class Fixture:
    family: str
    id: str
    source: dict[str, Any]
    text: str
    prefix: str
    tools: list[Any] | None
    expected: dict[str, Any]

    @property
    def key(self) -> str:
        return f"{self.family}/{self.id}"


@dataclass
class Family:
    name: str
    meta: dict[str, Any]
    fixtures: list[Fixture] = field(default_factory=list)
    gaps: dict[str, str] = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        return CATALOGUE / self.name

    @property
    def stops(self) -> list[str]:
        return list(self.meta.get("stop") or [])

    def chat_template(self) -> str | None:
        spec = self.meta.get("chat_template")
        if not spec:
            return None
        return (self.folder / spec["file"]).read_text(encoding="utf-8")


def catalogue_names() -> list[str]:
    """The catalogue as committed: every ``generated/NAME.json``."""
    return sorted(p.stem for p in GENERATED.glob("*.json"))


@cache
def family(name: str) -> Family:
    folder = CATALOGUE / name
    meta = json.loads((folder / "family.json").read_text(encoding="utf-8"))
    fam = Family(name, meta)
    path = folder / "fixtures.jsonl"
    if path.exists():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            raw = json.loads(line)
            unknown = set(raw) - FIXTURE_KEYS
            assert not unknown, f"{path}:{n}: unknown keys {sorted(unknown)}"
            unknown = set(raw["expected"]) - EXPECTED_KEYS
            assert not unknown, f"{path}:{n}: unknown expected keys {sorted(unknown)}"
            fam.fixtures.append(
                Fixture(
                    family=name,
                    id=raw["id"],
                    source=raw["source"],
                    text=raw["text"],
                    prefix=raw.get("prefix", meta["prompt"]),
                    tools=raw.get("tools"),
                    expected=raw["expected"],
                )
            )
    gaps = folder / "known_gaps.json"
    if gaps.exists():
        fam.gaps = json.loads(gaps.read_text(encoding="utf-8"))
    return fam


def all_fixtures() -> list[Fixture]:
    return [fx for name in catalogue_names() for fx in family(name).fixtures]


VLLM = "vllm-project/vllm"


def expectation(fx: Fixture) -> tuple[str, ...]:
    """One of vLLM's expectations: a test's text and expected message after the same prompt, in
    a family's group (the family, or the base of a sibling or variant that copies the fixture)."""
    return (
        family(fx.family).meta.get("base") or fx.family,
        fx.source["path"],
        fx.source["test"],
        fx.text,
        fx.prefix,
        json.dumps(fx.expected, sort_keys=True),
        json.dumps(fx.tools, sort_keys=True),
    )


# --- comparing by meaning ---------------------------------------------------------------------


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        return value  # a non-string is compared as it is (and will not equal a string)
    value = value.strip()
    return value or None


def _arguments(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return {} if value is None else value


def _call(item: Any) -> Any:
    if not isinstance(item, dict):
        return ("not a call", item)
    function = item.get("function")
    if isinstance(function, dict):
        return (function.get("name"), _arguments(function.get("arguments")))
    args = item.get("arguments", item.get("parameters"))
    return (item.get("name"), _arguments(args))


def meaning(message: dict[str, Any]) -> dict[str, Any]:
    """What a parsed message says: reasoning, content and calls, compared by value."""
    reasoning = None
    for key in REASONING_FIELDS:
        if _text(message.get(key)) is not None:
            reasoning = _text(message.get(key))
            break
    calls = message.get("tool_calls") or []
    if isinstance(calls, dict):
        calls = [calls]
    return {
        "reasoning": reasoning,
        "content": _text(message.get("content")),
        "tool_calls": [_call(c) for c in calls],
    }


def expected_meaning(expected: dict[str, Any]) -> dict[str, Any]:
    return {
        "reasoning": _text(expected.get("reasoning")),
        "content": _text(expected.get("content")),
        "tool_calls": [
            (c["name"], _arguments(c.get("arguments"))) for c in expected.get("tool_calls") or []
        ],
    }


def chunkings(text: str) -> dict[str, list[str]]:
    """How fixtures are streamed: one character at a time and in 3- and 7-character pieces."""
    return {
        f"{size}-char": [text[i : i + size] for i in range(0, len(text), size)] or [""]
        for size in (1, 3, 7)
    }
