"""Delimiters whose match begins just after a character a look-behind reads (``Fast.behind``).

``(?<=\\})\\s*,`` matches only right after a ``}``: the fast path of ``feed()`` counts that ``}``
as the character the match needs (``lowering.delimiters.pattern_facts`` with guards), instead of
the ``,`` led by whitespace, which prose holds and ends chunks with. The argument needs the
character before the text the fast path passes not to be a ``}`` either; ``settling.settle``
sees to it after the general path. Here streams with the fast path are compared with streams
without it, and the last test shows that the check in ``settle`` is needed.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_fast_path import SETTINGS, run, without_fast_path

import rtc.generated as catalogue
import rtc.runtime.engine as engine
import rtc.runtime.settling as settling
from rtc.compiler import load
from rtc.compiler.lowering.delimiters import pattern_facts
from rtc.runtime.matching import SPACE_CHARS

# pattern -> (core, lead, behind: the characters its guards end with) of the fast path's facts
FACTS = {
    r"(?<=\})\s*,": ("}", "", "}"),
    r"(?:<a>\s*\[|(?<=\})\s*,)\s*\{": ("<}", "", "}"),
    r"(?:(?:<p>\s*)?\[\s*|(?<=\))\s*,\s*)(?P<name>\w+)\(": ("<[)", "", ")"),
    r"(?<=[}\"])\s*,": ('"}', "", '"}'),
    r"(?<=</t>)\s*(?=\[)": (">", "", ">"),
    r"(?:^|(?<=</t>))\s*(?=\[)": (">", "", ">"),  # and late: the ^ branch
    r"(?:<t>\s*\[|^\s*\[|\)\s*,)\s*x": ("<)", "", ""),  # ^\s*\[ is late, not lead
    r"(?<=a+)b": ("b", "", ""),  # no bound on what it reads: not a guard
    r"(?<=\w)x": ("x", "", ""),  # too many characters
    r"(?<=[^x])y": ("y", "", ""),
    r"(?<!\})\s*,": (",", "".join(sorted(SPACE_CHARS)), ""),  # a negative look-behind
}


@pytest.mark.parametrize("pattern", list(FACTS))
def test_guard_facts(pattern: str) -> None:
    facts = pattern_facts(pattern, guards=True)
    assert facts is not None
    core, lead, behind = FACTS[pattern]
    assert "".join(sorted(facts.core)) == "".join(sorted(core))
    assert "".join(sorted(facts.lead)) == lead
    assert "".join(sorted(facts.behind)) == behind
    # Without guards (a skipped search's facts), a look-behind gives no core character.
    plain = pattern_facts(pattern)
    assert plain is None or not plain.behind


GUARDED = [
    r"(?<=\})\s*,",
    r"(?:<a>\s*\[|(?<=\})\s*,)\s*\{",
    r"(?:(?:<p>\s*)?\[\s*|(?<=\))\s*,\s*)\w+\(",
    r"(?<=[}\"])\s*\}(?:(?=\s*,)|\s*\])",
    r"(?:^|(?<=</t>))\s*(?=\[)",
    r"(?<=\})[ \t]*\n(?=\{)",
    # xlam's opening: a ^ branch and a guard's beside literals (Fast.starts then reads those).
    r"(?:^|(?<=</t>))\s*(?=\[\s*\{)|(?:```(?:json)?|<t>)\s*(?=\[)",
]
WORDS = [
    "}",
    ")",
    '"',
    " ",
    "\n",
    ",",
    " ,",
    "}\n",
    "} ,",
    "x",
    " a",
    "{",
    "[",
    "(",
    "w(",
    "</t>",
    "<a>",
    "</",
    "t>",
    "]",
    "`",
    " `",
    "``",
    "x`",
    "json",
]


def _templates(pattern: str) -> list[dict[str, Any]]:
    """The pattern as a field's open (outside) and as the implicit field's close."""
    return [
        {
            "start_anchor": "<S>",
            "fields": {"f": {"open_pattern": pattern, "close": "</f>"}, "content": {}},
        },
        {
            "start_anchor": "<S>",
            "fields": {
                "content": {"close_pattern": pattern},
                "g": {"open": "<g>", "close": "</g>"},
            },
        },
    ]


def test_a_state_holding_whitespace_runs_keeps_its_facts() -> None:
    r"""Alone, ``(?<=\})\s*,`` leaves a held whitespace run held without a search (``runs``):
    its state keeps the facts without guards (see ``lowering.states``); beside an opening that
    ends that, it takes them."""
    alone = load(_templates(GUARDED[0])[0]).ResponseParser._fasts[0]
    assert alone.runs and not alone.behind
    guarded = [load(t).ResponseParser._fasts[0] for p in GUARDED[1:] for t in _templates(p)]
    assert sum(f is not None and bool(f.behind) for f in guarded) >= 5


@SETTINGS
@given(
    which=st.integers(0, len(GUARDED) * 2 - 1),
    chunks=st.lists(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map("".join), max_size=16
    ),
)
def test_guarded_delimiters_stream_alike_with_and_without_the_fast_path(
    which: int, chunks: list[str]
) -> None:
    template = _templates(GUARDED[which // 2])[which % 2]
    parser = load(template).ResponseParser
    general = without_fast_path(parser)
    assert run(parser, "", chunks) == run(general, "", chunks), (template, chunks)
    each = list("".join(chunks))
    assert run(parser, "", each) == run(general, "", each), (template, chunks)


def test_the_last_consumed_character_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``}`` is consumed by the general path (its chunk holds a core character); the chunk
    after it holds none, but the match begins right after the ``}``."""
    template = _templates(r"(?:<a>\s*\[|(?<=\})\s*,)\s*\{")[0]
    parser = load(template).ResponseParser
    chunks = ["a}", " ,", " {", "x</f>"]
    assert parser._fasts[0].behind
    expected = run(without_fast_path(parser), "", chunks)
    assert run(parser, "", chunks) == expected

    def unchecked(p: Any) -> None:
        fast = p._region_fast[p.region + 1] if p._opened or p.region < 0 else None
        settling.settle(p)
        p._fast = fast  # the fast path allowed whatever the last consumed character

    monkeypatch.setattr(engine.CompiledParser, "_settle", unchecked)
    assert run(parser, "", chunks) != expected


def test_code_spans_in_xlams_answer_stay_on_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """xlam's answer watches its calls' opening: a ``^`` branch, a branch after ``</think>``
    (a guard), and literals (```` ``` ````, ``<tool_call>``...). Its backticks begin one of
    those literals, and its ``^`` and guard branches begin with none: with the branches ruled
    out as the fast path rules them out, the literals decide (``Fast.starts``), so a code span
    in prose no longer takes the general path, and the stream is the general path's."""
    parser = catalogue.get("xlam").ResponseParser
    fast = parser._fasts[0]
    assert fast.behind == ">" and fast.late and "```" in fast.starts
    text = "Run `make test` (or ``pytest -q``) first; see `x`.\n```py\nprint(1)\n```\nDone."
    chunks = re.findall(r" ?\w+|\s+|[^\w\s]+", text)
    general: list[str] = []
    feed = engine.CompiledParser._feed

    def counted(p: Any, text: str) -> Any:
        general.append(text)
        return feed(p, text)

    prefix = "<|im_start|>assistant\n"
    expected = run(without_fast_path(parser), prefix, chunks)
    monkeypatch.setattr(engine.CompiledParser, "_feed", counted)
    assert run(parser, prefix, chunks) == expected
    # The region's opening; then only where a whole literal (```` ``` ````) is held or comes,
    # and the chunk after it, where a match may be.
    assert general == ["Run", "```", "py", "```", "Done"]
