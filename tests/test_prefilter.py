"""Soundness of the compile-time pattern analyses the fast paths rely on.

* ``first_fragments``: every complete or partial match that consumes text starts with a character
  the fragments match, and no complete match is empty (so a chunk without such a character cannot
  start a delimiter).
* ``needs_context``: for patterns it clears, searching ``buf`` from ``pos`` gives the same answer
  as searching ``buf[pos:]`` from 0 (consumed text may be dropped).
* ``literal_tail``: the partial match the ``regex`` module reports for an escaped literal.
* ``literal_prefix``, ``find_literal``, ``search_literal_led``: the long-text searches give what
  ``str.find`` and the ``regex`` module's own search give, dense false hits included.
"""

from __future__ import annotations

import itertools

import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtc.compiler.lowering.anchor import never_overlap
from rtc.compiler.lowering.context import jumps_back
from rtc.compiler.rarity import rarest_index
from rtc.compiler.regex_syntax.chars import class_source
from rtc.compiler.regex_syntax.fast_paths import (
    first_fragments,
    literal_prefix,
    lookahead_literal,
    needs_context,
)
from rtc.runtime import matching
from rtc.runtime.matching import find_literal, literal_tail, search_literal_led

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=400,
    database=None,
    suppress_health_check=list(HealthCheck),
)

ATOMS = [
    "a", "b", "<", ">", "|", "\\s", "\\S", "\\d", "\\w", "\\n", "[ab]", "[^a]", "[a-c<]", "\\|",
    "\\[", "\\]", "\\(", "\\)", ".", "\\b", "$", "^", "(?=a)", "(?!b)", "(?<=a)", "\\Z",
    "(?P<g>a)", "é", "｜",
]  # fmt: skip
QUANTS = ["", "", "", "*", "+", "?", "*?", "+?", "{2}", "{0,2}", "{1,}"]


@st.composite
def patterns(draw: st.DrawFn) -> str:
    def seq() -> str:
        n = draw(st.integers(1, 4))
        out = ""
        for _ in range(n):
            atom = draw(st.sampled_from(ATOMS))
            if draw(st.booleans()) and draw(st.booleans()):
                atom = "(?:" + atom + draw(st.sampled_from(ATOMS)) + ")"
            out += atom + draw(st.sampled_from(QUANTS))
        return out

    alts = [seq() for _ in range(draw(st.integers(1, 3)))]
    return "|".join(alts)


TEXT = st.text(alphabet="ab<>| \n\t1é｜[]()x", max_size=12)


@SETTINGS
@given(pattern=patterns(), texts=st.lists(TEXT, min_size=1, max_size=6))
def test_first_fragments_cover_every_match(pattern: str, texts: list[str]) -> None:
    try:
        compiled = regex.compile(pattern, regex.DOTALL)
    except regex.error:
        return
    frags = first_fragments(pattern)
    if frags is None:
        return
    chars = "".join(f for f in frags if len(f) == 1)
    classes = [f for f in frags if len(f) > 1]
    first = regex.compile(class_source(chars, classes), regex.DOTALL)
    for text in texts:
        for pos in range(len(text)):
            for partial in (False, True):
                m = compiled.search(text, pos, partial=partial)
                if m is None:
                    continue
                if m.end() > m.start():
                    assert first.match(text, m.start()), (pattern, text, pos, m)
                elif not m.partial:
                    raise AssertionError(f"empty complete match of {pattern!r} in {text!r}")
                else:
                    assert m.start() == len(text), (pattern, text, pos, m)


@SETTINGS
@given(pattern=patterns(), text=TEXT, data=st.data())
def test_patterns_without_context_ignore_consumed_text(
    pattern: str, text: str, data: st.DataObject
) -> None:
    try:
        compiled = regex.compile(pattern, regex.DOTALL)
    except regex.error:
        return
    if needs_context(pattern):
        return
    if jumps_back(pattern):
        return  # the whole buffer is kept for these
    pos = data.draw(st.integers(0, len(text)))
    for partial in (False, True):
        full = _outcome(compiled.search(text, pos, partial=partial), pos, len(text))
        cut = _outcome(compiled.search(text[pos:], 0, partial=partial), 0, len(text) - pos)
        assert full == cut, (pattern, text, pos, full, cut)


def _outcome(m: regex.Match[str] | None, pos: int, n: int) -> tuple[int, int, bool] | None:
    """What the scan does with a search result, relative to ``pos``: nothing pending at the
    very end (no result, or an empty partial match there) is the same outcome."""
    if m is None or (m.partial and m.start() == m.end() == n):
        return None
    return (m.start() - pos, m.end() - pos, bool(m.partial))


@SETTINGS
@given(
    literal=st.text(alphabet="ab<", min_size=1, max_size=5),
    text=st.text(alphabet="ab<x", max_size=14),
    data=st.data(),
)
def test_literal_tail_is_the_regex_partial_match(
    literal: str, text: str, data: st.DataObject
) -> None:
    pos = data.draw(st.integers(0, len(text)))
    compiled = regex.compile(regex.escape(literal), regex.DOTALL)
    m = compiled.search(text, pos, partial=True)
    if text.find(literal, pos) >= 0:
        assert m is not None and not m.partial
        assert m.start() == text.find(literal, pos)
        return
    expected = m.start() if m is not None and m.partial else len(text)
    assert literal_tail(text, pos, literal) == expected


@SETTINGS
@given(
    literal=st.text(alphabet="ab", min_size=65, max_size=90),
    text=st.text(alphabet="ab", max_size=200),
    data=st.data(),
)
def test_long_literal_tail_uses_the_automaton_correctly(
    literal: str, text: str, data: st.DataObject
) -> None:
    pos = data.draw(st.integers(0, len(text)))
    if text.find(literal, pos) >= 0:
        return
    m = regex.compile(regex.escape(literal), regex.DOTALL).search(text, pos, partial=True)
    expected = m.start() if m is not None and m.partial else len(text)
    assert literal_tail(text, pos, literal) == expected


def test_long_self_overlapping_literal_tail_is_linear() -> None:
    # Would take minutes with the direct method; the automaton is linear.
    literal = "a" * 200_000 + "b"
    assert literal_tail("a" * 200_000 + "c", 0, literal) == 200_001
    assert literal_tail("x" + "a" * 199_999, 0, literal) == 1


@SETTINGS
@given(
    literal=st.text(alphabet="ab<", min_size=1, max_size=4),
    text=st.text(alphabet="ab<\n", max_size=12),
    lead=st.sampled_from(["(?=[\\s\\S]*?", "(?=[\\S\\s]*?", "(?=.*?"]),
    data=st.data(),
)
def test_lookahead_literal_semantics(
    literal: str, text: str, lead: str, data: st.DataObject
) -> None:
    pattern = lead + regex.escape(literal) + ")"
    assert lookahead_literal(pattern) == literal
    compiled = regex.compile(pattern, regex.DOTALL)
    pos = data.draw(st.integers(0, len(text)))
    found = text.find(literal, pos) >= 0
    m = compiled.search(text, pos, partial=True)
    assert m is not None
    if found:
        assert (m.start(), m.end(), bool(m.partial)) == (pos, pos, False)
    else:
        assert (m.start(), m.end(), bool(m.partial)) == (pos, len(text), True)
    complete = compiled.search(text, pos)
    assert (complete.span() if complete else None) == ((pos, pos) if found else None)


@SETTINGS
@given(pattern=patterns(), text=st.text(alphabet="ab<>|\n é｜1", max_size=24))
def test_literal_prefix_begins_every_match(pattern: str, text: str) -> None:
    prefix = literal_prefix(pattern)
    if prefix is None:
        return
    compiled = regex.compile(pattern, regex.DOTALL)
    for pos in range(len(text) + 1):
        m = compiled.match(text, pos)
        if m is not None:
            assert text.startswith(prefix, pos), (pattern, text, pos)


@SETTINGS
@given(
    literal=st.text(alphabet="ab<", min_size=1, max_size=5),
    text=st.text(alphabet="ab<", max_size=80),
    data=st.data(),
)
def test_find_literal_is_str_find(literal: str, text: str, data: st.DataObject) -> None:
    # A three-letter alphabet makes false hits of the chosen character dense, so the give-up
    # path (after a fixed number of them) runs too.
    pos = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(pos, len(text)))
    at = data.draw(st.integers(0, len(literal) - 1))
    assert find_literal(text, literal, pos, end, at) == text.find(literal, pos, end)


@SETTINGS
@given(pattern=patterns(), text=st.text(alphabet="ab<>|\n é｜1", max_size=40), data=st.data())
def test_search_literal_led_is_the_regex_search(
    pattern: str, text: str, data: st.DataObject
) -> None:
    prefix = literal_prefix(pattern)
    if prefix is None:
        return
    compiled = regex.compile(pattern, regex.DOTALL)
    pos = data.draw(st.integers(0, len(text)))
    want = compiled.search(text, pos)
    # Both ways of finding the prefix: str.find, and find_literal (every span long).
    long_span = matching.LONG_SPAN
    matching.LONG_SPAN = data.draw(st.sampled_from([long_span, 0]))
    try:
        got = search_literal_led(compiled, text, pos, prefix, rarest_index(prefix))
    finally:
        matching.LONG_SPAN = long_span
    assert (want and (want.span(), want.groupdict())) == (got and (got.span(), got.groupdict()))


def test_find_literal_on_every_short_text() -> None:
    # Exhaustive over a two-letter alphabet: every run of false hits, and every place the
    # first occurrence can sit after the search gives up on the chosen character.
    texts = ["".join(chars) for k in range(13) for chars in itertools.product("ab", repeat=k)]
    for literal in ("ab", "aab", "ba", "aba", "bbb"):
        for at in range(len(literal)):
            for text in texts:
                assert find_literal(text, literal, 0, len(text), at) == text.find(literal)


def test_search_literal_led_on_dense_false_hits() -> None:
    cases = [
        ("<a>\\d+", "<a>", "<a>x" * 40 + "<a>12" + "<a>3"),
        # Eight failed attempts, then a match starting right after the last of them.
        ("aa\\d", "aa", "a" * 10 + "1"),
        ("aa\\d", "aa", "a" * 30 + "1"),
    ]
    long_span = matching.LONG_SPAN
    try:
        for span in (long_span, 0):
            matching.LONG_SPAN = span
            for pattern, prefix, text in cases:
                compiled = regex.compile(pattern, regex.DOTALL)
                for pos in range(len(text) + 1):
                    want = compiled.search(text, pos)
                    got = search_literal_led(compiled, text, pos, prefix, 0)
                    assert (want and want.span()) == (got and got.span()), (pattern, pos)
    finally:
        matching.LONG_SPAN = long_span


def test_rarest_index_prefers_marks_over_letters() -> None:
    assert "</think>"[rarest_index("</think>")] in "<>/"
    assert rarest_index("<｜end▁of▁sentence｜>") in (1, 5, 8, 17)
    assert rarest_index("abc") in (0, 1, 2)
    # A wide character whose low byte is zero is no good for memchr.
    assert "xĀ"[rarest_index("xĀ")] == "x"


def test_regex_whitespace_is_a_subset_of_isspace() -> None:
    # Generated scanners test str.isspace() before asking the regex module whether a
    # character is \s: sound only if every \s character is isspace().
    everything = "".join(map(chr, range(0x110000)))
    matched = regex.findall("\\s", everything, flags=regex.DOTALL)
    assert matched and all(c.isspace() for c in matched)
    # The one-shot pass backs over leading \s* with a set lookup instead of the engine, and
    # takes the \s* after a literal with SPACES (re, those characters written out).
    assert set(matched) == matching.SPACE_CHARS
    run = "".join(matched)
    for tail in ("", "x", "\x1c", "\u180e", "\u200b"):
        got = matching.SPACES.match(run + tail + run)
        want = regex.compile("\\s*").match(run + tail + run)
        assert got is not None and want is not None and got.span() == want.span()


@SETTINGS
@given(
    literals=st.lists(st.text(alphabet="ab<>", min_size=1, max_size=4), min_size=1, max_size=3),
    text=st.text(alphabet="ab<>", max_size=30),
)
def test_never_overlapping_anchors_end_where_the_last_match_ends(
    literals: list[str], text: str
) -> None:
    # The start anchor keeps what follows its last non-overlapping match (regex finditer);
    # for literals that can never overlap, rfind gives the same place.
    unique = tuple(dict.fromkeys(literals))
    if not never_overlap(unique):
        return
    ordered = sorted(unique, key=len, reverse=True)
    pattern = regex.compile("|".join(map(regex.escape, ordered)), regex.DOTALL)
    want = max((m.end() for m in pattern.finditer(text)), default=-1)
    got = max((text.rfind(x) + len(x) for x in unique if x in text), default=-1)
    assert got == want


def test_overlapping_anchors_are_recognised() -> None:
    assert never_overlap(("<|im_start|>assistant\n",))
    assert never_overlap(("[/INST]", "[/TOOL_RESULTS]"))
    assert not never_overlap(("aa",))  # "aaa": the scan matches at 0, rfind finds 1
    assert not never_overlap(("ab", "b"))
    assert not never_overlap(("ab", "abc"))
    assert not never_overlap(("ab", "bc"))
