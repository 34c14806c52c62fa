"""The package's drop-in answers equal the ad-hoc readers they replace, on random patterns.

Compared: ``regex_syntax.fast_paths`` with ``prefilter`` (first fragments, literal text,
prefix, alternatives, ``L\\s*``, ``\\s*REST``, the look-ahead literal, ``R|$``), with
``lowering.context`` (needs context, looks back, start sensitive) and with
``lowering.serving.always_groups``; ``regex_syntax.twin`` with ``re_twin``. Where they differ it
is one of these, each checked to go the safe way:

- a pattern the tree does not model as a whole or in part (verbose mode, branch resets,
  ``\\X``...): the new answer is the conservative one;
- ``{,n}`` after a leading group (``searches_well``): the old scan read only ``{0`` as "optional";
- ``{}`` (the old prefilter reader took it for a quantifier; it is two literal characters);
- a top-level group followed by a literal ``{`` (``always_groups``: the old scan took the ``{``
  for a quantifier).
"""

from __future__ import annotations

import regex
from hypothesis import given
from hypothesis import strategies as st
from test_regex_syntax import SETTINGS

from rtc.compiler import prefilter, re_twin
from rtc.compiler.lowering import context, serving
from rtc.compiler.regex_syntax import fast_paths, parse, twin

ATOMS = [
    "a", "b", "ab", "<", ">", " ", "\\s", "\\S", "\\d", "\\w", "\\W", "\\n", "\\t", "\\a", "[ab]",
    "[^a]", "[a-c<]", "[\\s<]", "[\\s\\S]", "[]a]", "[^]a]", "[[a]", "[a&&b]", "[\\b]", "[\\x41]",
    "[[:alpha:]]", "[\\d-z]", "[a-z\\d]", "[\\s-]", "[-\\s]", "[]-a]", "[\\S]", "[\\w.:\\-]", "\\|",
    "\\[", "\\]", "\\(", "\\)", "\\{", "\\}", "\\\\", "\\é", "\\-", "\\.", ".", "\\b", "\\B", "$",
    "^", "\\A", "\\Z", "\\z", "(?=a)", "(?!b)", "(?<=a)", "(?<!b)", "(?P<g>a)", "(?P<h>\\w+)",
    "(?<m>a)", "(?P=g)", "\\1", "é", "｜", "(?i)a", "(?i:b)", "(?>a)", "(?m)^", "\\G", "\\K",
    "\\x3c", "\\0", "(a|)", "(?:)", "()", "(?(1)a|b)", "(?#c)", "\\h", "\\X", "\\p{L}", "{", "}",
    "]", "(?P<ä>a)", "(?|a|b)", "(?&g)", "(?(DEFINE)(?P<d>a))", "(?x) a", "(?r)a", "(?w)\\b",
    "(?=[\\s\\S]*?</a>)",
]  # fmt: skip
QUANTS = ["", "", "", "", "*", "+", "?", "*?", "+?", "{2}", "{0,2}", "{1,}", "{,2}", "*+", "??"]


@st.composite
def patterns(draw: st.DrawFn) -> str:
    def seq(depth: int) -> str:
        out = ""
        for _ in range(draw(st.integers(1, 4))):
            if depth < 2 and draw(st.integers(0, 6)) == 0:
                opener = draw(st.sampled_from(["(", "(?:", "(?P<n1>", "(?=", "(?!", "(?<="]))
                atom = opener + alt(depth + 1) + ")"
            else:
                atom = draw(st.sampled_from(ATOMS))
            out += atom + draw(st.sampled_from(QUANTS))
        return out

    def alt(depth: int) -> str:
        return "|".join(seq(depth) for _ in range(draw(st.integers(1, 3))))

    shape = draw(st.integers(0, 9))
    if shape == 6:  # a literal alternation
        words = st.sampled_from(["a", "ab", "<b>", "\\|x", "c\\n", "é"])
        return "|".join(draw(st.lists(words, min_size=1, max_size=4)))
    if shape == 7:  # a literal
        chars = st.sampled_from(["a", "<", "\\n", "\\|", "é", "\\.", "]", "\\\\"])
        return "".join(draw(st.lists(chars, min_size=1, max_size=4)))
    body = alt(0)
    wrap = {
        1: "\\s*{}",
        2: "{}\\s*",
        3: "{}|$",
        4: "{}|\\Z",
        5: "(?:{})",
        8: "(?=[\\s\\S]*?{})",
        9: "(?=.*?{})",
    }
    return wrap.get(shape, "{}").format(body)


def _valid(pattern: str) -> bool:
    try:
        regex.compile(pattern, regex.DOTALL)
    except (regex.error, RecursionError, OverflowError):
        return False
    return True


PREFILTER = [
    "first_fragments",
    "whitespace_led",
    "lookahead_literal",
    "literal_prefix",
    "literal_text",
    "literal_then_spaces",
    "literal_alternatives",
    "dollar_alternative",
]


@SETTINGS
@given(pattern=patterns())
def test_fast_path_answers_are_the_old_readers(pattern: str) -> None:
    if not _valid(pattern):
        return
    known = parse(pattern).known
    if "{}" not in pattern:
        for name in PREFILTER:
            old, new = getattr(prefilter, name)(pattern), getattr(fast_paths, name)(pattern)
            assert old == new, (name, pattern, old, new)
    pairs = [
        ("needs_context", context.needs_context(pattern), fast_paths.needs_context(pattern)),
        ("looks_back", bool(context._LOOKS_BACK.search(pattern)), fast_paths.looks_back(pattern)),
        (
            "start_sensitive",
            bool(context._START_SENSITIVE.search(pattern)),
            fast_paths.start_sensitive(pattern),
        ),
    ]
    for name, old, new in pairs:
        assert old == new or (not known and new), (name, pattern, old, new)
    old_groups, new_groups = serving.always_groups(pattern), fast_paths.always_groups(pattern)
    if not known:
        assert new_groups <= old_groups, pattern
    elif old_groups != new_groups:
        extra = new_groups - old_groups
        assert old_groups < new_groups, pattern
        assert all("){" in pattern.split(f"(?P<{name}>", 1)[1] for name in extra), pattern


@SETTINGS
@given(pattern=patterns())
def test_twins_are_the_old_twins(pattern: str) -> None:
    if not _valid(pattern):
        return
    old, new = re_twin.re_twin(pattern), twin.re_twin(pattern)
    assert (old and (old.source, old.ascii_only)) == (new and (new.source, new.ascii_only))
    old_well, new_well = re_twin.searches_well(pattern), twin.searches_well(pattern)
    if old_well != new_well and parse(pattern).known:
        assert old_well and not new_well and "){," in pattern, pattern
