"""Delimiters whose match begins just after a character a look-behind reads (``Fast.behind``).

``(?<=\\})\\s*,`` matches only right after a ``}``: the fast path of ``feed()`` counts that ``}``
as the character the match needs (``lowering.delimiters.pattern_facts`` with guards), instead of
the ``,`` led by whitespace, which prose holds and ends chunks with. The argument needs the
character before the text the fast path passes not to be a ``}`` either; ``fast_path.settle``
sees to it after the general path. Here streams with the fast path are compared with streams
without it, and the last test shows that the check in ``settle`` is needed.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_fast_path import SETTINGS, run, without_fast_path

import rtc.runtime.engine as engine
import rtc.runtime.fast_path as fast_path
from rtc.compiler import load
from rtc.compiler.lowering.delimiters import pattern_facts
from rtc.runtime.matching import SPACE_CHARS

# pattern -> (core, lead, behind) of the fast path's facts
FACTS = {
    r"(?<=\})\s*,": ("}", "", True),
    r"(?:<a>\s*\[|(?<=\})\s*,)\s*\{": ("<}", "", True),
    r"(?:(?:<p>\s*)?\[\s*|(?<=\))\s*,\s*)(?P<name>\w+)\(": ("<[)", "", True),
    r"(?<=[}\"])\s*,": ('"}', "", True),
    r"(?<=</t>)\s*(?=\[)": (">", "", True),
    r"(?:^|(?<=</t>))\s*(?=\[)": (">", "", True),  # and late: the ^ branch
    r"(?:<t>\s*\[|^\s*\[|\)\s*,)\s*x": ("<)", "", False),  # ^\s*\[ is late, not lead
    r"(?<=a+)b": ("b", "", False),  # no bound on what it reads: not a guard
    r"(?<=\w)x": ("x", "", False),  # too many characters
    r"(?<=[^x])y": ("y", "", False),
    r"(?<!\})\s*,": (",", "".join(sorted(SPACE_CHARS)), False),  # a negative look-behind
}


@pytest.mark.parametrize("pattern", list(FACTS))
def test_guard_facts(pattern: str) -> None:
    facts = pattern_facts(pattern, guards=True)
    assert facts is not None
    core, lead, behind = FACTS[pattern]
    assert "".join(sorted(facts.core)) == "".join(sorted(core))
    assert "".join(sorted(facts.lead)) == lead
    assert facts.behind == behind
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
    assert sum(f is not None and f.behind for f in guarded) >= 5


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
        fast_path.settle(p)
        p._fast = fast  # the fast path allowed whatever the last consumed character

    monkeypatch.setattr(engine.CompiledParser, "_settle", unchecked)
    assert run(parser, "", chunks) != expected
