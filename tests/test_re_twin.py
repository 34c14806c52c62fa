"""``re`` twins (``rtc.compiler.regex_syntax.twin``): ``re`` finds what ``regex`` finds where
it runs.

For every random pattern that gets a twin, the twin and the reference's
``regex.compile(p, regex.DOTALL)`` must agree on random text (ASCII text for an ASCII twin;
text with non-ASCII letters and every kind of whitespace for a universal one): the span and
groups of ``search`` from every position (with and without an end position), of ``match`` at
every position, and the whole of ``finditer`` (empty matches included). The patterns mix every
construct of the subset with constructs outside it, so the test also sees what the subset turns
away; the class shorthands and the written-out ``\\s`` are checked character by character.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st
from test_prefilter import SETTINGS
from test_regex_syntax import nested_patterns

from rtc.compiler.regex_syntax.twin import WHITE_SPACE, Twin, re_twin, searches_well

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
# What a universal twin must also get right: whitespace only one engine calls \s (\x1c-\x1f,
# U+180E, U+200B), Unicode White_Space, letters and digits outside ASCII, a wide character.
ANY_TEXT = st.text(
    alphabet='ab<>/="| \n\t1_.-]A\x1c\x1f\x85\xa0\u180e\u2000\u200b\u3000é٤｜\U0001d7d8',
    max_size=14,
)


def patterns() -> st.SearchStrategy[str]:
    named = st.integers(0, 99).map(lambda k: f"(?P<n{k}>")  # a name used twice: no twin
    return nested_patterns(ATOMS, QUANTS, st.sampled_from(["(", "(?:", "(?=", "(?!"]) | named)


def _shape(m: Any) -> Any:
    return None if m is None else (m.span(), m.groups(), m.groupdict(), m.lastindex)


def _compile(twin: Twin) -> re.Pattern[str]:
    return re.compile(twin.source, re.ASCII | re.DOTALL if twin.ascii_only else re.DOTALL)


def _compare(pattern: str, found: Twin, text: str) -> None:
    if found.ascii_only:
        assert text.isascii()
    ref = regex.compile(pattern, regex.DOTALL)
    twin = _compile(found)
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
@given(pattern=patterns(), data=st.data())
def test_twin_matches_like_regex_where_it_runs(pattern: str, data: st.DataObject) -> None:
    found = re_twin(pattern)
    if found is None:
        return
    texts = ASCII_TEXT if found.ascii_only else st.one_of(ASCII_TEXT, ANY_TEXT)
    for text in data.draw(st.lists(texts, min_size=1, max_size=4)):
        _compare(pattern, found, text)


@pytest.mark.parametrize(
    ("pattern", "ascii_only"),
    [
        # Patterns of the catalogue that get a twin (delimiters and tag patterns).
        ("<tool_call>(?=[\\s\\S]*?</tool_call>)\\s*(?P<name>[^\\s<]+)", False),
        ("<arg_key>\\s*(?P<key>[^<]+?)\\s*</arg_key>\\s*<arg_value>(?P<value>.*?)</arg_value>",
         False),
        ("(?:<tool_call>\\s*)?<function=(?P<name>[\\w.:\\-]+)>", True),
        ("(?:</function>\\s*)?</tool_call>\\s*|</function>(?=\\s*<(?:tool_call>|function=))",
         False),
        ("(?:^|<think>\\s*)", False),
        ("<\\|tool_call>call:(?P<name>\\w+)", True),
        ("<parameter=(?P<key>[^>\\n]+)>\\n?(?P<value>.*?)\\n?</parameter>", False),
        ('(?:<｜DSML｜tool_calls>\\s*)?<｜DSML｜invoke name="(?P<name>[^"]+)">\\s*', False),
    ],
)  # fmt: skip
def test_catalogue_patterns_have_twins(pattern: str, ascii_only: bool) -> None:
    found = re_twin(pattern)
    assert found is not None and found.ascii_only == ascii_only
    texts = [
        "<tool_call> get <arg_key> k </arg_key><arg_value>1</arg_value></tool_call>",
        "<think>\n<function=a.b>\n<parameter=x>\n1\n</parameter>\n</function>",
    ]
    if not ascii_only:
        texts.append(
            '<｜DSML｜tool_calls>\u3000<｜DSML｜invoke name="é">\x1c<tool_call>\x85é</tool_call>'
        )
    for text in texts:
        _compare(pattern, found, text)


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
        "[\\S\\n]",  # \\S inside a set other than [\\s\\S]
        "[a-\\s]",  # a range next to a class escape
        "[\\w-z]",
    ],
)
def test_outside_the_subset_has_no_twin(pattern: str) -> None:
    assert re_twin(pattern) is None


def test_class_shorthands_agree_on_ascii() -> None:
    for shorthand in ("\\s", "\\S", "\\d", "\\D", "\\w", "\\W", "."):
        ref = regex.compile(shorthand, regex.DOTALL)
        twin = re.compile(shorthand, re.ASCII | re.DOTALL)
        for code in range(128):
            c = chr(code)
            assert bool(ref.match(c)) == bool(twin.match(c)), (shorthand, code)


def test_white_space_is_what_regex_reads_as_backslash_s() -> None:
    everything = "".join(map(chr, range(0x110000)))
    expected = regex.findall("\\s", everything, flags=regex.DOTALL)
    assert re.findall(f"[{WHITE_SPACE}]", everything) == expected
    assert len(re.findall(f"[^{WHITE_SPACE}]", everything)) == len(everything) - len(expected)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ('(?:\\n\\n)?(?:<｜DSML｜tool_calls>\\s*)?<｜DSML｜invoke name="(?P<name>[^"]+)">', False),
        ("(a)*b", False),
        ("(a){0,2}b", False),
        ("(?:^|<think>\\s*)", True),
        ("(?:<\\|tool_call_start\\|>\\[|,\\s*)(?P<name>\\w+)\\(", True),
        ("([)]?)x", True),
        ("(a){1,2}", True),
        ("<tool_call>", True),
    ],
)
def test_patterns_led_by_an_optional_group_keep_regex(pattern: str, expected: bool) -> None:
    # Speed only (re tries every candidate character of such a pattern): see re_twin.
    assert searches_well(pattern) is expected
