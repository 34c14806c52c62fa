"""ASCII twins (``rtc.compiler.ascii_twin``): ``re`` finds what ``regex`` finds on ASCII text.

For every random pattern the subset accepts, the twin ``re.compile(p, re.ASCII | re.DOTALL)``
and the reference's ``regex.compile(p, regex.DOTALL)`` must agree on random ASCII text: the
span and groups of ``search`` from every position (with and without an end position), of
``match`` at every position, and the whole of ``finditer`` (empty matches included). The
patterns mix every construct of the subset with constructs outside it, so the test also sees
what the subset turns away; the class shorthands are checked character by character.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st
from test_prefilter import SETTINGS

from rtc.compiler.ascii_twin import has_ascii_twin

# Constructs of the subset, and a few outside it (look-behinds, \b, back-references, braces,
# inline flags, nested sets, possessive quantifiers) that must be turned away.
ATOMS = [
    "a", "b", "ab", "<", ">", "/", "=", '"', " ", "\\|", "\\(", "\\)", "\\[", "\\]", "\\.", "\\-",
    "\\s", "\\S", "\\d", "\\D", "\\w", "\\W", "\\n", "\\t", ".", "^", "$", "é", "｜",
    "[ab]", "[^a]", "[a-c<]", "[^\\s<]", "[\\s\\S]", "[\\w.:\\-]", "[^>\\n]", "[]a]", "[^]a]",
    "[\\d]", "[^\"\\\\]", "(?=a)", "(?!b)", "(?=[\\s\\S]*?</a>)", "(?P<g>a)", "(?P<h>\\w+)",
    "(?:a|)", "()", "(a|ab)", "(?<=a)", "\\b", "\\1", "(?i)a", "[[a]", "a{", "{2}", "(?>a)",
    "\\Z", "\\A", "\\x41", "a++",
]  # fmt: skip
QUANTS = ["", "", "", "*", "+", "?", "*?", "+?", "??", "{2}", "{0,2}", "{1,}", "{1,3}?"]
ASCII_TEXT = st.text(alphabet='ab<>/="| \n\t1_x.:-[]()A', max_size=14)


@st.composite
def patterns(draw: st.DrawFn) -> str:
    def seq(depth: int) -> str:
        out = ""
        for _ in range(draw(st.integers(1, 4))):
            if depth < 2 and draw(st.integers(0, 5)) == 0:
                named = f"(?P<n{draw(st.integers(0, 99))}>"  # a name used twice: no twin
                opener = draw(st.sampled_from(["(", "(?:", named, "(?=", "(?!"]))
                atom = opener + alt(depth + 1) + ")"
            else:
                atom = draw(st.sampled_from(ATOMS))
            out += atom + draw(st.sampled_from(QUANTS))
        return out

    def alt(depth: int) -> str:
        return "|".join(seq(depth) for _ in range(draw(st.integers(1, 3))))

    return alt(0)


def _shape(m: Any) -> Any:
    return None if m is None else (m.span(), m.groups(), m.groupdict(), m.lastindex)


def _compare(pattern: str, text: str) -> None:
    ref = regex.compile(pattern, regex.DOTALL)
    twin = re.compile(pattern, re.ASCII | re.DOTALL)
    assert ref.groupindex == dict(twin.groupindex), pattern
    assert ref.groups == twin.groups, pattern
    for pos in range(len(text) + 1):
        assert _shape(twin.search(text, pos)) == _shape(ref.search(text, pos)), (pattern, pos)
        assert _shape(twin.match(text, pos)) == _shape(ref.match(text, pos)), (pattern, pos)
        end = (pos + len(text)) // 2 + 1
        assert _shape(twin.search(text, pos, end)) == _shape(ref.search(text, pos, end)), (
            pattern,
            pos,
            end,
        )
    assert [_shape(m) for m in twin.finditer(text)] == [_shape(m) for m in ref.finditer(text)]


@SETTINGS
@given(pattern=patterns(), texts=st.lists(ASCII_TEXT, min_size=1, max_size=4))
def test_twin_matches_like_regex_on_ascii_text(pattern: str, texts: list[str]) -> None:
    if not has_ascii_twin(pattern):
        return
    for text in texts:
        _compare(pattern, text)


@pytest.mark.parametrize(
    "pattern",
    [
        # Patterns of the catalogue that get a twin (delimiters and tag patterns).
        "<tool_call>(?=[\\s\\S]*?</tool_call>)\\s*(?P<name>[^\\s<]+)",
        "<arg_key>\\s*(?P<key>[^<]+?)\\s*</arg_key>\\s*<arg_value>(?P<value>.*?)</arg_value>",
        "(?:<tool_call>\\s*)?<function=(?P<name>[\\w.:\\-]+)>",
        "(?:</function>\\s*)?</tool_call>\\s*|</function>(?=\\s*<(?:tool_call>|function=))",
        "(?:^|<think>\\s*)",
        "<\\|tool_call>call:(?P<name>\\w+)",
        "<parameter=(?P<key>[^>\\n]+)>\\n?(?P<value>.*?)\\n?</parameter>",
    ],
)
def test_catalogue_patterns_have_twins(pattern: str) -> None:
    assert has_ascii_twin(pattern)
    _compare(pattern, "<tool_call> get <arg_key> k </arg_key><arg_value>1</arg_value></tool_call>")
    _compare(pattern, "<think>\n<function=a.b>\n<parameter=x>\n1\n</parameter>\n</function>")


@pytest.mark.parametrize(
    "pattern",
    [
        "(?<=a)b",  # look-behind
        "\\bword",  # word boundary
        "(a)\\1",  # back-reference
        "(?i)a",  # inline flag
        "a{",  # literal brace
        "a{,2}",  # count without a minimum
        "[[a]]",  # nested set
        "[a--b]",  # set operation
        "a++",  # possessive
        "(?>a)",  # atomic group
        "(?P<n>a)|(?P<n>b)",  # a name used twice (regex allows it, re does not)
        "(?(DEFINE)(?P<x>a))(?&x)",  # recursion
        "\\Ka",
        "\\p{L}",
        "(?=a)*",  # a quantified look-ahead
        "\\x41",
        "a)",
    ],
)
def test_outside_the_subset_has_no_twin(pattern: str) -> None:
    assert not has_ascii_twin(pattern)


def test_class_shorthands_agree_on_ascii() -> None:
    for shorthand in ("\\s", "\\S", "\\d", "\\D", "\\w", "\\W", "."):
        ref = regex.compile(shorthand, regex.DOTALL)
        twin = re.compile(shorthand, re.ASCII | re.DOTALL)
        for code in range(128):
            c = chr(code)
            assert bool(ref.match(c)) == bool(twin.match(c)), (shorthand, code)
