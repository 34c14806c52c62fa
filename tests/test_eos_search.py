"""Delimiter searches by shape, at the end of the stream and in partial mode; one-shot parsing.

``rtc.compiler.lowering.delimiters`` finds some delimiters without the regex engine (literal
lists and alternations of literals with ``str.find``, ``L\\s*``, ``\\s*REST``, ``R|$``...), in
both modes. Each shape is checked against the ``regex`` module on random texts at every
position, through a compiled module's state functions: ``_eos_outside`` against the plain
search (also with every search taken as long, as ``tests/reference.py`` forces it), and
``_scan_outside`` against the partial search as the reference classifies it (complete-first,
pending at the edge, the leftmost partial match held back). One-shot parsing (one end-of-stream
pass where the compiler proved it exact) is checked against ``feed()`` + ``finalize()``.
"""

from __future__ import annotations

import copy
import re
from contextlib import nullcontext
from typing import Any

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import _long_searches, canon
from strategies import prefixes, template_plans, texts
from test_prefilter import SETTINGS

from rtc.compiler import compile_template, load
from rtc.compiler.rarity import rarest_index
from rtc.compiler.regex_syntax.fast_paths import (
    dollar_alternative,
    literal_alternatives,
    literal_text,
    literal_then_spaces,
)
from rtc.runtime import matching
from rtc.runtime.matching import find_any, tail_any

SETTINGS = settings(SETTINGS, max_examples=300)

WORDS = ["<a>", "<a", "a>", "<ab>", "ab", "b", "</a>", "<|e|>", "é", "\n", " ", "x"]
LITERALS = st.lists(st.sampled_from(WORDS[:9]), min_size=1, max_size=4)
TEXT = st.lists(st.sampled_from(WORDS + ["\t", "\x1c", "\u2000", "<", "<|", "|>"]), max_size=12)


def _literals(literals: list[str]) -> matching.Literals:
    ordered = sorted(dict.fromkeys(literals), key=len, reverse=True)
    return tuple((x, len(x), rarest_index(x)) for x in ordered)


def _alternation(literals: list[str]) -> Any:
    ordered = sorted(dict.fromkeys(literals), key=len, reverse=True)
    return regex.compile("|".join(regex.escape(x) for x in ordered), regex.DOTALL)


def long_searches(module: Any, long: bool) -> Any:
    """Every span counts as long in ``module`` and the runtime (as the differential suite
    forces it), or nothing changes."""
    return _long_searches(module) if long else nullcontext()


@SETTINGS
@given(literals=LITERALS, words=TEXT, long=st.booleans())
def test_find_any_is_the_alternation_at_the_end(
    literals: list[str], words: list[str], long: bool
) -> None:
    buf = "".join(words)
    pattern, table = _alternation(literals), _literals(literals)
    with long_searches(None, long):
        for pos in range(len(buf) + 1):
            m = pattern.search(buf, pos)
            want = (-1, -1) if m is None else m.span()
            assert find_any(buf, table, pos, len(buf) + 1) == want, (buf, pos)
            for stop in range(pos, len(buf) + 2):
                bounded = want if want[0] >= 0 and want[0] < stop else (-1, -1)
                assert find_any(buf, table, pos, stop) == bounded, (buf, pos, stop)


@SETTINGS
@given(literals=LITERALS, words=TEXT)
def test_the_re_alternation_of_a_literal_list_is_find_any(
    literals: list[str], words: list[str]
) -> None:
    # What a generated one-shot pass runs over short spans (lowering.eos._any_lines): the
    # literals longest first as one re alternation; bounded by a candidate at `start`, it
    # searches up to start + the longest length and keeps a match only if it starts by then.
    buf = "".join(words)
    table = _literals(literals)
    ordered = [x for x, _, _ in table]
    alternation = re.compile("|".join(re.escape(x) for x in ordered))
    maxlen = max(map(len, ordered))
    for pos in range(len(buf) + 1):
        a = alternation.search(buf, pos)
        assert ((-1, -1) if a is None else a.span()) == find_any(buf, table, pos, len(buf) + 1)
        for start in range(pos, len(buf) + 1):
            a = alternation.search(buf, pos, start + maxlen)
            got = (-1, -1) if a is None or a.start() > start else a.span()
            assert got == find_any(buf, table, pos, start + 1), (buf, pos, start)


@SETTINGS
@given(literals=LITERALS, words=TEXT)
def test_find_any_and_tail_any_are_the_partial_search(
    literals: list[str], words: list[str]
) -> None:
    """Partial mode: complete-first (the leftmost complete match hides every partial one), else
    the leftmost partial match, else the zero-width partial at the end."""
    buf = "".join(words)
    pattern, table = _alternation(literals), _literals(literals)
    for pos in range(len(buf) + 1):
        m = pattern.search(buf, pos, partial=True)
        i, j = find_any(buf, table, pos, len(buf) + 1)
        if m is not None and not m.partial:
            assert (i, j) == m.span(), (buf, pos)
            continue
        assert (i, j) == (-1, -1), (buf, pos)
        assert tail_any(buf, pos, table) == (len(buf) if m is None else m.start()), (buf, pos)


def _shaped(draw: st.DrawFn) -> str:
    """A pattern of one of the shapes searched without the regex engine at the end."""
    lits = draw(st.lists(st.sampled_from(WORDS[:9]), min_size=2, max_size=3, unique=True))
    esc = [regex.escape(x) for x in lits]
    shape = draw(st.integers(0, 8))
    if shape == 0:
        return esc[0] + r"\s*"
    if shape == 1:
        return r"\s*" + esc[0]
    if shape == 2:
        return "|".join(esc)
    if shape == 3:
        return r"\s*(?:" + "|".join(esc) + ")"
    if shape == 4:
        return esc[0] + r"\s*|$"
    if shape == 5:
        return r"\s*" + esc[0] + r"|\Z"
    if shape == 6:
        return esc[0] + "|" + esc[1] + "|$"
    if shape == 7:
        return esc[0]
    return r"\s*" + esc[0] + r"\s*"


@SETTINGS
@given(data=st.data(), words=TEXT, long=st.booleans())
def test_shaped_patterns_are_the_regex_search_at_the_end(
    data: st.DataObject, words: list[str], long: bool
) -> None:
    pattern = data.draw(st.composite(lambda draw: _shaped(draw))(), label="pattern")
    template = {"start_anchor": "<A>", "fields": {"c": {"close_pattern": pattern}}}
    module = load(template)
    compiled = regex.compile(pattern, regex.DOTALL)
    buf = "".join(words)
    memo = [None] * module.ResponseParser._memo_size
    with long_searches(module, long):
        for pos in range(len(buf) + 1):
            start, end, target, _ = module._eos_outside(buf, pos, memo)
            m = compiled.search(buf, pos)
            # An empty match at the very end is never taken (the reference's hold vetoes it).
            want = None if m is None or m.start() >= len(buf) else m.span()
            got = None if target == -1 else (start, end)
            assert got == want, (pattern, buf, pos)


@SETTINGS
@given(data=st.data(), words=TEXT)
def test_shaped_patterns_are_the_partial_search(data: st.DataObject, words: list[str]) -> None:
    """While streaming, a shaped delimiter (found with str.find, literal_tail, the whitespace
    before it...) is classified as the reference classifies the regex module's partial search:
    a complete match is committed unless it ends at the buffer's end (a pattern may still
    grow) or starts at or after a pending one; else its leftmost partial match is held."""
    pattern = data.draw(st.composite(lambda draw: _shaped(draw))(), label="pattern")
    template = {"start_anchor": "<A>", "fields": {"c": {"close_pattern": pattern}}}
    module = load(template)
    compiled = regex.compile(pattern, regex.DOTALL)
    buf = "".join(words)
    n = len(buf)
    # Searching from each position in turn, as one pass of the loop does: remembered (a memo
    # kept across the positions, as over a long span) and not (the empty memo).
    memo = [None] * module.ResponseParser._memo_size
    for pos in range(n + 1):
        hold, start, end, target, _ = module._scan_outside(buf, pos, [])
        assert module._scan_outside(buf, pos, memo) == (hold, start, end, target, _)
        m = compiled.search(buf, pos, partial=True)
        if m is None:
            want: Any = (n, None)
        elif m.partial or m.end() == n:
            want = (m.start(), None)
        else:
            want = (n, m.span())
        got = (hold, None if target == -1 else (start, end))
        assert got == want, (pattern, buf, pos)


def test_shapes_are_recognised() -> None:
    assert literal_then_spaces(r"<\|im_end\|>\s*") == "<|im_end|>"
    assert literal_then_spaces(r"a\\s*") is None  # the backslash is the literal
    assert literal_then_spaces(r"a\s*?") is None
    assert literal_text(r"\<a\>\n") == "<a>\n"
    assert literal_text(r"a+") is None and literal_text(r"\d") is None
    assert literal_alternatives(r"(?:<\|im_end\|>|<\|endoftext\|>)") == (
        "<|im_end|>",
        "<|endoftext|>",
    )
    assert literal_alternatives("ab|abc") is None  # a prefix of another: order would matter
    assert literal_alternatives("(?:a)|(?:b)") is None
    assert dollar_alternative(r"<\|user\|>\s*|$") == (r"<\|user\|>\s*", True)
    assert dollar_alternative(r"a|\Z") == ("a", False)
    assert dollar_alternative(r"a\|$") is None  # an escaped bar
    assert dollar_alternative(r"a*|$") is None  # R can match the empty string
    assert dollar_alternative(r"(?=a)|$") is None  # outside the subset


def test_generated_module_names_how_each_delimiter_is_searched() -> None:
    template = {
        "start_anchor": "<A>",
        "fields": {
            "t": {"open": "<t>", "close_pattern": r"</t>\s*"},
            "c": {"close_pattern": r"<\|user\|>\s*|$"},
            "x": {"open": ["<x>", "<xx>", "[X]"], "close": "</x>"},
        },
    }
    source = compile_template(template)
    assert "close 'c': pattern '<\\\\|user\\\\|>\\\\s*|$': str.find, then the whitespace after" in (
        source
    )
    assert ", or the empty match at the end" in source
    assert "open 'x': literals ['<x>', '<xx>', '[X]']: str.find of each literal" in source
    assert '_OPEN_X_LITERALS = (\n    ("<xx>", 4, 3),\n    ("<x>", 3, 2),\n' in source
    assert "def _eos_outside(" in source and "def _scan_outside(" in source


def test_a_look_aheads_literal_is_found_by_its_rarest_character_over_long_text() -> None:
    """``(?=[\\s\\S]*?</think>)`` holds where its literal occurs from the search position on:
    over a long span that literal is found as every literal is, by its rarest character
    (``find_rare_ahead``), in a state that watches several delimiters too, one shot and
    streamed. (66efcc7 had it found by a plain ``str.find`` there: nemotron3's frozen bench
    template took 67 µs instead of 14 for a 128 KB reasoning block, one shot.) That it answers
    as the plain search does is the differential suite's, with every span long."""
    template = {
        "start_anchor": "<A>",
        "fields": {
            "think": {"open_pattern": r"(?=[\s\S]*?</think>)", "close": "</think>"},
            "c": {"close_pattern": r"<\|end\|>\s*"},
            "x": {"open": "<x>", "close": "</x>"},
        },
    }
    source = compile_template(template)
    ahead = [line for line in source.splitlines() if "_OPEN_THINK_AHEAD, pos" in line]
    assert len(ahead) == 2  # in the scanner and the end-of-stream pass
    assert all("find_rare_ahead(memo, " in line for line in ahead)
    module = load(template)
    text = "a < b, " * 2000 + "</think> done<|end|>"
    parser = module.ResponseParser("")
    parser.feed(text)
    message = module.parse_response(text, prefix="")
    assert message == parser.finalize()[0]
    assert message["think"] == text[: text.index("</think>")].strip() and message["c"] == "done"


# --- one-shot parsing against feed() + finalize() ------------------------------------------


def _outcome(fn: Any) -> Any:
    try:
        return ("value", canon(fn()))
    except Exception as exc:  # the exception type is the observable
        return ("raises", type(exc).__name__)


@SETTINGS
@given(data=st.data(), long=st.booleans())
def test_one_shot_is_feed_and_finalize(data: st.DataObject, long: bool) -> None:
    """parse_response answers what one feed() + finalize() answers (one end-of-stream pass
    where the compiler proved it exact, both otherwise)."""
    plan = data.draw(template_plans(), label="plan")
    try:
        module = load(copy.deepcopy(plan.template))
    except (ValueError, TypeError):
        return  # rejected templates have no parser
    cls = module.ResponseParser
    text = data.draw(texts(plan), label="text")

    def streamed() -> Any:
        parser = cls("")
        parser.feed(text)
        return parser.finalize()[0]

    with long_searches(module, long):
        assert _outcome(lambda: module.parse_response(text, prefix="")) == _outcome(streamed)


@pytest.mark.parametrize("long", [False, True])
@pytest.mark.parametrize("more", [0, 8])  # find_any or the alternation; over 8: regex's
def test_a_bounded_search_does_not_remember_a_match_cut_short(long: bool, more: int) -> None:
    # Outside, '<a' is the candidate at 0 when the close list is searched, bounded at 0 + 6:
    # 'cdefgh' at 3 does not fit and 'cd' does. Kept in the memo, 'cd' would be taken when the
    # pass comes back outside at 3 (after 'x' closes the reasoning), instead of 'cdefgh'.
    template = {
        "start_anchor": "<A>",
        "fields": {
            "think": {"open": "<a", "close": "x"},
            "content": {"close": ["cdefgh", "cd"] + [f"q{i}" for i in range(more)]},
            "rest": {"open": "Z", "close": "</Z>"},
        },
    }
    module = load(template)
    text = "<axcdefghZq"
    parser = module.ResponseParser("")
    parser.feed(text)
    with long_searches(module, long):
        assert module.parse_response(text, prefix="") == parser.finalize()[0]
        assert module.parse_response(text, prefix="") == {"rest": "q"}


def test_big_templates_parse() -> None:
    template = {
        "start_anchor": "<A>",
        "fields": {f"f{i}": {"open": f"<{i}>", "close": f"</{i}>"} for i in range(65)},
    }
    module = load(template)
    assert module.parse_response("<0>a</0><64>b</64>", prefix="") == {"f0": "a", "f64": "b"}


@SETTINGS
@given(data=st.data())
def test_known_prefix_states_are_the_prefix_pass(data: st.DataObject) -> None:
    """A prefix's partial pass is remembered when nothing closed in it: parsing again with the
    same prefix (the remembered state) answers what a parser fed the text answers."""
    plan = data.draw(template_plans(), label="plan")
    try:
        module = load(copy.deepcopy(plan.template))
    except (ValueError, TypeError):
        return
    prefix = data.draw(prefixes(plan), label="prefix")
    text = data.draw(texts(plan), label="text")

    def streamed() -> Any:
        parser = module.ResponseParser(prefix)
        parser.feed(text)
        return parser.finalize()[0]

    want = _outcome(streamed)
    for _ in range(2):
        assert _outcome(lambda: module.parse_response(text, prefix=prefix)) == want
