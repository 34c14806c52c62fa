"""The regex-syntax package (``rtc.compiler.regex_syntax``) against the ``regex`` module itself.

* The parser reads what ``regex`` reads: on random patterns (every construct of the subset,
  misspellings and constructs outside it mixed in) the parse fails exactly where
  ``regex.compile`` fails, wherever the tree models the whole pattern.
* Every analysis holds for every match ``regex`` finds on short texts over a small alphabet,
  searched from every position, complete and partial: first characters, can-match-empty (exact
  without assertions), the lead and core, the context bound (searching a trimmed text gives the
  same answers), always-present groups, literal text, prefix and alternatives.
* Samples built from a tree are matched by the pattern.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from test_prefilter import SETTINGS as PREFILTER_SETTINGS

from rtc.compiler.lowering.context import jumps_back
from rtc.compiler.regex_syntax import (
    LeadCore,
    Sample,
    always_groups,
    can_match_empty,
    context_bound,
    first_chars,
    group_body_span,
    lead_core,
    leading_literals,
    literal_alternatives,
    literal_prefix,
    literal_text,
    looks_behind,
    max_length,
    min_length,
    needs,
    parse,
    samples,
    start_sensitive,
    top_level_alternatives,
)
from rtc.compiler.regex_syntax import nodes as n
from rtc.runtime.matching import starts_hold

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = settings(PREFILTER_SETTINGS, max_examples=150)

# Tokens for the parser test: constructs of the subset, their misspellings, and constructs the
# tree does not model (which the test skips).
TOKENS = [
    "a", "b", "é", "<", ">", "-", "]", "[", "^", "$", ".", "|", "(", ")", "(?:", "(?P<n>", "(?<m>",
    "(?=", "(?!", "(?<=", "(?<!", "(?>", "(?i)", "(?-i:", "(?m)", "(?s)", "(?#c)", "*", "+", "?",
    "{", "}", "{2}", "{,2}", "{1,}", "{2,1}", "{}", "{,}", "*?", "+?", "*+", "??", "{2}?",
    "{1,2}+", "\\", "\\s", "\\S", "\\d", "\\w", "\\b", "\\B", "\\A", "\\Z", "\\z", "\\G", "\\K",
    "\\n", "\\x3c", "\\x4", "\\u00e9", "\\0", "\\1", "\\2", "\\12", "\\123", "\\8", "\\q",
    "\\p{L}", "\\pL", "\\p{Foo}", "\\N{DIGIT ONE}", "\\N{XX}", "\\g<n>", "\\g<1>", "\\g<2>", "\\10",
    "(?P=n)", "(?P>n)", "(?&n)", "(?&m)", "(?R)", "(?0)", "(?1)", "(?2)", "(?(1)", "(?(n)",
    "(?(DEFINE)", "(?(?=a)", "(?(1)a|b)", "(?(n)a|b|c)", "[:alpha:]", "[[:digit:]]", "[[:foo:]]",
    "[^", "[]", "[a-c]", "[c-a]", "[\\d-z]", "[a-\\d]", "[\\s\\S]", "[\\b]", "[\\1]", "[\\8]",
    "[\\x41-\\x5a]", "[\\p{L}]", "&&", "--", ":", "=", ",", "1", "0", " ", "\\\\", "\\]", "\\[",
    "(?P<n>a)", "(?i:", "(?-i)", "(?s-s)", "(?im)", "\\h", "(?P<1>", "(?P<>", "(?x)", "(?|",
    "(?V0)", "(?V1)", "(?iV0:", "(?a)", "(?R", "(?0",
]  # fmt: skip


@st.composite
def token_patterns(draw: st.DrawFn) -> str:
    return "".join(draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=8)))


def _compiles(pattern: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            regex.compile(pattern, regex.DOTALL)
    except (regex.error, RecursionError, OverflowError, ValueError):
        return False
    return True


@SETTINGS
@given(pattern=token_patterns())
def test_parse_fails_exactly_where_regex_does(pattern: str) -> None:
    tree = parse(pattern)
    if tree.error is None and not tree.known:
        return  # a construct the tree does not model: no claim
    assert (tree.error is None) == _compiles(pattern), (pattern, tree.error)


def _catalogue_patterns() -> list[str]:
    found: list[str] = []

    def visit(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str) and key.endswith("pattern"):
                    found.append(value)
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    for path in sorted((ROOT / "generated").glob("*.json")):
        visit(json.loads(path.read_text(encoding="utf-8")))
    return sorted(set(found))


CATALOGUE = _catalogue_patterns()


def test_every_catalogue_pattern_is_modelled() -> None:
    assert len(CATALOGUE) > 50
    for pattern in CATALOGUE:
        tree = parse(pattern)
        assert tree.error is None and tree.known, (pattern, tree.error, tree.root)


# -- random patterns of the subset, and brute force over short texts --------------------------

ATOMS = [
    "a", "b", "<", ">", " ", "\\s", "\\S", "\\d", "\\w", "\\n", "[ab]", "[^a]", "[a-c<]", "\\|",
    ".", "\\b", "\\B", "$", "^", "\\A", "\\Z", "(?=a)", "(?!b)", "(?<=a)", "(?<!b)", "(?<=ab|b)",
    "(?P<g>a)", "(?P=g)", "é", "(?i)a", "(?i:b)", "(?>a|ab)", "(?m)^", "(?m)$", "\\G", "\\K",
    "\\x3c", "(a|)", "(?:)", "(?(g)a|b)", "(?&g)", "(?(DEFINE)(?P<d>a<))(?&d)", "(?(?=a)a|b)",
    "\\m", "\\M", "\\h", "(?P<j>\\[(?&j)?\\])",
]  # fmt: skip
QUANTS = ["", "", "", "*", "+", "?", "*?", "+?", "{2}", "{0,2}", "{1,}", "*+", "?+"]
ALPHABET = "ab< \n1é[]"
TEXTS = st.lists(st.text(alphabet=ALPHABET, max_size=6), min_size=1, max_size=5)


@st.composite
def nested_patterns(
    draw: st.DrawFn, atoms: list[str], quants: list[str], openers: st.SearchStrategy[str]
) -> str:
    """Alternations of sequences of ``atoms``, each quantified by one of ``quants``, with a
    group opened by one of ``openers`` now and then (two levels deep at most)."""

    def seq(depth: int) -> str:
        out = ""
        for _ in range(draw(st.integers(1, 4))):
            if depth < 2 and draw(st.integers(0, 5)) == 0:
                atom = draw(openers) + alt(depth + 1) + ")"
            else:
                atom = draw(st.sampled_from(atoms))
            out += atom + draw(st.sampled_from(quants))
        return out

    def alt(depth: int) -> str:
        return "|".join(seq(depth) for _ in range(draw(st.integers(1, 3))))

    return alt(0)


def patterns() -> st.SearchStrategy[str]:
    return nested_patterns(ATOMS, QUANTS, st.sampled_from(["(", "(?:", "(?=", "(?<="]))


def _valid(pattern: str) -> tuple[regex.Pattern[str], n.Tree] | None:
    if not _compiles(pattern):
        return None
    tree = parse(pattern)
    assert tree.error is None, (pattern, tree.error)
    return regex.compile(pattern, regex.DOTALL), tree


def _matches(compiled: regex.Pattern[str], text: str) -> list[tuple[regex.Match[str], bool]]:
    """Every match found searching from every position, and whether the search was partial
    (a partial search may also report an empty match at the end of the text that it does not
    mark partial)."""
    out = []
    for pos in range(len(text) + 1):
        for partial in (False, True):
            m = compiled.search(text, pos, partial=partial)
            if m is not None:
                out.append((m, partial))
    return out


def _pure(tree: n.Tree) -> bool:
    """No assertion, reference, call, atomic group or possessive repeat: the pattern's
    language is what its characters spell."""
    for x in n.walk(tree.root):
        if isinstance(x, (n.Assert, n.Backref, n.Call, n.Cond, n.Keep, n.Define, n.Unknown)):
            return False
        if isinstance(x, n.Group) and (x.is_lookaround or x.kind == n.ATOMIC):
            return False
        if isinstance(x, n.Repeat) and x.mode == n.POSSESSIVE:
            return False
    return True


def _lead_core_holds(lc: LeadCore, span: str, partial: bool) -> bool:
    """``span`` is lead characters (at most ``lead_max``) then the core, or (partial) a proper
    prefix of it."""
    for d in range(len(span) + 1):
        if lc.lead_max is not None and d > lc.lead_max:
            return False
        rest = span[d:]
        if rest.startswith(lc.core) and d >= lc.lead_min:
            return True
        if partial and lc.core.startswith(rest) and rest != lc.core:
            return True
        if d == len(span) or span[d] not in lc.lead:
            return False
    return False


def _leading_holds(leading: tuple[str, ...], text: str, m: regex.Match[str]) -> bool:
    """The text from the match's start begins with one of ``leading`` (a look-ahead's match
    may be empty there); a partial match's (it runs to the end of the text) may also be a
    proper prefix of one, and so may an empty match at the end of the text, which a partial
    search need not mark."""
    rest = text[m.start() :]
    if any(rest.startswith(x) for x in leading):
        return True
    return (m.partial or not rest) and any(x.startswith(rest) for x in leading)


@SETTINGS
@given(pattern=patterns(), texts=TEXTS)
def test_analyses_hold_for_every_match(pattern: str, texts: list[str]) -> None:
    """First characters, can-match-empty, lead and core, always-present groups and literals,
    checked on every complete and partial match from every position."""
    found = _valid(pattern)
    if found is None:
        return
    compiled, tree = found
    first = first_chars(tree)
    empty = can_match_empty(tree)
    lc = lead_core(tree)
    names = always_groups(tree)
    text_, prefix = literal_text(tree), literal_prefix(tree)
    alternatives = literal_alternatives(tree)
    leading = leading_literals(tree)
    if _pure(tree):
        assert empty == (compiled.fullmatch("") is not None), pattern
    if text_ is not None:
        assert compiled.fullmatch(text_) and not compiled.fullmatch(text_ + "a")
    for text in texts:
        for m, partial in _matches(compiled, text):
            span = text[m.start() : m.end()]
            if m.end() > m.start() and first is not None and not empty:
                assert text[m.start()] in first, (pattern, text, m, first)
            if lc is not None:
                assert _lead_core_holds(lc, span, partial), (pattern, text, m, lc)
            if leading is not None:
                assert _leading_holds(leading, text, m), (pattern, text, m, leading)
            if partial:
                continue
            assert span or empty, (pattern, text, m)
            assert all(m.group(name) is not None for name in names), (pattern, text, m)
            assert text_ is None or span == text_, (pattern, text)
            assert prefix is None or span.startswith(prefix), (pattern, text)
            assert alternatives is None or span in alternatives, (pattern, text)


@SETTINGS
@given(pattern=patterns(), texts=TEXTS)
def test_without_a_needed_character_nothing_matches_and_partials_are_lead(
    pattern: str, texts: list[str]
) -> None:
    """``needs``: in a text holding no character of ``core``, no search finds a complete
    match (an empty partial one at the end aside), and every partial match covers only
    ``lead`` characters (what the streaming fast path relies on)."""
    found = _valid(pattern)
    if found is None:
        return
    compiled, tree = found
    need = needs(tree)
    if need is None:
        return
    for text in texts:
        text = "".join(c for c in text if c not in need.core)
        for m, partial in _matches(compiled, text):
            span = text[m.start() : m.end()]
            if not partial or not m.partial:
                # A complete match: only the empty one a partial search reports at the end.
                assert partial and m.start() == m.end() == len(text), (pattern, text, m, need)
                continue
            assert all(c in need.lead for c in span), (pattern, text, m, need)


@SETTINGS
@given(pattern=patterns(), texts=TEXTS)
def test_trimming_to_the_context_bound_changes_no_search(pattern: str, texts: list[str]) -> None:
    found = _valid(pattern)
    if found is None:
        return
    compiled, tree = found
    bound = context_bound(tree)
    if bound is None or jumps_back(pattern):
        return
    for text in texts:
        for pos in range(1, len(text) + 1):
            cut = max(0, pos - bound)
            for partial in (False, True):
                whole = compiled.search(text, pos, partial=partial)
                trimmed = compiled.search(text[cut:], pos - cut, partial=partial)
                assert (whole and (whole.span(), whole.partial)) == (
                    trimmed and ((trimmed.start() + cut, trimmed.end() + cut), trimmed.partial)
                ), (pattern, text, pos, bound)


def _sample_holds(compiled: regex.Pattern[str], sample: Sample) -> bool:
    """The pattern, tried somewhere in ``before``, matches exactly ``text`` seeing
    ``witness`` (to the end of the text when there is nothing after ``text``)."""
    full = sample.before + sample.witness
    want = (len(sample.before), len(sample.before) + len(sample.text))
    for pos in range(len(sample.before) + 1):
        if sample.witness == sample.text:
            m = compiled.fullmatch(full, pos)
        else:
            m = compiled.match(full, pos)
        if m is not None and m.span() == want:
            return True
    return False


@SETTINGS
@given(pattern=patterns())
def test_samples_are_matched_and_lengths_bound_them(pattern: str) -> None:
    found = _valid(pattern)
    if found is None:
        return
    compiled, tree = found
    low, high = min_length(tree), max_length(tree)
    for sample in samples(pattern, limit=4):
        assert _sample_holds(compiled, sample), (pattern, sample)
    if _pure(tree):
        unchecked = samples(pattern, limit=4, verify=False)
        assert unchecked, pattern
        for sample in unchecked:
            assert compiled.fullmatch(sample.text), (pattern, sample)
            assert low <= len(sample.text) <= (high if high is not None else len(sample.text))


def test_catalogue_patterns_trimmed_to_their_context_bound_search_alike() -> None:
    """Each catalogue pattern on texts holding its own samples (what a look-behind needs before
    them included), searched from every position with the text before it cut to the bound."""
    for pattern in CATALOGUE:
        bound = context_bound(parse(pattern))
        if bound is None or jumps_back(pattern):
            continue
        compiled = regex.compile(pattern, regex.DOTALL)
        for sample in samples(pattern, limit=3):
            text = "ab \n" + sample.before + sample.witness + " }]"
            for pos in range(1, len(text) + 1):
                cut = max(0, pos - bound)
                for partial in (False, True):
                    whole = compiled.search(text, pos, partial=partial)
                    part = compiled.search(text[cut:], pos - cut, partial=partial)
                    assert (whole and whole.span()) == (
                        part and (part.start() + cut, part.end() + cut)
                    ), (pattern, text, pos)


# -- examples ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "lead", "core", "lead_max"),
    [
        (r"\s*<tool_call>", ["\\s"], "<tool_call>", None),
        ("<tool_call>", [], "<tool_call>", 0),
        (
            r'(?:<｜DSML｜tool_calls>\s*)?<｜DSML｜invoke name="(?P<name>[^"]+)">\s*',
            list("<｜DSML｜tool_calls>") + ["\\s"],
            '<｜DSML｜invoke name="',
            None,
        ),
        (r"\[TOOL_CALLS\]\s*(?P<name>[\w.:\-]+)", [], "[TOOL_CALLS]", 0),
        (r"\n?\n?<a>", ["\n"], "<a>", 2),
        # A look-ahead in the lead reads on: its characters and reach count.
        (r"x?(?=\w{0,3}!)ab", ["x", "\\w", "!"], "ab", 5),
        # A look-ahead ends the core (it may read past the next character).
        ("<a(?=b)c", [], "<a", 0),
    ],
)
def test_lead_core_examples(pattern: str, lead: list[str], core: str, lead_max: int | None) -> None:
    found = lead_core(parse(pattern))
    assert found is not None
    assert (sorted(set(found.lead.members)), found.core, found.lead_max) == (
        sorted(set(lead)),
        core,
        lead_max,
    )


# Tool-call openers as catalogue templates write them, and the literals each match begins with.
LEADING = [
    ("<a>", ("<a>",)),
    (r"<a>(?=\s*\{)", ("<a>",)),
    (r"(?(DEFINE)(?P<v>\d+))<a>(?=(?&v))", ("<a>",)),
    (r"(?:<ab>\s*)?<a>\s*(?P<name>[^<]+)", ("<ab>", "<a>")),
    # A group that is one literal is read with what follows it (where it is taken, that comes
    # next at once): a partial match "<x>" at the end is a prefix of "<x>{", not a match.
    (r"(?:<x>)?\{\s*", ("<x>{", "{")),
    ("a|b", ("a", "b")),
    (r"(?:<x>|<y>)\s*", ("<x>", "<y>")),
    (r"</t>\s*|(?=<t>|<e>)|<f>", ("</t>", "<t>", "<e>", "<f>")),
    (r"(?:<a>\s*)?(?:<b>\s*)?<c>", ("<a>", "<b>", "<c>")),
    (r"\n?</r>|</s>", ("\n</r>", "</r>", "</s>")),
    (r"(?:<x>|<y>)z(?(DEFINE)(?P<v>\d+))", ("<x>z", "<y>z")),
    (r"(?:|<a>)b", ("b", "<a>b")),
    # A choice never taken back (atomic, possessive) is read without what follows it: in
    # (?>a|ab)c, "ab" then "c" is no match, so "abc" is not a literal its matches begin with.
    (r"(?:a|ab)c", ("ac", "abc")),
    (r"(?>a|ab)c", ("a", "ab")),
    (r"(?:a|ab){1}+c", ("a", "ab")),
]
LEADING_UNKNOWN = [
    "a|\\s*b",
    r"(?:^|<a>)",
    r"(?<=x)a|b",
    r"(?!a)b",
    r"(?=a)a",  # a look-ahead read only where nothing follows it
    "(?i)<a>",
    r"\s*<a>",
    r"(?:<ab>)??<a>",
    r"(?:<ab>)?\s*<a>",
    r"a\Kb",
]


@pytest.mark.parametrize(("pattern", "leading"), LEADING)
def test_leading_literals_examples(pattern: str, leading: tuple[str, ...]) -> None:
    assert leading_literals(parse(pattern)) == leading


@pytest.mark.parametrize("pattern", LEADING_UNKNOWN)
def test_leading_literals_unknown(pattern: str) -> None:
    assert leading_literals(parse(pattern)) is None


@SETTINGS
@given(
    inside=st.sampled_from(["<ab>", "<a", "a<", "<ab>\\s*", "<ab>[^<]*"]),
    after=st.sampled_from(["<a>", "<ab", "a", "<a>\\s*x", "<a>(?=b)"]),
    mode=st.sampled_from(["?", "?+", "{0,1}"]),
    texts=st.lists(st.text(alphabet="<ab> x", max_size=8), min_size=1, max_size=5),
)
def test_leading_literals_of_optional_openers(
    inside: str, after: str, mode: str, texts: list[str]
) -> None:
    """``(?:A...)?B...``: every match, complete or partial, from every position, begins with
    A's or B's leading literal (or, partial, is a proper prefix of one)."""
    pattern = f"(?:{inside}){mode}{after}"
    leading = leading_literals(parse(pattern))
    assert leading is not None, pattern
    compiled = regex.compile(pattern, regex.DOTALL)
    for text in texts:
        for m, _ in _matches(compiled, text):
            assert _leading_holds(leading, text, m), (pattern, text, m, leading)


# Pieces the leading-literal analysis reads (literals, optional groups, choices, look-aheads)
# and what may follow them.
_HEADS = ["<a>", "<ab", "<a><", "a<", "b", "\\n"]
_TAILS = ["", "x", "<b>", "\\s*", "[^<]*", "(?=b)", "\\s*x", "(?:<a>)?", "$"]


@st.composite
def _led_patterns(draw: st.DrawFn, depth: int = 2) -> str:
    """A pattern whose first items are of the shapes ``leading_literals`` reads."""
    kind = draw(
        st.sampled_from(["literal", "optional", "choice", "ahead"] if depth else ["literal"])
    )
    head = draw(st.sampled_from(_HEADS))
    if kind == "optional":
        head = f"(?:{head}{draw(st.sampled_from(_TAILS))}){draw(st.sampled_from(['?', '?+']))}"
        head += draw(_led_patterns(depth - 1))
    elif kind == "choice":
        branches = draw(st.lists(_led_patterns(depth - 1), min_size=2, max_size=3))
        group = draw(st.sampled_from(["(?:", "(?>", "(", ""]))
        head = group + "|".join(branches) + ")" if group else "|".join(branches)
    elif kind == "ahead":
        head = f"(?={'|'.join(draw(st.lists(st.sampled_from(_HEADS), min_size=1, max_size=2)))})"
        head += draw(st.sampled_from(["", "<", "<a"]))
    return head + draw(st.sampled_from(_TAILS))


@SETTINGS
@given(
    pattern=_led_patterns(),
    texts=st.lists(st.text(alphabet="<ab>x \n", max_size=8), min_size=1, max_size=5),
)
def test_leading_literals_of_choices_and_look_aheads(pattern: str, texts: list[str]) -> None:
    """Every match, complete or partial, from every position, begins where the text begins
    with one of the leading literals (partial: or is a proper prefix of one); and, the other
    way, in text where none of them occurs, the regex module's partial search starts where
    the rest of the text is a proper prefix of one (``starts_hold``: what the fast path holds)."""
    if not _compiles(pattern):
        return
    leading = leading_literals(parse(pattern))
    if leading is None:
        return
    compiled = regex.compile(pattern)
    for text in texts:
        for m, _ in _matches(compiled, text):
            assert _leading_holds(leading, text, m), (pattern, text, m, leading)
        hold = starts_hold(text, leading)
        if hold >= 0:
            m = compiled.search(text, partial=True)
            assert hold == (len(text) if m is None else m.start()), (pattern, text, m, leading)


@pytest.mark.parametrize("pattern", ["a|b", "(?i)ab", r"a\Kb", r"\X<a>", r"\w+"])
def test_lead_core_unknown(pattern: str) -> None:
    assert lead_core(parse(pattern)) is None


@pytest.mark.parametrize(
    ("pattern", "bound"),
    [
        ("<a>", 0),
        (r"\s*</think>", 0),
        (r"\b<a>", 1),
        ("^<a>", 1),
        (r"(?<=\n)<a>", 1),
        ("(?<=ab|c)d", 2),
        (r"a(?<=ab)", 1),  # one of the two characters it reads is the one it consumed
        ("(?<=a(?<=ba))", 2),
        ("(?<=a+)b", None),
        (r"\G(?:(?&jv)\K|(?<=\]))(?(DEFINE)(?P<jv>\[\]|1))", 1),
        (r"(?x)\b a", None),
    ],
)
def test_context_bound_examples(pattern: str, bound: int | None) -> None:
    assert context_bound(parse(pattern)) == bound


def test_look_behind_and_start_sensitivity() -> None:
    assert looks_behind(parse("(?<!a)b")) and not looks_behind(parse("(?!a)b"))
    assert start_sensitive(parse(r"\Ga")) and start_sensitive(parse(r"a\Kb"))
    assert not start_sensitive(parse(r"\X")) and not start_sensitive(parse("a$"))


def test_groups_and_alternatives_by_source() -> None:
    tree = parse(r"<(?P<name>\w+)>|(?i)x(y|z)")
    assert top_level_alternatives(tree) == [r"<(?P<name>\w+)>", "(?i)x(y|z)"]
    span = group_body_span(tree, "name")
    assert span is not None and tree.pattern[span[0] : span[1]] == r"\w+"
    assert always_groups(parse("(?P<a>x)|(?P<a>y)")) == {"a"}
    assert always_groups(parse("(?P<a>x)?(?=(?P<b>y))(?!(?P<c>z))")) == {"b"}


def test_calls_and_define_are_sampled() -> None:
    found = samples(
        r"<tool_call>(?=\s*(?&jv)\s*</tool_call>)(?(DEFINE)(?P<jv>\{\s*\}|\[(?&jv)?\]))"
    )
    assert found and found[0].text == "<tool_call>"
    assert found[0].witness.startswith("<tool_call>{")
    # Two look-aheads at the end need one text after the delimiter: the body written next.
    pattern = r"<c>(?=\[\s*\{)(?=(?&jv))(?(DEFINE)(?P<jv>\{\}|\[(?&jv)\]))"
    assert [s.witness for s in samples(pattern, after="[{}]")][:1] == ["<c>[{}]"]
