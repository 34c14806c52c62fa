"""The work counter (``rtc.compiler.lint.work``) and the degenerate texts it is run on.

The counter is a measuring instrument: it must not change any answer, and its counts must
grow the way the work grows (linearly for a literal found once per text, quadratically for a
look-ahead over the rest of the text tried at every occurrence).
"""

from __future__ import annotations

import re

import pytest
import regex

from rtc.compiler.lint import work
from rtc.compiler.lint.repetitions import (
    FILLER,
    OPENING,
    fragments,
    repeated,
    times_for,
)
from rtc.compiler.validate import validate

PATTERNS = [
    r"<tool_call>",
    r"\s*<tool_call>\s*",
    r"<a>(?=[\s\S]*?</a>)",
    r"(?<=\})\s*\}",
    r"\G(?:x+|y)\K\s*z",
    r"(?:<b>)?\{\s*\"n\"\s*:",
    r"",
    r"$|\s*</s>",
]
TEXTS = ["", "<tool_call>", "  <tool_call>  x", "<a> <a></a>", '} }}xyz {"n" : <b>{', "a </s>\n"]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("flags", [regex.DOTALL, "re"])
def test_a_counting_pattern_answers_like_the_pattern(pattern: str, flags: object) -> None:
    if flags == "re":
        if "\\G" in pattern or "\\K" in pattern:
            return
        compiled: object = re.compile(pattern, re.DOTALL)
    else:
        compiled = regex.compile(pattern, regex.DOTALL)
    counting = work.CountingPattern(compiled)
    for text in TEXTS:
        for pos in range(len(text) + 1):
            for end in (len(text), max(pos, len(text) - 1)):
                kwargs = {} if flags == "re" else {"partial": True}
                for method in ("search", "match", "fullmatch"):
                    want = getattr(compiled, method)(text, pos, end, **kwargs)
                    got = getattr(counting, method)(text, pos, end, **kwargs)
                    assert (want and (want.span(), want.groups())) == (
                        got and (got.span(), got.groups())
                    ), (method, text, pos, end)
        assert [m.span() for m in counting.finditer(text)] == [
            m.span() for m in compiled.finditer(text)  # type: ignore[attr-defined]
        ]


def test_counted_text_counts_what_searches_examine() -> None:
    text = work.CountedText("abc" * 10 + "<x>")
    before = work._TALLY.chars
    assert text.find("<x>") == 30 and "<x>" in text and text.rfind("q") == -1
    assert isinstance(text + "y", work.CountedText) and isinstance("y" + text, work.CountedText)
    # find and `in`: to the end of the occurrence; rfind without one: the whole range; `+`:
    # the characters appended.
    assert work._TALLY.chars - before == 33 + 33 + 33 + 1 + 33
    # rstrip: the run it strips and the character that ends it; iteration: all of it.
    before = work._TALLY.chars
    assert work.CountedText("ab  ").rstrip(" ") == "ab" and set(work.CountedText("abc")) == set(
        "abc"
    )
    assert work._TALLY.chars - before == 3 + 3


def test_streamed_counts_take_the_fast_path() -> None:
    """Chunks are counted on the path production takes: ``feed()``'s fast path holds a
    trailing whitespace run back without searching it again on every chunk (linear), where the
    general path would search the whole held run each time (quadratic)."""
    module = work.counting_module(
        {"fields": {"x": {"open_pattern": r"\s*<a>", "close": "</a>"}}, "start_anchor": "A"}
    )
    general = []
    feed = module.ResponseParser._feed

    def spy(self: object, text: str) -> object:
        general.append(text)
        return feed(self, text)  # type: ignore[arg-type]

    module.ResponseParser._feed = spy  # type: ignore[method-assign]
    small = work.count(module, "Sure. " + " " * 1000, chunk=16)
    assert len(general) <= 2, general
    big = work.count(module, "Sure. " + " " * 4000, chunk=16)
    assert 3.5 <= big / small <= 4.5, (small, big)


def test_counts_grow_like_the_work() -> None:
    # A literal: linear. A look-ahead over the rest of the text at each occurrence, or a run
    # of whitespace read from each of its positions: quadratic. The regex module looks for a
    # literal every match contains first: without it ahead, one scan (linear).
    for pattern, text, low, high in [
        ("<a>", "<a> x ", 3.5, 4.5),
        (r"<a>(?=[\s\S]*?</a>)", "<a> x ", 12, 17),
        (r"(?:a)?\s*(?:to=|b)", "\n", 12, 17),
        (r"\s*<tool_call>", "\n", 3.5, 4.5),
    ]:
        small = work.search_work(pattern, text * 100)
        big = work.search_work(pattern, text * 400)
        assert low <= big / small <= high, (pattern, small, big)


def test_required_literals() -> None:
    assert work.required_literal(r"\s*<tool_call>\s*") == "<tool_call>"
    assert work.required_literal(r"(?:a|b)\s*\{\s*\"name\"") == '"name"'
    assert work.required_literal(r"a|<c>") is None
    assert work.required_literal(r"x(?:yz)?w") == "x"


def test_the_limit_stops_a_count() -> None:
    module = work.counting_module(
        {
            "fields": {"x": {"open_pattern": r"<a>(?=[\s\S]*?</a>)", "close": "</a>"}},
            "start_anchor": "A",
        }
    )
    text = "<a>" * 3000
    with pytest.raises(work.WorkLimit):
        work.count(module, text, limit=len(text) * 10)
    assert work.count(module, "<a>b</a>") > 0
    # Counting changed nothing the parser answers.
    assert module.parse_response("<a>b</a>", prefix="") == {"x": "b"}


def test_fragments_come_from_the_template() -> None:
    template = {
        "start_anchor": "<A>",
        "fields": {
            "reasoning": {"open": "<think>", "close": "</think>"},
            "tool_calls": {
                "open_pattern": r"\s*<call name=\"(?P<name>\w+)\">",
                "close": "</call>",
                "content": "xml-inline",
                "content_args": {"tag_pattern": r"<p=(?P<key>\w+)>(?P<value>.*?)</p>"},
                "transform": {
                    "type": "function",
                    "function": {"name": "{name}", "arguments": "{content}"},
                },
            },
            "content": {"close": ["<|end|>", "<|eot|>"]},
        },
    }
    found = {f.text: f.source for f in fragments(validate(template)) if not f.head}
    for text, source in [
        ("<think>", "fields.reasoning.open"),
        ("</think>" + FILLER, "fields.reasoning.close"),
        ('<call name="f">', "fields.tool_calls.open_pattern"),
        ("<p=k>v</p>", "fields.tool_calls.content_args.tag_pattern"),
        ('<call name="f"><p=k>', "fields.tool_calls.content_args.tag_pattern"),
        ("<|eot|>", "fields.content.close"),
        ("\n", "whitespace runs"),
        ("<A>", "start_anchor"),
    ]:
        assert found.get(text) == source, (text, found)
    assert any(s == "fields.tool_calls: a call cut off" for s in found.values())
    assert repeated("<a>", 3) == OPENING + "<a><a><a>"
    assert times_for("<a>", 10) == 4 and times_for("", 10) == 10
