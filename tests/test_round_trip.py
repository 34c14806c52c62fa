"""Round trips: a message rendered by the model's own chat template parses back to itself.

For every catalogue family that keeps its chat template (``family.json``'s ``chat_template``, the
file verbatim beside it), each assistant message below is rendered after a user turn with
transformers' own chat-template rendering (a real tokenizer built offline), the assistant turn is
cut off after the generation prompt, and the family's parser must give back the same reasoning,
content and tool calls (arguments by value, typed by the request's tools). A difference is either
fixed or listed in ``known_gaps.json`` as ``round-trip:CASE`` with its reason.

Where a chat template renders history turns differently from its generation prompt (Cohere always
appends the prompt, R1-Distill and Gemma 4 open a thinking block in the prompt only), the turn
starts after the longest common prefix of the two renderings, moved past the family's start
anchor when the anchor follows it: the parser sees the turn as a history turn, which is what a
round trip checks.
"""

from __future__ import annotations

import copy
import json
import os
from functools import cache
from typing import Any

import pytest
import regex
from catalogue_data import GENERATED, catalogue_names, family, meaning
from offline_tokenizer import build_tokenizer

import rtc.generated as catalogue

pytestmark = pytest.mark.core

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the weather forecast for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "days": {"type": "integer", "description": "Forecast days"},
                    "metric": {"type": "boolean", "description": "Metric units"},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search_flights",
            "description": "Search flights between two airports.",
            "parameters": {
                "type": "object",
                "properties": {
                    "origin": {"type": "string"},
                    "destination": {"type": "string"},
                    "passengers": {"type": "integer"},
                    "max_price": {"type": "number"},
                    "filters": {"type": "object"},
                    "airlines": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["origin", "destination"],
            },
        },
    },
]

USER = {"role": "user", "content": "Plan my trip to Paris next week."}


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    # Ids are nine alphanumerics: Mistral's templates refuse any other shape.
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


WEATHER = _call("call00001", "get_weather", {"city": "Paris", "days": 3, "metric": True})
FLIGHTS = _call(
    "call00002",
    "search_flights",
    {
        "origin": "JFK",
        "destination": "CDG",
        "passengers": 2,
        "max_price": 799.5,
        "filters": {"nonstop": True, "cabin": "economy"},
        "airlines": ["AF", "DL"],
    },
)
REASONING = "The user wants a trip plan. I should check the weather first."

CASES: dict[str, dict[str, Any]] = {
    "content": {"content": "Paris is lovely in spring: pack a light jacket."},
    "reasoning-content": {"reasoning": REASONING, "content": "Pack a light jacket."},
    "one-call": {"tool_calls": [WEATHER]},
    "typed-call": {"tool_calls": [FLIGHTS]},
    "two-calls": {"tool_calls": [WEATHER, FLIGHTS]},
    "reasoning-call": {"reasoning": REASONING, "tool_calls": [WEATHER]},
    "content-call": {"content": "Let me check the forecast.", "tool_calls": [WEATHER]},
}

FAMILIES = [n for n in catalogue_names() if family(n).meta.get("chat_template")]
PARAMS = [pytest.param(name, case, id=f"{name}/{case}") for name in FAMILIES for case in CASES]


@cache
def _tokenizer(name: str) -> Any:
    fam = family(name)
    spec = fam.meta["chat_template"]
    return build_tokenizer(fam.chat_template(), spec.get("special_tokens"))


def _assistant(name: str, case: str) -> dict[str, Any]:
    spec = family(name).meta["chat_template"]
    parts = copy.deepcopy(CASES[case])
    message: dict[str, Any] = {"role": "assistant", "content": parts.get("content", "")}
    if "reasoning" in parts:
        message[spec.get("reasoning_key", "reasoning_content")] = parts["reasoning"]
    if "tool_calls" in parts:
        message["tool_calls"] = parts["tool_calls"]
    return message


def _anchor_ends(name: str, text: str) -> list[tuple[int, int]]:
    """(start, end) of every match of the family's start anchor in ``text``."""
    template = json.loads((GENERATED / f"{name}.json").read_text(encoding="utf-8"))
    if "start_anchor_pattern" in template:
        found = regex.finditer(template["start_anchor_pattern"], text, flags=regex.DOTALL)
        return [match.span() for match in found]
    anchors = template["start_anchor"]
    pattern = "|".join(
        regex.escape(a)
        for a in sorted([anchors] if isinstance(anchors, str) else anchors, key=len)[::-1]
    )
    return [match.span() for match in regex.finditer(pattern, text)]


def render(name: str, case: str) -> tuple[str, str]:
    """(prompt, assistant turn) as the chat template writes them."""
    spec = family(name).meta["chat_template"]
    tokenizer = _tokenizer(name)
    kwargs = dict(spec.get("kwargs") or {})
    prompt = tokenizer.apply_chat_template(
        [USER], tools=TOOLS, tokenize=False, add_generation_prompt=True, **kwargs
    )
    whole = tokenizer.apply_chat_template(
        [USER, _assistant(name, case)], tools=TOOLS, tokenize=False, **kwargs
    )
    if whole.startswith(prompt):
        return prompt, whole[len(prompt) :]
    # The turn's own anchor is the last one that starts before the renderings part (or after
    # only whitespace there).
    common = len(os.path.commonprefix([prompt, whole]))
    limit = common + len(whole[common:]) - len(whole[common:].lstrip())
    ends = [end for start, end in _anchor_ends(name, whole) if start <= limit]
    if not ends:
        raise AssertionError(
            f"cannot find the assistant turn: prompt {prompt[-200:]!r}, "
            f"conversation {whole[common - 100 : common + 200]!r}"
        )
    return whole[: ends[-1]], whole[ends[-1] :]


def _problem(name: str, case: str) -> str | None:
    try:
        prompt, turn = render(name, case)
    except Exception as exc:  # noqa: BLE001 -- a template that cannot render this is a finding
        return f"rendering fails: {type(exc).__name__}: {exc}"
    want = meaning({"role": "assistant", **CASES[case]})
    try:
        got = catalogue.get(name).parse_response(turn, prefix=prompt, tools=TOOLS)
    except Exception as exc:  # noqa: BLE001
        return f"parsing {turn!r} raises {type(exc).__name__}: {exc}"
    if meaning(got) != want:
        return f"{turn!r} parses to {meaning(got)}, expected {want}"
    return None


@pytest.mark.parametrize(("name", "case"), PARAMS)
def test_round_trip(name: str, case: str) -> None:
    problem = _problem(name, case)
    gap = family(name).gaps.get(f"round-trip:{case}")
    if gap is None:
        assert problem is None, f"{name}/{case}: {problem}"
    else:
        assert (
            problem is not None
        ), f"{name}/{case} now round-trips: remove round-trip:{case} from known_gaps.json"


def test_round_trip_cases_are_known() -> None:
    for name in FAMILIES:
        for key in family(name).gaps:
            if key.startswith("round-trip:"):
                assert key.removeprefix("round-trip:") in CASES, f"{name}: unknown case {key}"
