"""A held match that keeps growing through whitespace (``rtc.compiler.regex_syntax.growth``,
``rtc.runtime.growing.grown``): an open delimiter ending in ``\\s*`` that the model follows
with whitespace is held while each chunk of whitespace is appended without a search. Checked
against the same parser taking the general path on every chunk, on random patterns of the
shapes the argument covers and of shapes it must refuse, and on every catalogue family's own
delimiters followed by whitespace runs.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_fast_path import agree_on, run, without_fast_path

import rtc.generated
from rtc.compiler import load
from rtc.compiler.lint.repetitions import fragments
from rtc.compiler.regex_syntax.growth import Growth, growth, growths
from rtc.compiler.validate import validate

SETTINGS = settings(max_examples=40, derandomize=True, deadline=None, database=None)

# Opens: the shapes growth() accepts (literals, patterns, a look-ahead for one character or
# after literals none of which is a prefix of another), and near misses it must refuse.
OPENS = [
    r"<a>\s*",
    r"(?:<a>|<ab>)\s*",
    r"(?:<ab>|<a>)\s+",
    r"<a(?:b|c)*>\s*",
    r"(?:<x>\s*)?<a>\s*",
    r"<a>\s*|<b>",
    r"<b>|<a>\s*",
    r"(?<=x)<a>\s*",
    r"\s*<a>\s*",
    r"<a>\s*(?=\{)",
    r"(?:<a>|<b>)\s*(?=\[|\{)",
    r"(?:<a>|<a>b)\s*(?=\{)",
    r"<a>\s*(?=\{\s*\})",
    r"<a>\s*(?=x\s{2})",
    r"<a>\s*(?=\s)",
    r"<a>\s*(?=\s*\{)",
    r"(?:<a>b|<a>)\s*(?=b\s{3})",
    r"<a>(?!\s{3})\s*",
    r"<a>\s*(?=\{?)",
    r"<a>\s*?",
    r"<a>[ \t]*",
    r"<a>\s*(?!\{)",
    r"<a>(?:\s*\{)?\s*",
    r"<a>\s*$",
    r"<a>\s*\b",
    r"<a>\s*(?:x|$|(?=\{))",
    r"<a>\s*(?:x|\s)",
    r"(?<=x)\s*(?=\{\s*y)|<a>\s*(?=\[)",
    r"(?:^|(?<=x))\s*(?=\[\s*\{)|(?:<a>|\[a\])\s*(?=\[)",
    r"<a(?:b|c)*>\s*(?=\{\s*\}|\d+)",
    r"<a(?:b|c)*>\s*(?=\{(?!\s*x\s*:)\s*\})",
    r"<a(?:b|c)*>\s*(?=\{(?!\s*x\s\s)\s*\}|\{)",
    # Refused: a longer look-ahead after a P that consumes, or after a one-character one.
    r"(?:<ab|<a)\s*(?=b\s\s)|<c>\s*(?=\[)",
    r"b\s*(?=\[)|(?<=x)\s*(?=b\s\s)",
    # A run inside the look-ahead, after a settled value, before one character (llama3's head:
    # (?=(?&jv)\s*\})); and near misses.
    r"<a>\s*(?=\{[^{}]*\}\s*\])",
    r"<a>(?=\d+\s*;)",
    r"<a>\s*(?=(?&v)\s*\})(?(DEFINE)(?P<v>\{[^{}]*\}|\d+|\[(?&v)?\]))",
    r"<a>(?=x?\s*\})",  # the value may be empty
    r"<a>(?=\s*x\s*\})",  # it may begin with whitespace
    r"<a>(?=\{\}\s*\s)",  # the last character may be whitespace
    r"<a>(?=\{\}\s*\}\])",  # more than one character after the run
]
PIECES = ["<a>", "<ab>", "<a>b", "<b>", "<x>", "<", "a", ">", "x", "{", "}", "[", "</c>", "</d>"]
PIECES += ["y", "[a]", "[{", "x<a>", "b", "xb", "<ab", "{}", "{x}", "7", "]", ";", "[]"]
SPACES = [" ", "\n", "\n\n", "\t ", "\xa0", "\u2028", "\x1c", "   \n"]


@pytest.mark.parametrize("open_", OPENS)
@SETTINGS
# A value between the head and the run (the run inside the look-ahead), always tried.
@example(other="", before=[], head="<a>", value=["{}"], spaces=[" ", "\n"], after=["x"])
@example(other="", before=["x"], head="<a>", value=["7"], spaces=["\t "], after=[";"])
@given(
    other=st.sampled_from(["", r"\s*<b>", r"\n\n", "x", r"\{"]),
    before=st.lists(st.sampled_from(PIECES + SPACES), max_size=4),
    head=st.sampled_from(
        ["<a>", "<ab>", "<a>b", "<x> <a>", "<b>", "<a", "<a> ", "x", "[a]", "{", "<ab", "xb"]
    ),
    value=st.lists(st.sampled_from(["{}", "{x}", "7", "[]", "x", "{", "]"]), max_size=2),
    spaces=st.lists(st.sampled_from(SPACES), min_size=1, max_size=6),
    after=st.lists(st.sampled_from(PIECES + SPACES), max_size=4),
)
def test_growing_matches_stream_as_the_general_path(
    open_: str,
    other: str,
    before: list[str],
    head: str,
    value: list[str],
    spaces: list[str],
    after: list[str],
) -> None:
    """Some text, an open (or something near it), perhaps a value, whitespace chunks, more
    text: fed as drawn and one character at a time."""
    fields: dict[str, Any] = {"c": {"open_pattern": open_, "close": "</c>"}}
    if "(?P<" in open_:
        fields["c"]["transform"] = {"x": "{content}"}  # (named groups need one)
    if other:
        fields["d"] = {"open_pattern": other, "close": "</d>"}
    module = load({"start_anchor": "<S>", "fields": fields})
    parser = module.ResponseParser
    chunks = [*before, head, *value, *spaces, *after]
    for pieces in (chunks, list("".join(chunks))):
        assert run(parser, "", pieces) == run(without_fast_path(parser), "", pieces), pieces


def test_the_shapes_are_read_as_the_argument_says() -> None:
    """Which opens above growth() accepts, and how (so the test above covers both sides)."""
    accepted = {pattern: growth(pattern) for pattern in OPENS}
    assert accepted[r"<a>\s*"] is not None and accepted[r"<a>\s*"].literals == ("<a>",)
    assert accepted[r"(?:<ab>|<a>)\s+"].literals == ("<ab>", "<a>")  # type: ignore[union-attr]
    assert accepted[r"<a>\s*|<b>"].literals == ("<a>",)  # type: ignore[union-attr]
    assert accepted[r"(?:<a>|<b>)\s*(?=\[|\{)"] is not None
    assert accepted[r"<a(?:b|c)*>\s*"].whole  # type: ignore[union-attr]
    # A look-ahead whose matches end outside the run (a JSON value, say) after a name.
    assert accepted[r"<a(?:b|c)*>\s*(?=\{\s*\}|\d+)"].pattern == r"<a(?:b|c)*>\s*"  # type: ignore[union-attr]
    assert accepted[r"<a(?:b|c)*>\s*(?=\{(?!\s*x\s*:)\s*\})"] is not None  # (llama3's value)
    # An end assertion after the run (internlm2's close: \}\s*(?:<\|action_end\|>|$|...)).
    assert accepted[r"<a>\s*$"].literals == ("<a>",)  # type: ignore[union-attr]
    assert accepted[r"<a>\s*(?:x|$|(?=\{))"].literals == ("<a>",)  # type: ignore[union-attr]
    # <a> is a prefix of <a>b: only a one-character look-ahead keeps the argument (checked
    # by the pattern without it); after one exclusive literal, any look-ahead does.
    assert accepted[r"(?:<a>|<a>b)\s*(?=\{)"].pattern == r"(?:<a>|<a>b)\s*"  # type: ignore[union-attr]
    assert accepted[r"<a>\s*(?=x\s{2})"].literals == ("<a>",)  # type: ignore[union-attr]
    refused = [
        r"<b>|<a>\s*",  # the first branch does not run to the end
        r"<a>\s*(?=\s)",  # a look-ahead that may begin at whitespace
        r"<a>\s*(?=\s*\{)",
        r"<a>\s*(?=\{?)",  # one that may match the empty string
        r"(?:<a>b|<a>)\s*(?=b\s{3})",  # it may read on from inside <a>b
        r"<a>(?!\s{3})\s*",  # a look-ahead before the run
        r"<a>\s*?",
        r"<a>\s*(?!\{)",
        r"<a>\s*\b",
        r"<a>\s*(?:x|\s)",  # an alternative after the run that may take whitespace
        r"(?:<ab|<a)\s*(?=b\s\s)|<c>\s*(?=\[)",
        r"b\s*(?=\[)|(?<=x)\s*(?=b\s\s)",
    ]
    assert [p for p in refused if accepted[p] is not None] == []
    # A run of another class grows by what the class accepts (Growth.run), not by whitespace.
    spaces_tabs = accepted[r"<a>[ \t]*"]
    assert spaces_tabs is not None and spaces_tabs.run == "[ \\t]" and spaces_tabs.literals
    # Inside the look-ahead: a second check (growths), after the head's own where it has one.
    inside = {pattern: growths(pattern) for pattern in OPENS[-7:]}
    assert inside[r"<a>\s*(?=\{[^{}]*\}\s*\])"][-1].pattern == r"<a>\s*\{[^{}]*\}\s*"
    assert inside[r"<a>(?=\d+\s*;)"] == (Growth(pattern=r"<a>\d+\s*"),)
    assert len(inside[OPENS[-5]]) == 2  # (the DEFINE group goes with it)
    # (the near misses get no check of their run inside: at most their head's)
    assert [p for p in OPENS[-4:] if len(inside[p]) > (growth(p) is not None)] == []


# Held matches of the other two kinds: a run of a class to the end (Growth.run: gemma4's
# call:(?P<name>\w+)), and a run before a consumed character outside it (Growth.skip:
# qwen3.5's <function=(?P<name>[^>\n]+)>); with near misses (the run may take what follows).
RUN_OPENS = [
    r"<a>\w+",
    r"<a>(?P<n>[a-z_]*)",
    r"<a>\w+|<b>",
    r"<a=(?:[^>\n]+)>",
    r"\s*<t>\s*<f=(?P<n>[^>\n]+)>",
    r"(?:<x>)?<a=[^>]+>>",
    r"<a>[^<]+<b>",
    r"<a=[^>]+[>x]",  # refused: what follows the run may begin inside it
    r"<a=[^>]+>?",  # refused: what follows may be empty
]
RUN_PIECES = ["<a>", "<a=", "<t>", "<f=", "<x>", "<b>", "</c>", "<a", "<", ">", "=", "\n", " "]
RUN_PIECES += ["ab", "_", "x", "é", "1", "-", "y z", "\t", "\n<f=", "b>"]


@pytest.mark.parametrize("open_", RUN_OPENS)
@SETTINGS
@given(
    other=st.sampled_from(["", r"\s*<b>", "x"]),
    pieces=st.lists(st.sampled_from(RUN_PIECES), max_size=16),
)
def test_class_runs_and_waits_stream_as_the_general_path(
    open_: str, other: str, pieces: list[str]
) -> None:
    """Held opens that grow by a class's characters, or wait for a consumed character, fed
    as drawn and one character at a time."""
    field: dict[str, Any] = {"open_pattern": open_, "close": "</c>"}
    if "(?P<" in open_:
        field["transform"] = {"x": "{content}"}
    agree_on({"c": field}, other, pieces)


def test_class_runs_and_waits_are_read_as_the_argument_says() -> None:
    """Which of the opens above get which check (so the test above covers both sides)."""
    found = {pattern: growths(pattern) for pattern in RUN_OPENS}
    assert found[r"<a>\w+"] == (Growth(literals=("<a>",), complete=True, run="\\w"),)
    assert found[r"<a>\w+|<b>"][0].run == "\\w"
    assert found[r"<a=(?:[^>\n]+)>"] == (Growth(pattern="<a=", stops=">\n", skip=3),)
    waits = found[r"\s*<t>\s*<f=(?P<n>[^>\n]+)>"]
    assert waits == (Growth(pattern=r"\s*<t>\s*<f=", stops=">\n", skip=6),)
    assert found[r"<a=[^>]+[>x]"] == () and found[r"<a=[^>]+>?"] == ()


FAMILIES = rtc.generated.names()


@pytest.mark.parametrize("name", FAMILIES)
def test_catalogue_opens_then_whitespace_stream_as_the_general_path(name: str) -> None:
    """Each family's delimiters followed by whitespace runs (the looping fragments), then a
    little text, in 16-character chunks and in single characters."""
    module = rtc.generated.get(name)
    parser = module.ResponseParser
    for fragment in fragments(validate(module.TEMPLATE)):
        if not fragment.source.endswith("whitespace runs after"):
            continue
        text = fragment.generation(40) + ' {"a": 1} x'
        for size in (16, 1):
            chunks = [text[i : i + size] for i in range(0, len(text), size)]
            slow = without_fast_path(parser)
            assert run(parser, "", chunks) == run(slow, "", chunks), (name, fragment)
