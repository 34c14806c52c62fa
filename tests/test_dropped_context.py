"""States that drop consumed text (``Fast.drops``) answer as keeping it does.

A parser whose patterns look behind keeps some consumed text (``_context``). A state none of
whose delimiters looks behind, and each of whose delimiters consumes at least that much, drops
it instead (the argument is ``rtc.compiler.lowering.states.drops``): the fast path then commits a
chunk as a parser that keeps nothing does. Here every parser is compared with the same parser
keeping consumed text in every state (its Fasts with ``drops`` off): each call's events, the
message, an exception's type must be the same, for random templates and for every catalogue
family on its real outputs, looping generations and prose in token-sized chunks. The
differential suites compare the dropping parsers with the reference. The last test shows that
the argument's length condition is needed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from strategies import chunkings, template_plans, texts
from test_fast_path import PROSE, prose_and_pieces, run
from test_remembered_searches import _outputs

import rtc.compiler.lowering.states as states
from rtc.compiler import load
from rtc.compiler.errors import TemplateError
from rtc.compiler.lint.repetitions import fragments, times_for
from rtc.compiler.model import Delimiter
from rtc.compiler.validate import validate

ROOT = Path(__file__).resolve().parent.parent
FAMILIES = sorted(path.stem for path in (ROOT / "generated").glob("*.json"))


def keeping(parser: type[Any]) -> type[Any]:
    """``parser`` with every state keeping consumed text (no ``Fast.drops``)."""
    fasts = tuple(None if f is None else f._replace(drops=False) for f in parser._fasts)
    return type("Keeping", (parser,), {"__slots__": (), "_fasts": fasts})


def drops_somewhere(parser: type[Any]) -> bool:
    return any(parser._drops)


@settings(max_examples=500, derandomize=True, deadline=None, database=None)
@given(data=st.data())
def test_random_templates_answer_alike_dropping_or_keeping(data: st.DataObject) -> None:
    plan = data.draw(template_plans(), label="plan")
    try:
        parser = load(plan.template).ResponseParser
    except (TemplateError, ValueError, TypeError):
        return  # a broken template: nothing is parsed
    if not drops_somewhere(parser):
        return
    event("a state drops consumed text")
    kept = keeping(parser)
    text = data.draw(texts(plan), label="text")
    prose = data.draw(prose_and_pieces(plan), label="prose")
    for chunks in ([text], data.draw(chunkings(text), label="chunks"), list(text), prose):
        chunks = [c for c in chunks if isinstance(c, str)]
        assert run(parser, "", chunks) == run(kept, "", chunks), (plan.template, chunks)


def _family(name: str) -> type[Any]:
    module = __import__(f"rtc.generated.{name}", fromlist=["ResponseParser"])
    return module.ResponseParser


def _tokens(text: str) -> list[str]:
    """Token-sized pieces: a word with its leading space, a run of anything else."""
    pieces: list[str] = []
    for i, c in enumerate(text):
        if pieces and (c.isalnum() or c == "_") and (text[i - 1].isalnum() or text[i - 1] in " _"):
            pieces[-1] += c
        else:
            pieces.append(c)
    return pieces


DROPPING = [name for name in FAMILIES if drops_somewhere(_family(name))]


def test_some_catalogue_families_drop() -> None:
    """The families this module checks (a parser keeping text in a looking-behind pattern)."""
    assert {"gpt_oss", "llama3", "mistral_v3"} <= set(DROPPING)


@pytest.mark.parametrize("name", DROPPING)
def test_catalogue_families_answer_alike_dropping_or_keeping(name: str) -> None:
    parser = _family(name)
    template = json.loads((ROOT / "generated" / f"{name}.json").read_text(encoding="utf-8"))
    kept = keeping(parser)
    generations = _outputs(name)
    for fragment in fragments(validate(template)):
        generations.append(fragment.generation(times_for(fragment.text, 60)))
    prose = "".join(PROSE) * 3
    generations += [prose + text + prose for text in generations[:4]]
    for text in generations:
        for chunks in ([text], _tokens(text), list(text[:600])):
            assert run(parser, "", chunks) == run(kept, "", chunks), (name, text[:200])


def _delim(pattern: str) -> Delimiter:
    return Delimiter("open_pattern", pattern, (), False, ())


def test_which_states_drop() -> None:
    literal = Delimiter("close", "</a>", ("</a>",), False, ())
    assert states.drops([literal, _delim("<b>\\w+")], 1)
    assert states.drops([], 4)  # a field without a close is never left
    assert not states.drops([literal], 0)  # nothing is kept anywhere: nothing to drop
    assert not states.drops([literal], None)  # no bound known: everything is kept
    assert not states.drops([literal, _delim("(?<=x)y")], 1)  # it looks behind itself
    assert not states.drops([literal, _delim("^y")], 1)  # ^ reads the kept character
    assert not states.drops([_delim("(?=z)")], 1)  # an exit may consume nothing
    assert not states.drops([_delim("ab")], 3)  # an exit may consume less than the context
    assert states.drops([_delim("x\\Kab")], 3)  # what the attempt consumed counts


def test_the_length_condition_is_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside 'a' nothing looks behind, but its close consumes nothing: the open of 'b', which
    looks one character behind, is read right where 'a' closes, at text consumed inside 'a'."""
    fields = {
        "a": {"open": "<a>", "close_pattern": "(?=z)"},
        "b": {"open_pattern": "(?<=y)z", "close": "</b>"},
        "content": {},
    }
    template: dict[str, Any] = {"start_anchor": "<s>", "fields": fields}
    chunks = ["<a>", "y", "z", "w"]
    parser = load(template).ResponseParser
    assert not parser._drops[1]
    assert run(parser, "", chunks) == run(keeping(parser), "", chunks)
    # Without the condition (a template of its own: load() caches by content).
    monkeypatch.setattr(states, "drops", lambda delims, context: bool(context))
    unguarded = load({**template, "defaults": {"role": "assistant"}}).ResponseParser
    assert unguarded._drops[1]
    assert run(unguarded, "", chunks) != run(keeping(unguarded), "", chunks)
