"""Searches remembered during one pass of the loop (``rtc.runtime.ahead``) answer as searching
again does.

The loop remembers a search's result for the rest of a pass over a span of ``LONG_SPAN``
characters or more. Here the threshold is moved: to 0, every pass remembers (the memo is used
on every search of every state, in texts of any length), and out of reach, no pass does (the
plain searches, which the differential suites compare with the reference). Every observable
(each call's events, the message, an exception's type) must be the same: for random templates
and texts fed whole, in pieces and a character at a time, and for every catalogue family on its
real outputs and on looping generations of its own fragments.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import chunkings, template_plans, texts
from test_fast_path import run

import rtc.compiler.lowering.delimiters as delimiters
import rtc.runtime.engine as engine
import rtc.runtime.loop as loop
from rtc.compiler import load
from rtc.compiler.errors import TemplateError
from rtc.compiler.lint.repetitions import fragments, times_for
from rtc.compiler.validate import validate

ROOT = Path(__file__).resolve().parent.parent
FAMILIES = sorted(path.stem for path in (ROOT / "generated").glob("*.json"))
DATA = Path(__file__).resolve().parent / "data"
NEVER = 1 << 62


@contextmanager
def long_span(threshold: int) -> Iterator[None]:
    """Passes over spans of ``threshold`` characters or more remember their searches."""
    saved = loop.LONG_SPAN, engine.LONG_SPAN
    loop.LONG_SPAN = engine.LONG_SPAN = threshold
    try:
        yield
    finally:
        loop.LONG_SPAN, engine.LONG_SPAN = saved


def both(parser: type[Any], prefix: str, chunks: list[str]) -> tuple[list[Any], list[Any]]:
    """What ``run`` observes with every pass remembering its searches, and with none."""
    with long_span(0):
        remembered = run(parser, prefix, chunks)
    with long_span(NEVER):
        plain = run(parser, prefix, chunks)
    return remembered, plain


def test_the_threshold_reaches_the_loop() -> None:
    """The switch this module relies on: with the threshold at 0 the memo is made and filled."""
    fields = {"a": {"open": "<a>", "close": "</a>"}, "b": {"open": "<b>", "close": "</b>"}}
    module = load({"start_anchor": "<s>", "fields": fields})
    seen: list[list[Any]] = []
    scan = module.ResponseParser._scan[0]

    def spy(buf: str, pos: int, memo: list[Any]) -> Any:
        seen.append(memo)
        return scan(buf, pos, memo)

    slow = type("Spy", (module.ResponseParser,), {"__slots__": (), "_fasts": (None,) * 3})
    slow._scan = (spy, *module.ResponseParser._scan[1:])
    with long_span(0):
        run(slow, "", ["<a>x</a><a>y</a>"])
    assert seen and all(len(memo) == module.ResponseParser._memo_size for memo in seen)
    assert any(any(slot is not None for slot in memo) for memo in seen)
    seen.clear()
    with long_span(NEVER):
        run(slow, "", ["<a>x</a><a>y</a>"])
    assert seen and all(memo == [] for memo in seen)


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(data=st.data())
def test_random_templates_answer_alike_remembered_or_not(data: st.DataObject) -> None:
    plan = data.draw(template_plans(), label="plan")
    try:
        parser = load(plan.template).ResponseParser
    except (TemplateError, ValueError):
        return  # a broken template: nothing is parsed
    text = data.draw(texts(plan), label="text")
    for chunks in ([text], data.draw(chunkings(text), label="chunks"), list(text)):
        remembered, plain = both(parser, "", [c for c in chunks if isinstance(c, str)])
        assert remembered == plain, (plan.template, chunks)


def _family(name: str) -> tuple[dict[str, Any], type[Any]]:
    template = json.loads((ROOT / "generated" / f"{name}.json").read_text(encoding="utf-8"))
    module = __import__(f"rtc.generated.{name}", fromlist=["ResponseParser"])
    return template, module.ResponseParser


def _outputs(name: str) -> list[str]:
    """Some of the family's real outputs (its fixtures and cases)."""
    texts = []
    for path in (
        DATA / "catalogue" / name / "fixtures.jsonl",
        DATA / "family_cases" / f"{name}.jsonl",
    ):
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines()[:4]:
                text = json.loads(line).get("text")
                if isinstance(text, str):
                    texts.append(text)
    return texts


@pytest.mark.parametrize("name", FAMILIES)
def test_catalogue_families_answer_alike_remembered_or_not(name: str) -> None:
    template, parser = _family(name)
    generations = _outputs(name)
    for fragment in fragments(validate(template)):
        generations.append(fragment.generation(times_for(fragment.text, 300)))
    mixed = "".join(generations)
    generations.append(mixed)  # many regions of different kinds in one buffer
    for text in generations:
        for chunks in ([text], [text[i : i + 700] for i in range(0, len(text), 700)]):
            remembered, plain = both(parser, "", chunks)
            assert remembered == plain, (name, text[:200])


# A pattern whose match depends on where the search starts is never remembered: here the winner
# (the open of 'a', whose close is empty) ends where the content close's remembered answer is
# no longer the answer. \K: the match found from 0 was attempted at the '>' (before 3) and
# reported from 3; searched from 3, there is none. \G: from 0 there is none; from 3, 'z'.
_START_SENSITIVE = [">\\Kz", "\\Gz"]


@pytest.mark.parametrize("close", _START_SENSITIVE)
def test_patterns_that_depend_on_the_search_start_are_not_remembered(
    close: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fields = {"a": {"open": "<a>", "close_pattern": "(?=z)"}, "content": {"close_pattern": close}}
    template: dict[str, Any] = {"start_anchor": "<s>", "fields": fields}
    remembered, plain = both(load(template).ResponseParser, "", ["<a>z"])
    assert remembered == plain
    # The exclusion is what keeps them alike (a template of its own: load() caches by content).
    monkeypatch.setattr(delimiters, "start_sensitive", lambda tree: False)
    unguarded = load({**template, "defaults": {"role": "assistant"}}).ResponseParser
    remembered, plain = both(unguarded, "", ["<a>z"])
    assert remembered != plain
