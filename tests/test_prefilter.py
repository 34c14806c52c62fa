"""Soundness of the compile-time pattern analyses the fast paths rely on.

* ``first_fragments``: every complete or partial match that consumes text starts with a character
  the fragments match, and no complete match is empty (so a chunk without such a character cannot
  start a delimiter).
* ``_needs_context``: for patterns it clears, searching ``buf`` from ``pos`` gives the same answer
  as searching ``buf[pos:]`` from 0 (consumed text may be dropped).
* ``literal_tail``: the partial match the ``regex`` module reports for an escaped literal.
"""

from __future__ import annotations

import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtc.compiler.plan import _jumps_back, _needs_context
from rtc.compiler.prefilter import class_source, first_fragments, lookahead_literal
from rtc.runtime.matching import literal_tail

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
    if _needs_context(pattern):
        return
    if _jumps_back(pattern):
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
