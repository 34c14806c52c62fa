"""One end-of-stream pass for one-shot parsing where a close depends on where its search
starts (``\\G``, ``\\K``): ``rtc.compiler.regex_syntax.context.settles_where_it_starts``.

``parse_response`` in the reference is ``feed(text)`` then ``finalize()``. A compiled parser
reads the text in one end-of-stream pass instead where the compiler proves that the same; for
closes that match where a value ends (``\\G(?:(?&jv)\\K|...)``) it proves it when the close is
the only delimiter watched in its state, ``\\G`` opens each branch and ``\\K`` ends what is
consumed. Checked here against the same parser fed and finalized, on random texts, for closes
of those shapes and for ones the proof must refuse (where forcing one pass is shown to differ).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtc.generated
from rtc.compiler import load

SETTINGS = settings(max_examples=300, derandomize=True, deadline=None, database=None)

SETTLING = [
    r"\G(?:x+\K|(?<=\]))",
    r"\G(?:\[[^\]]*\]\K|(?<=\]))",
    r"\G(?:ab|a)\K",
    r"\Gx*\K(?(DEFINE)(y))",
    r"\G(?:x+|\[\])\K|\G(?<=y)",
    r"\Gab",
    r"\G",
]
# Refused: \K before more of the match (llama3's close, `\G(?:(?&jv)\K|(?<=\}))\s*\}...`),
# with \G or without it.
UNSETTLED = [r"\G(?:x+\K|(?<=\]))\s*y", r"x\K\s*y"]
PIECES = ["<c>", "x", "xx", "[", "]", "[a]", " ", "\n", "y", "a", "b", "ab", "<e>", "hi", "</c>"]


def template(close: str) -> dict[str, Any]:
    return {
        "start_anchor": "<S>",
        "fields": {
            "call": {"open": "<c>", "close_pattern": close, "content": "text"},
            "content": {"close": "<e>", "content": "text"},
        },
    }


def fed_and_finalized(parser: type[Any]) -> type[Any]:
    return type("Fed" + parser.__name__, (parser,), {"__slots__": (), "_whole_pass_exact": False})


def one_pass(parser: type[Any]) -> type[Any]:
    return type("One" + parser.__name__, (parser,), {"__slots__": (), "_whole_pass_exact": True})


def outcome(parser: type[Any], text: str) -> Any:
    try:
        return parser.parse_response(text, prefix="")
    except Exception as exc:  # the exception type is the observable
        return ("raises", type(exc).__name__)


@pytest.mark.parametrize("close", SETTLING)
@SETTINGS
@given(pieces=st.lists(st.sampled_from(PIECES), max_size=10))
def test_one_pass_parses_as_feed_and_finalize(close: str, pieces: list[str]) -> None:
    parser = load(template(close)).ResponseParser
    assert parser._whole_pass_exact
    text = "".join(pieces)
    assert outcome(parser, text) == outcome(fed_and_finalized(parser), text), text


@pytest.mark.parametrize("close", UNSETTLED)
def test_the_refused_closes_keep_feed_and_finalize(close: str) -> None:
    """The proof refuses them, and forcing one pass would indeed answer differently on some
    text (so the conditions are not idle)."""
    parser = load(template(close)).ResponseParser
    assert not parser._whole_pass_exact
    texts = ["<c>xx y", "<c>x", "<c>xx", "<c>ax", "<c>x y<e>", "a<c>x y", "<c>x y"]
    assert any(outcome(parser, t) != outcome(one_pass(parser), t) for t in texts), close


def test_a_search_start_inside_a_branch_is_refused() -> None:
    """``\\G`` anywhere but at the head of a top-level branch is outside the argument (no text
    was found where one pass would differ for these: the proof is only conservative here)."""
    for close in (r"(?:a|\G)x", r"a?\Gx"):
        assert not load(template(close)).ResponseParser._whole_pass_exact, close


@pytest.mark.parametrize("name", ["granite3", "mistral", "mistral_magistral", "mistral_v3"])
def test_json_value_closes_take_one_pass(name: str) -> None:
    """The catalogue's closes that match where a JSON value ends settle where they start
    (llama3's does not: its \\K comes before the closing brace)."""
    assert rtc.generated.get(name).ResponseParser._whole_pass_exact
    assert not rtc.generated.get("llama3").ResponseParser._whole_pass_exact
