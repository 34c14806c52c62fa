"""OpenAI deltas (``DeltaStream``, ``parse_openai``) of every module, beside the reference.

For every catalogue template and case (``data/cases``, ``data/family_cases``) and for random
templates from the differential strategies, each text is streamed whole, in chunks of 1 to 8
characters, in random cuts and (short texts) in every two-way split; each run must keep a
strict client's rules (``openai_check.Client``: ``role`` once, ``index`` from 0 without gaps,
``id``/``type``/``name`` once per call, nothing for a call after its last piece), accumulate to
the message ``finish()`` returns, give the same deltas with the fused fast path off, and, where
no field occurs twice and nothing was rejected, equal the reference's streamed message mapped
to the OpenAI shape. Where the reference's message does not depend on the chunking, neither do
the deltas (text pieces joined, ids aside).
"""

from __future__ import annotations

import functools
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from catalogue_data import family
from hypothesis import event, given
from hypothesis import strategies as st
from openai_check import CUT, check_chunkings, counting_ids
from reference import Reference, load
from strategies import chunkings, prefixes, template_plans, texts, tool_lists
from test_differential import deterministic

import rtc.generated as catalogue
from rtc.compiler import load as compile_module

DATA = Path(__file__).parent / "data"
EXAMPLES = int(os.environ.get("RTC_OPENAI_EXAMPLES", "300"))
"""Random templates (each with two texts and several chunkings); RTC_DIFF_SEED picks others."""
TWO_WAY_MAX = 160
"""Texts up to this length are also cut in two at every position."""


def _chunkings(text: str, seed: str, two_way: bool = True) -> dict[str, list[str]]:
    ways = {"whole": [text]}
    for size in range(1, 9):
        ways[f"{size}-char"] = [text[i : i + size] for i in range(0, len(text), size)]
    rng = random.Random(seed)
    for k in range(2):
        cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, 6)))
        bounds = [0, *cuts, len(text)]
        ways[f"random-{k}"] = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    if two_way and len(text) <= TWO_WAY_MAX:
        for cut in range(1, len(text)):
            ways[f"{CUT}{cut}"] = [text[:cut], text[cut:]]
    return ways


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _cases() -> list[Any]:
    """(template, case) pairs: the shared cases with the shared templates they were recorded
    for, and each catalogue family's own cases and real-output fixtures with its template."""
    params = []
    for path in sorted((DATA / "cases").glob("*.jsonl")):
        template = json.loads((DATA / "templates" / path.name).with_suffix(".json").read_text())
        for case in _lines(path):
            params.append(pytest.param(template, case, id=f"cases/{path.stem}/{case['name']}"))
    for name in catalogue.names():
        template = catalogue.get(name).TEMPLATE
        for case in _lines(DATA / "family_cases" / f"{name}.jsonl"):
            params.append(pytest.param(template, case, id=f"family/{name}/{case['name']}"))
        if not (DATA / "catalogue" / name / "family.json").exists():
            continue
        for fx in family(name).fixtures:
            case = {"name": fx.id, "prefix": fx.prefix, "text": fx.text, "tools": fx.tools}
            case["fixture"] = True
            params.append(pytest.param(template, case, id=f"fixtures/{name}/{fx.id}"))
    return params


def _module(template: dict[str, Any]) -> Any:
    """The committed catalogue module for ``template`` if there is one, else one compiled now."""
    for name in catalogue.names():
        if catalogue.get(name).TEMPLATE == template:
            return catalogue.get(name)
    return compile_module(template)


@functools.cache
def _loaded(ref: Reference, template_json: str) -> Any:
    return ref.load(json.loads(template_json))


@pytest.mark.parametrize(("template", "case"), _cases())
def test_catalogue_case(template: dict[str, Any], case: dict[str, Any], ref: Reference) -> None:
    module = _module(template)
    loaded = _loaded(ref, json.dumps(template))
    text, prefix, tools = case["text"], case["prefix"], case.get("tools")
    ways = _chunkings(text, case["name"], two_way=not case.get("fixture"))
    if case.get("fixture"):  # real outputs: many, and the cases cover every chunk size already
        ways = {k: ways[k] for k in ("whole", "1-char", "3-char", "random-0")}
    problem = check_chunkings(module, ref, loaded, prefix, tools, ways)
    assert not problem, problem
    # parse_openai is what a stream fed the whole text accumulates.
    whole = module.parse_openai(text, prefix=prefix, tools=tools, id_factory=counting_ids())
    stream = module.DeltaStream(prefix, tools=tools, id_factory=counting_ids())
    stream.feed(text)
    _, message, reason = stream.finish()
    assert whole == (message, reason, stream.problems)


@pytest.mark.parametrize("keys", [("reasoning_content",), ("reasoning", "reasoning_content")])
def test_reasoning_keys(keys: tuple[str, ...], ref: Reference) -> None:
    for name in catalogue.names():
        module = catalogue.get(name)
        loaded = _loaded(ref, json.dumps(module.TEMPLATE))
        for case in _lines(DATA / "family_cases" / f"{name}.jsonl")[:3]:
            ways = _chunkings(case["text"], name, two_way=False)
            ways = {k: ways[k] for k in ("whole", "3-char")}
            args = (module, ref, loaded, case["prefix"], case.get("tools"), ways, keys)
            assert not (problem := check_chunkings(*args)), problem


@deterministic(EXAMPLES)
@given(data=st.data())
def test_random_templates(data: st.DataObject) -> None:
    ref = Reference(timeout=0.3)
    plan = data.draw(template_plans(), label="plan")
    state, ref_loaded = load(ref, plan.template)
    event(f"load: {state}")
    if state != "ok":
        return
    try:
        module = compile_module(plan.template)
    except (ValueError, TypeError):
        return  # rejected at load by both (the differential tests check that they agree)
    for _ in range(2):
        prefix = data.draw(prefixes(plan), label="prefix")
        tools = data.draw(tool_lists(), label="tools")
        text = data.draw(texts(plan), label="text")
        ways = {"whole": [text], "1-char": list(text), "chunks": data.draw(chunkings(text))}
        cut = data.draw(st.integers(0, len(text)), label="cut")
        ways["two-way"] = [text[:cut], text[cut:]]
        problem = check_chunkings(module, ref, ref_loaded, prefix, tools, ways)
        assert not problem, f"template = {json.dumps(plan.template)}\n{problem}"


CALL = {"type": "function", "function": {"name": "f", "arguments": "{content}"}}
FOUND = [
    # Zero-width open and close around a body that cannot parse: the region has no text, so
    # it raises like the reference instead of being rejected again at the same place forever.
    ({"content": {"open_pattern": "", "close_pattern": "", "content": "json"}}, "<A>"),
    # A call field without repeats: a second call region is reported (the reference keeps one).
    ({"tool_calls": {"open": "<a>", "close": ["<a", "<ab"], "transform": CALL}}, "<a>hi<a<a>hi<a"),
    # Regions that differ with the chunking while the reference's message does not.
    ({"tool_calls": {"close_pattern": "a\\Kb", "content": "bool"}}, "ab<A>ab"),
    ({"content": {}, "thinking": {"open": ["END", "E"], "close": "<a>"}}, "ENDhi<a>Ehi<a>"),
    ({"tool_calls": {"open": "<a>", "close": ["END", "E"], "transform": CALL}}, "<a>hiEND"),
]
"""Examples the random tests found with other seeds, kept as cases."""


@pytest.mark.parametrize(("fields", "text"), FOUND)
def test_found_cases(fields: dict[str, Any], text: str, ref: Reference) -> None:
    template = {"start_anchor": "<A>", "fields": fields}
    module = compile_module(template)
    ways = _chunkings(text, text)
    problem = check_chunkings(module, ref, ref.load(template), "", None, ways)
    assert not problem, problem


# --- calls that can be announced ---------------------------------------------------------------

OPENINGS = [
    (r"<call=(?P<name>\w+)>", "<call={}>"),
    (r"\s*<call=(?P<name>[^>\n]+)>\n?", "\n<call={}>\n"),
    (r"<c>(?:<f>)?(?P<name>[\w.]+)\(", "<c>{}("),
]
TAGS = [
    (r"<p=(?P<key>\w+)>\s*(?P<value>.*?)\s*</p>", "<p={}> {} </p>"),  # parameters streamed
    (r"<p=(?P<key>[^>]+)>(?P<value>.*?)</p>", "<p={}>{}</p>"),  # parameters streamed
    (r"<p=(?P<key>\w+)>(?P<value>[^<]*)</p>", "<p={}>{}</p>"),  # announced, whole arguments
    (r"<p=(?P<key>\w+)>(?:(?P<value>\d+)|-)</p>", "<p={}>{}</p>"),  # value may be unset
]
VALUES = ["7", "x y", "", "true", "1.5", '{"a": 1}', "[1, 2]", "-", "\n3\n", "é"]


@st.composite
def call_plans(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
    """A template whose tool calls the compiler may announce (or not, one key away), and a
    strategy for texts made of its calls, parameters, reasoning and content."""
    opening, open_text = draw(st.sampled_from(OPENINGS))
    tag, param_text = draw(st.sampled_from(TAGS))
    args: dict[str, Any] = {"tag_pattern": tag}
    if draw(st.integers(0, 4)) == 0:
        args["value_parser"] = draw(st.sampled_from([{"name": "text"}, {"name": "bool"}, "json"]))
        if args["value_parser"] == "json":
            args["value_parser"] = {"name": "json", "args": {"allow_non_json": True}}
    if draw(st.integers(0, 5)) == 0:
        args["merge_duplicates"] = True
    name = "{name}" if draw(st.integers(0, 4)) else "f"
    calls: dict[str, Any] = {
        "open_pattern": opening,
        "close": draw(st.sampled_from(["</call>", ")", "</c>"])),
        "content": "xml-inline",
        "content_args": args,
        "transform": {"type": "function", "function": {"name": name, "arguments": "{content}"}},
    }
    if draw(st.integers(0, 5)):
        calls["repeats"] = True
    fields = {
        "thinking": {"open": "<t>", "close": "</t>"},
        "tool_calls": calls,
        "content": {"close": "<end>"},
    }
    template = {"start_anchor": "<A>", "fields": fields}

    def call(draw: st.DrawFn) -> str:
        params = [
            param_text.format(
                draw(st.sampled_from(["x", "y", "k", "a b"])), draw(st.sampled_from(VALUES))
            )
            for _ in range(draw(st.integers(0, 3)))
        ]
        body = open_text.format(draw(st.sampled_from(["f", "g", "get_x"]))) + "".join(params)
        return body + (calls["close"] if draw(st.integers(0, 6)) else "")

    piece = st.one_of(
        st.composite(call)(),
        st.sampled_from(["Hello ", "<t> hm </t>", "\n", "<end>", "<p=x>1</p>", "<ca", "</p", " "]),
    )
    return template, st.lists(piece, min_size=1, max_size=5).map("".join)


@deterministic(max(EXAMPLES // 3, 1))
@given(data=st.data())
def test_random_calls(data: st.DataObject) -> None:
    """Templates whose calls are announced (or sent whole one key away), on texts of calls."""
    ref = Reference(timeout=0.3)
    template, texts_of = data.draw(call_plans(), label="template")
    module = compile_module(template)
    plan = module.DeltaStream._calls[1]
    event("announced" if plan.announce else "whole")
    event("parameters streamed" if plan.params is not None else "arguments whole")
    tools = data.draw(tool_lists(), label="tools")
    text = data.draw(texts_of, label="text")
    cut = data.draw(st.integers(0, len(text)), label="cut")
    ways = {"whole": [text], "1-char": list(text), "two-way": [text[:cut], text[cut:]]}
    ways["chunks"] = data.draw(chunkings(text), label="chunks")
    problem = check_chunkings(module, ref, ref.load(template), "", tools, ways)
    assert not problem, f"template = {json.dumps(template)}\n{problem}"
