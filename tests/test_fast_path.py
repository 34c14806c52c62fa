"""The fast path of ``feed()`` against the general path.

Per parser state the compiler proves which characters every match of a watched delimiter
contains (``core``) and which may come before the first of them (``lead``: a ``\\s*``, say);
``feed()`` then commits a chunk without searching when neither it nor the held-back text holds a
core character, holding back a trailing run of lead characters (``rtc.runtime.engine.Fast``).
Checked here: the same events, messages and exceptions as the same parser with its fast path
switched off, on random templates and on the catalogue, fed prose in token-sized chunks mixed
with delimiter pieces; and each delimiter's facts against the regex module's partial search.
"""

from __future__ import annotations

import copy
import re
import types
from dataclasses import replace
from typing import Any

import pytest
import regex
from engine_models import fixture_cases
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import canon
from strategies import chunkings, pattern_delims, template_plans, texts

import rtc.generated
from rtc.compiler import load
from rtc.compiler.codegen import build_plan, render
from rtc.compiler.lowering.delimiters import pattern_facts
from rtc.compiler.regex_syntax import parse
from rtc.compiler.regex_syntax.literal import literal_runs
from rtc.runtime.ahead import NO_MEMO
from rtc.runtime.fast_path import Fast, feed_step
from rtc.runtime.fast_tuple import region_tuple
from rtc.runtime.matching import SPACE_CHARS, SPACE_STR, Starts, starts_hold

SETTINGS = settings(max_examples=400, derandomize=True, deadline=None, database=None)

PROSE = [
    " The",
    " quick",
    " fox",
    ".",
    ",",
    "\n",
    "\n\n",
    " ",
    "  ",
    "-",
    " `x`",
    " 42",
    "\t",
    "é",
    " 你好",
    "\xa0",
    "\u2028",
    "\x1c",  # str.isspace() but not regex \s
    # Core characters of common delimiters that begin none (Fast.starts), and then one that
    # may: "<" at the end of a chunk.
    " <=",
    " a<b",
    "{x}",
    " <",
    " [1]",  # a core character of the states that watch "<" and "[" (a pair: see region_tuple)
]


def without_fast_path(parser: type[Any]) -> type[Any]:
    """The parser with every chunk taking the general path: no fast path, and no held match
    grown without a search (``growing.grown``)."""
    return type(
        "Slow" + parser.__name__,
        (parser,),
        {"__slots__": (), "_fasts": (None,) * len(parser._fasts), "_grows": ()},
    )


def run(parser: type[Any], prefix: str, chunks: list[str]) -> list[Any]:
    """Everything observable: each call's events (or exception type) and the message."""
    seen: list[Any] = []
    try:
        p = parser(prefix)
        seen.append(canon(p.initial_events))
        for chunk in chunks:
            seen.append(canon(p.feed(chunk)))
        seen.append(canon(p.finalize()))
    except Exception as exc:  # the exception type is the observable
        seen.append(("raises", type(exc).__name__))
    return seen


def agree_on(fields: dict[str, Any], other: str, pieces: list[str]) -> None:
    """The parser of ``fields`` (and, with ``other``, a field ``d`` opened by that pattern)
    observes the same with its fast path as without, fed ``pieces`` as drawn and one character
    at a time."""
    fields = dict(fields)
    if other:
        fields["d"] = {"open_pattern": other, "close": "</d>"}
    parser = load({"start_anchor": "<S>", "fields": fields}).ResponseParser
    for chunks in (pieces, list("".join(pieces))):
        assert run(parser, "", chunks) == run(without_fast_path(parser), "", chunks), chunks


@st.composite
def prose_and_pieces(draw: st.DrawFn, plan: Any) -> list[str]:
    """Token-sized chunks of prose, with pieces of the template's own text between them."""
    chunks: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        chunks += draw(st.lists(st.sampled_from(PROSE), max_size=12))
        if draw(st.booleans()):
            chunks += draw(chunkings(draw(texts(plan, max_pieces=3))))
    return [c for c in chunks if c is not None]


def with_variant(parser: type[Any], simple: bool) -> type[Any]:
    """The parser with feed_step's simple variant (``simple``) or its plain step, whatever
    the class would get (the simple variant is exact in every state: it commits only where
    items 21 and 22 of the state's tuple say the plain step would)."""
    return type(
        ("Simple" if simple else "Plain") + parser.__name__,
        (parser,),
        {
            "__slots__": (),
            "feed": feed_step(events=True, simple=simple),
            "feed_text": feed_step(events=False, simple=simple),
        },
    )


def run_text(parser: type[Any], prefix: str, chunks: list[str]) -> list[Any]:
    """What ``feed_text`` returns for each chunk (``feed_declined``'s events where it declines),
    then the message."""
    seen: list[Any] = []
    try:
        p = parser(prefix)
        for chunk in chunks:
            text = p.feed_text(chunk)
            seen.append(text if text is not None else ("declined", canon(p.feed_declined(chunk))))
        seen.append(canon(p.finalize()))
    except Exception as exc:  # the exception type is the observable
        seen.append(("raises", type(exc).__name__))
    return seen


@SETTINGS
@given(data=st.data())
def test_random_templates_fast_and_general_agree(data: st.DataObject) -> None:
    """The same with the fast path as without; and so with feed_step's other variant (the simple
    one forced on every template, or the plain step), feed() and feed_text() alike."""
    plan = data.draw(template_plans(), label="plan")
    try:
        module = load(copy.deepcopy(plan.template))
    except (ValueError, TypeError):
        return
    chunks = data.draw(prose_and_pieces(plan), label="chunks")
    parser = module.ResponseParser
    general = run(without_fast_path(parser), "", chunks)
    assert run(parser, "", chunks) == general
    other = with_variant(parser, not parser._simple_feed)
    assert run(other, "", chunks) == general
    assert run_text(parser, "", chunks) == run_text(other, "", chunks)


FAMILIES = rtc.generated.names()


@pytest.mark.parametrize("name", ["glm4_moe", "gemma4", "qwen3", "qwen3_5", "apertus", "ernie"])
def test_the_simple_variant_where_every_named_state_is_simple(name: str) -> None:
    """feed_step's simple variant for the classes whose every named region's state is simple
    and without lead characters (glm4_moe, gemma4); not where some state has lead characters
    (qwen3 and qwen3_5's content, before \\s*<tool_call>) or keeps consumed text (apertus,
    ernie), whose every chunk would pay for its first test."""
    module = rtc.generated.get(name)
    parser = module.ResponseParser
    simple = name in ("glm4_moe", "gemma4")
    assert (parser.feed.__code__.co_name == "simple_step") is simple
    assert (parser.feed_text.__code__.co_name == "simple_step") is simple
    for chunks in catalogue_chunkings(module.TEMPLATE, 2, 5, ("\n ",)):
        other = with_variant(parser, not simple)
        assert run_text(parser, "", chunks) == run_text(other, "", chunks)


def catalogue_chunkings(
    template: dict[str, Any], repeats: int, every: int, extra: tuple[str, ...]
) -> list[list[str]]:
    """Prose in token-sized chunks; the same with the template's literals (those of its
    patterns too) cut in two (in halves, or before their last character: a chunk that ends
    inside one) after every ``every``-th token, then ``extra``; and that text one character
    at a time."""
    tokens = re.findall(r" ?[^\s]+|\s+", "".join(PROSE) * repeats)
    literals = [x for x in _literals(template) if x]
    mixed = []
    for i, token in enumerate(tokens):
        mixed.append(token)
        if literals and i % every == every // 2:
            literal = literals[i % len(literals)]
            cut = len(literal) // 2 if i % 2 else len(literal) - 1
            mixed += [literal[:cut], literal[cut:], *extra]
    return [tokens, mixed, list("".join(mixed))]


@pytest.mark.parametrize("name", FAMILIES)
def test_catalogue_fast_and_general_agree(name: str) -> None:
    module = rtc.generated.get(name)
    parser = module.ResponseParser
    for chunks in catalogue_chunkings(module.TEMPLATE, 3, 7, ("\n ",)):
        assert run(parser, "", chunks) == run(without_fast_path(parser), "", chunks), name


def test_pairs_only_where_the_state_is_simple_but_for_its_core() -> None:
    """The pair (item 18 of region_tuple) is set only where the common case needs
    nothing but the core and lead characters: no ^ or $ alternative, no consumed text kept."""
    two = Fast(frozenset("<["), "", False, False)
    assert region_tuple(two, "content", False, False)[18] == ("<", "[")
    assert region_tuple(two, "content", False, False)[0] == ""  # not simple: the pair decides
    assert region_tuple(two, "content", False, True)[18] == ()  # consumed text kept
    assert region_tuple(two._replace(drops=True), "content", False, True)[18] == ("<", "[")
    assert region_tuple(two._replace(dollar=True), "content", False, False)[18] == ()
    assert region_tuple(two._replace(late=True), "content", False, False)[18] == ()
    assert region_tuple(Fast("<", "", False, False), None, False, False)[18] == ()
    assert region_tuple(Fast(frozenset("<[{"), "", False, False), None, False, False)[18] == ()
    # Items 21 and 22, what the simple variant of feed() tests: the same, in a named region
    # without lead characters.
    assert region_tuple(two, "content", False, False)[21:23] == ("", ("<", "["))
    assert region_tuple(Fast("<", "", False, False), "content", False, False)[21:23] == ("<", ())
    assert region_tuple(Fast("<", "", False, False), None, False, False)[21:23] == ("", ())
    assert region_tuple(Fast("<", " ", True, False), "content", False, False)[21:23] == ("", ())
    assert region_tuple(Fast("<", "", False, False), "content", False, True)[21:23] == ("", ())


@pytest.mark.parametrize("lead", ["", "\n", SPACE_STR, "\t\n\u3000"])
def test_lead_characters_are_looked_up_as_the_fast_path_needs(lead: str) -> None:
    """Item 1 of region_tuple answers ``in`` as the lead string does, for every character
    (a set where there are lead characters, "" where there are none); item 20 is the string,
    which the fast path strips."""
    found = region_tuple(Fast("<", lead, bool(lead), False), "content", False, False)
    assert found[20] == lead
    assert isinstance(found[1], frozenset if lead else str)
    for c in {*lead, *SPACE_STR, "a", "<", "\u4e2d", "\U0001f600"}:
        assert (c in found[1]) == (c in lead), repr(c)


@pytest.mark.parametrize(
    ("family", "chunks", "skipped"),
    [
        ("glm4_moe", ["Hi", " <", "tool", "_", "call", ">", "get", "\n", "</tool_call>"], "_"),
        ("glm4_moe", ["Hi <", "t", "o", "o", "l", "_", "c", "a", "l", "l", "<", "/think>"], "l"),
        ("glm4_moe", ["<", "/", "t", "h", "i", "n", "k", " ", "<", "tool", "_call", ">x"], "h"),
        ("glm4_moe", ["<", "tool_", "call", "_call", "s", "<", "tool_call", "<tool_call>"], ""),
        # Held text of the same length, another literal's prefix: the record no longer holds.
        ("qwen3", ["Hi <", "t", "x <|", "ool", "!", " <", "t", "x <t", "ool>"], ""),
        ("qwen3", ["Hi <", "t", "x  <", "ool", "!", " <", "t", "x\n\t<", "tool", "_"], "_"),
        # A \s*-led literal: the held text's leading whitespace is not the literal's.
        ("qwen3_5", ["Hi", "\n", "<", "tool", "_", "call", ">", "x"], "_"),
        ("qwen3_5", ["Hi", " \n ", "<", "tool", "\t", "call", "\n<", "tool", "_", "x"], ""),
    ],
)
def test_a_held_literal_prefix_is_continued_without_held_case(
    family: str, chunks: list[str], skipped: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once held_case finds the held text a proper prefix of a literal the state watches
    (after its leading whitespace, for a \\s*-led one), feed() checks the next chunk against
    that literal alone (``_held_literal``): the chunks that continue it are held without
    held_case, and every event is the general path's."""
    from rtc.runtime import fast_path

    parser = rtc.generated.get(family).ResponseParser
    calls: list[str] = []
    held_case = fast_path.held_case

    def counted(p: Any, text: str, fast: tuple[Any, ...], events: bool) -> Any:
        calls.append(text)
        return held_case(p, text, fast, events)

    monkeypatch.setattr(fast_path, "held_case", counted)
    assert run(parser, "", chunks) == run(without_fast_path(parser), "", chunks)
    assert not skipped or skipped not in calls, calls


@pytest.mark.parametrize(
    ("family", "call"),
    [
        ("gemma4", '<|tool_call>call:get_time{city:<|"|>Paris<|"|>}<tool_call|>'),
        ("qwen3", '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'),
    ],
)
def test_a_call_as_the_first_text_is_held_without_the_loop(
    family: str, call: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not vacuous: the ``<`` a call opens with, as a generation's first chunk and as the first
    chunk after a call closed (the implicit region not yet open, nothing held), is held without
    the general path (``held_first``); a character at a time, every event is the general
    path's."""
    from rtc.runtime.engine import CompiledParser

    parser = rtc.generated.get(family).ResponseParser
    entered: list[str] = []
    general = CompiledParser._feed

    def counted(p: Any, text: str) -> Any:
        entered.append(text)
        return general(p, text)

    monkeypatch.setattr(CompiledParser, "_feed", counted)
    p = parser("")
    assert p.feed("<") == []
    assert not entered
    for c in call[1:]:
        p.feed(c)
    assert p.region == parser._implicit and not p._opened  # the call closed
    entered.clear()
    assert p.feed("<") == []
    assert not entered
    chunks = list(call + call + "Done.")
    assert run(parser, "", chunks) == run(without_fast_path(parser), "", chunks)


# Pieces that make held literal prefixes, their continuations, and what breaks them.
HELD_PIECES = ["<", "<t", "<tool_call", "</think", "<|im_", "<|", " ", "\n\t", "x", "ool", "hink"]
HELD_PIECES += ["_call", ">", "<think>", "end|>", "</tool_call>", "<|channel|>", "call|>"]
HELD_PIECES += ["t", "x <|", "x  <", "x</", "|", "/", "o"]


@SETTINGS
@given(
    family=st.sampled_from(["qwen3", "glm4_moe", "qwen3_5", "gemma4", "gpt_oss", "cohere"]),
    pieces=st.lists(st.sampled_from(HELD_PIECES), max_size=24),
    cuts=st.lists(st.integers(0, 200), max_size=16),
)
def test_held_literal_prefixes_stream_as_the_general_path(
    family: str, pieces: list[str], cuts: list[int]
) -> None:
    """Literal prefixes held and continued, broken, or replaced by another prefix of the same
    length, in random chunks: feed() (its held-literal check included) answers as the general
    path does."""
    text = "".join(pieces)
    if len(cuts) % 2:  # each piece a chunk
        chunks = pieces
    else:
        bounds = [0, *sorted(c for c in cuts if c < len(text)), len(text)]
        chunks = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
    parser = rtc.generated.get(family).ResponseParser
    assert run(parser, "", chunks) == run(without_fast_path(parser), "", chunks)


def _literals(template: dict[str, Any]) -> list[str]:
    found = []
    for spec in template["fields"].values():
        for key in ("open", "close"):
            value = spec.get(key)
            found += [value] if isinstance(value, str) else list(value or [])
            pattern = spec.get(f"{key}_pattern")
            if pattern:
                found += literal_runs(parse(pattern))
    return found


# --- each delimiter's facts against the regex module ------------------------------------------

LEAD_WORDS = ["a", "b", " ", "\n", "\t", "\xa0", "\x1c", "é", "<", "<a", "</", "ab"]


@SETTINGS
@given(
    words=st.lists(st.sampled_from(LEAD_WORDS), max_size=10),
    literals=st.lists(st.sampled_from(["<a>", "<ab>", "</a>", "<|e|>"]), min_size=1, max_size=3),
    shape=st.integers(0, 6),
)
def test_facts_hold_for_text_without_core_characters(
    words: list[str], literals: list[str], shape: int
) -> None:
    """With no core character in the text, a delimiter has no complete match, and its
    leftmost partial match starts where the trailing run of lead characters does (or at the
    end): what the fast path holds back."""
    escaped = "|".join(regex.escape(x) for x in dict.fromkeys(literals))
    pattern = [
        f"(?:{escaped})",
        rf"\s*(?:{escaped})",
        rf"\s*(?:{escaped})\s*",
        rf"(?:{escaped})|$",
        # Led by \s* after an optional part, beside a look-ahead or a look-behind-led branch.
        rf"(?:<b>)?\s*(?:{escaped})",
        rf"\s*(?:{escaped})|(?=<c>)",
        rf"(?<=a)\s*(?:{escaped})|\s+(?:{escaped})",
    ][shape]
    module = load({"start_anchor": "<S>", "fields": {"c": {"close_pattern": pattern}}})
    fast = module.ResponseParser._fasts[0]
    assert fast is not None, pattern
    text = "".join(words)
    core = {fast.core} if isinstance(fast.core, str) else set(fast.core)
    if core & set(text):
        return
    compiled = regex.compile(pattern, regex.DOTALL)
    m = compiled.search(text, 0, partial=True)
    if shape == 3:
        assert fast.dollar and not fast.lead
        if text.endswith("\n"):
            return  # the general path decides
        assert m is not None and m.span() == (len(text), len(text))
        return
    held = len(text) - len(text.rstrip(fast.lead)) if fast.lead else 0
    if held:
        assert fast.star and set(fast.lead) == SPACE_CHARS
    start = len(text) - held
    assert m is not None and (m.partial or m.end() == len(text)), (pattern, text)
    assert m.start() == start, (pattern, text)


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?:<\|s\|>a)?\s*to=\w+<m>|<c>\w+\s+to=\w+<m>",
        r"(?<=[}\"])\s*\}(?:(?=\s*,)|\s*\]?\s*</T>)|\s*\]?\s*</T>|(?=<S>)",
        r"\s*(?=<f>)|\s*<\|e\|>\s*",
        r"(?<=\})\s*\}|(?=<e>)",
        r"(?<=\})[ ]\n<x>",
        r"(?<=\})\s{0,3}<x>",
    ],
)
def test_whitespace_runs_stream_alike(pattern: str) -> None:
    """States whose trailing whitespace run is held by the fast path (a delimiter led by \\s*
    beside others whose lead is whitespace), or whose held run stays held while whitespace
    follows (led by \\s* after a look-behind), or neither: the same events as the general path
    on runs of whitespace after text, chunked (a forced star or runs in the last ones differs)."""
    module = load({"start_anchor": "<S>", "fields": {"c": {"close_pattern": pattern}}})
    parser = module.ResponseParser
    for text in ("a} \n  \t\n x\u3000 ", "to=f  \n<m> \n", " \n\n", "x\n\n]\n </T> y  "):
        for chunks in (list(text), [text[:3], text[3:7], text[7:]], [text]):
            assert run(parser, "", chunks) == run(without_fast_path(parser), "", chunks), chunks


# Delimiters whose lead characters begin one of their leading literals (an optional literal
# before a literal: ``\n?</response>``), so that Fast.starts reads a chunk ending in one.
LEAD_LITERALS = [r"\n?</r>|</s>", r"(?:ab)?c>", r"(?:\n\n)?<e>", r"^\s*\[|\n?</r>", r"x?<a>|<b>"]
LEAD_WORDS = [
    "\n",
    "\n\n",
    "</r>",
    "</",
    "r>",
    "</s>",
    "a",
    "ab",
    "c>",
    "x",
    " x",
    "<e>",
    "<a>",
    "[",
]


@SETTINGS
@given(
    which=st.integers(0, len(LEAD_LITERALS) * 2 - 1),
    chunks=st.lists(
        st.lists(st.sampled_from(LEAD_WORDS), min_size=1, max_size=3).map("".join), max_size=16
    ),
)
def test_lead_characters_that_begin_literals_stream_alike(which: int, chunks: list[str]) -> None:
    """A chunk that ends in such a lead character is held from where a literal may begin (read
    off the literals, ``held_case``), as the general path holds it: the same events, whether the
    pattern closes the implicit field or opens another."""
    pattern = LEAD_LITERALS[which // 2]
    fields: dict[str, Any] = (
        {"content": {"close_pattern": pattern}, "g": {"open": "<g>", "close": "</g>"}}
        if which % 2
        else {"f": {"open_pattern": pattern, "close": "</f>"}, "content": {}}
    )
    parser = load({"start_anchor": "<S>", "fields": fields}).ResponseParser
    assert any(f is not None and f.starts and f.lead for f in parser._fasts), pattern
    general = without_fast_path(parser)
    assert run(parser, "", chunks) == run(general, "", chunks), (pattern, chunks)
    each = list("".join(chunks))
    assert run(parser, "", each) == run(general, "", each), (pattern, chunks)


@pytest.mark.parametrize("pattern", [r"b*?ca", r"\bb*?[^a]a|b", r"x*?<a>", r"(?:<b>)?\s*<a>"])
def test_lazy_leads_keep_the_general_path(pattern: str) -> None:
    """In partial mode the regex module reports an attempt that failed inside a lazy repeat as
    a partial match running to the end of the text (``b*?ca`` on "bq"): held back by the
    reference, so no fast path may commit it."""
    module = load({"start_anchor": "<S>", "fields": {"c": {"close_pattern": pattern}}})
    parser = module.ResponseParser
    for chunks in (["bq"], ["b", "q"], ["a"], ["1", " x", "\n"], [" The", " fox", "."]):
        assert run(parser, "", chunks) == run(without_fast_path(parser), "", chunks), chunks


# --- skipped partial searches (lowering.delimiters.skippable) ----------------------------------


def unskipped(template: dict[str, Any]) -> types.ModuleType:
    """``template``'s module with every partial-mode search made, none skipped (neither one
    pattern's, ``Watch.needs``, nor a whole state's, ``State.skip``)."""
    plan = build_plan(copy.deepcopy(template))
    plan = replace(
        plan,
        states=[
            replace(
                s,
                watches=tuple(replace(w, needs=None) for w in s.watches),
                streamed=tuple(replace(w, needs=None) for w in s.streamed),
                skip="",
            )
            for s in plan.states
        ],
    )
    module = types.ModuleType("rtc_unskipped")
    exec(compile(render(plan), "<rtc unskipped>", "exec"), module.__dict__)
    return module


@SETTINGS
@given(delim=pattern_delims(), data=st.data())
def test_skipped_searches_find_nothing(delim: Any, data: st.DataObject) -> None:
    """Where a scanner skips a pattern's partial search (no core character from the search
    position on, and no lead character last), the regex module finds nothing there that
    counts: no match at all, or the empty partial match at the end."""
    facts = pattern_facts(delim.value)
    if facts is None or facts.late or facts.ends or facts.dollar:
        return
    material = LEAD_WORDS + [x for s in delim.samples for x in (s, s[: len(s) // 2], s[1:])]
    text = "".join(data.draw(st.lists(st.sampled_from(material), max_size=8), label="words"))
    pos = data.draw(st.integers(0, len(text)), label="pos")
    rest = text[pos:]
    if facts.core & set(rest) or (rest and rest[-1] in facts.lead):
        return  # searched
    m = regex.compile(delim.value, regex.DOTALL).search(text, pos, partial=True)
    assert m is None or (m.partial and m.span() == (len(text), len(text))), (delim.value, text, pos)


@SETTINGS
@given(data=st.data())
def test_random_templates_stream_alike_with_every_search_made(data: st.DataObject) -> None:
    """The module as compiled (searches skipped where they cannot match: a pattern's, or a
    whole state's, ``lowering.states.scan_skip``) and the same module searching every time:
    the same events, messages and exceptions; and each state's scanner, from every position
    of the text, the same answer (about two thirds of these examples take a state's skip)."""
    plan = data.draw(template_plans(), label="plan")
    try:
        module = load(copy.deepcopy(plan.template))
    except (ValueError, TypeError):
        return
    chunks = data.draw(prose_and_pieces(plan), label="chunks")
    searching = unskipped(plan.template)
    assert run(module.ResponseParser, "", chunks) == run(searching.ResponseParser, "", chunks)
    _scans_alike(module, searching, "".join(chunks)[:200])


def _scans_alike(
    module: types.ModuleType,
    searching: types.ModuleType,
    text: str,
    skips: dict[str, str] | None = None,
) -> int:
    """Every streaming scanner of ``module`` and of ``searching`` (the same without skipped
    searches) gives the same answer on ``text`` from every position (short spans: no memo);
    with ``skips`` (each scanner's ``State.skip``, by name), returns how many of the answers
    were a skip."""
    skipped = 0
    for mine, theirs in zip(
        module.ResponseParser._scan, searching.ResponseParser._scan, strict=True
    ):
        skip = skips[mine.__name__] if skips else ""
        for pos in range(len(text) + 1):
            got = mine(text, pos, NO_MEMO)
            want = theirs(text, pos, NO_MEMO)
            assert got[:4] == want[:4] and (got[4] is None) == (want[4] is None), (text, pos)
            if got[4] is not None:
                assert got[4].span() == want[4].span()
            skipped += bool(skip) and pos < len(text) and not set(skip) & set(text[pos:])
    return skipped


@pytest.mark.parametrize(
    "name", ["glm4_moe", "gemma4", "kimi_k2", "mistral", "llama3", "minimax_m2"]
)
def test_catalogue_scans_skip_where_nothing_can_match(name: str) -> None:
    """The catalogue's scanners with their states' skips and without: the same answers from
    every position of its fixtures' texts, and some answers come from a skip (not vacuous)."""
    module = rtc.generated.get(name)
    searching = unskipped(module.TEMPLATE)
    skips = {f"_scan_{s.suffix}": s.skip for s in build_plan(copy.deepcopy(module.TEMPLATE)).states}
    skipped = 0
    for row in fixture_cases(name)[:6]:
        text = row["prompt"][-60:] + row["text"][:400]
        skipped += _scans_alike(module, searching, text, skips)
    assert skipped > 0, name


@pytest.mark.parametrize("name", FAMILIES)
def test_catalogue_streams_alike_with_every_search_made(name: str) -> None:
    module = rtc.generated.get(name)
    searching = unskipped(module.TEMPLATE).ResponseParser
    for chunks in catalogue_chunkings(module.TEMPLATE, 2, 5, (", x(", "\n ")):
        assert run(module.ResponseParser, "", chunks) == run(searching, "", chunks), name


@SETTINGS
@given(
    literals=st.lists(
        st.sampled_from(["<a>", "<ab>", "<a><b>", "<|e|>", "<|e", "</a>", "<<"]),
        min_size=1,
        max_size=3,
        unique=True,
    ),
    led=st.booleans(),
    end=st.sampled_from(["", "|$", r"|\Z"]),
    other=st.sampled_from(["", r"(?<=x)<a", r"<\|e\|>\s*", "<t>"]),
    pieces=st.lists(
        st.sampled_from(
            ["<", "a", ">", "<a", "<|", "e", "|>", "b", " ", "\n", "x", "</", "<<", "|", "t"]
        ),
        max_size=14,
    ),
)
def test_held_literals_extended_as_the_general_path_does(
    literals: list[str], led: bool, end: str, other: str, pieces: list[str]
) -> None:
    """A held prefix of a literal delimiter, extended chunk by chunk (Fast.pending): literal
    lists whose literals occur inside one another, \\s*-led ones, with an end alternative
    (whose partial matches never hold: not pending), beside a pattern."""
    escaped = "|".join(regex.escape(x) for x in literals)
    close = (r"\s*" if led else "") + f"(?:{escaped})" + end
    agree_on({"c": {"close_pattern": close}}, other, pieces)


@SETTINGS
@given(
    close=st.sampled_from(
        [
            r"<ab>c(?:\w+)",
            r"\s*<ab>\s*<f=(?:[^>\n]+)>",
            r"<\|t\|>call:\w+",
            r"<ab>|<ab>x[yz]+",
            r"(?:<ab>|<ac>)d+",  # no literal every match begins with: not pending
        ]
    ),
    other=st.sampled_from(["", "<a", r"<ab>\s*", "<t>"]),
    pieces=st.lists(
        st.sampled_from(
            ["<", "a", "b", ">", "<a", "<ab", "c", "x", "y", "<|", "t", "|>", "call", ":", "\n"]
            + [" ", "f", "=", "w", "<ab>", "<|t|>", "d", "</d>"]
        ),
        max_size=16,
    ),
)
def test_held_pattern_prefixes_extended_as_the_general_path_does(
    close: str, other: str, pieces: list[str]
) -> None:
    """A held prefix of the literal a pattern's every match begins with, extended chunk by
    chunk (Fast.pending, ``lowering.states.pending_literals``), \\s*-led or not, beside other
    delimiters (a literal, a literal the pattern's prefix begins with, a pattern)."""
    agree_on({"c": {"close_pattern": close}}, other, pieces)


# --- the hold read off a state's leading literals (Fast.starts) -------------------------------


@SETTINGS
@given(
    literals=st.lists(st.text("<ab>", min_size=1, max_size=4), min_size=1, max_size=3),
    text=st.text("<ab>x", max_size=8),
)
def test_starts_hold_is_where_the_regex_module_holds(literals: list[str], text: str) -> None:
    """``starts_hold``: -1 where a literal occurs, else where the regex module's partial
    search of their alternation starts (the leftmost proper prefix of one that ends the text;
    ``len(text)`` for none)."""
    found = starts_hold(text, tuple(dict.fromkeys(literals)))
    alternation = regex.compile("|".join(regex.escape(x) for x in literals))
    m = alternation.search(text, partial=True)
    if m is not None and not m.partial:
        assert found == -1, (literals, text)
    else:
        assert found == (len(text) if m is None else m.start()), (literals, text, m)


@SETTINGS
@given(
    literals=st.lists(st.text("<ab>", min_size=1, max_size=4), max_size=2),
    led=st.lists(st.text("<ab>", min_size=1, max_size=4), min_size=1, max_size=2),
    text=st.text("<ab>x \n\xa0", max_size=8),
)
def test_starts_hold_with_whitespace_led_literals(
    literals: list[str], led: list[str], text: str
) -> None:
    """The same with literals led by ``\\s*``: a partial match starts at the whitespace run
    before a literal's prefix, or before the end of the text."""
    found = starts_hold(text, tuple(dict.fromkeys(literals)), tuple(dict.fromkeys(led)))
    alternatives = [regex.escape(x) for x in literals]
    alternatives.append(r"\s*(?:" + "|".join(regex.escape(x) for x in led) + ")")
    m = regex.compile("|".join(alternatives)).search(text, partial=True)
    if m is not None and not m.partial:
        assert found == -1, (literals, led, text)
    else:
        assert found == (len(text) if m is None else m.start()), (literals, led, text, m)


@SETTINGS
@given(
    literals=st.lists(st.text("<ab> \n", min_size=1, max_size=5), max_size=4),
    led=st.lists(st.text("<ab>\n ", min_size=1, max_size=5), max_size=3),
    texts=st.lists(st.text("<ab>x \n\xa0", max_size=10), min_size=1, max_size=8),
)
def test_starts_read_once_hold_where_starts_hold_does(
    literals: list[str], led: list[str], texts: list[str]
) -> None:
    """``Starts`` (the fast path's form: first characters, prefix sets, the shortest literal's
    length worked out once) answers as ``starts_hold``, also for literals that begin with
    whitespace or begin one another."""
    starts, led_ = tuple(dict.fromkeys(literals)), tuple(dict.fromkeys(led))
    if not starts and not led_:
        return
    reader = Starts(starts, led_)
    for text in texts:
        assert reader.hold(text) == starts_hold(text, starts, led_), (starts, led_, text)


@pytest.mark.parametrize(
    ("starts", "led", "text"),
    [
        # Found by a random search: literals that begin with whitespace, where a led literal's
        # run reaches back over another's first character (Starts then asks starts_hold).
        (("<  ", "\naa<", " ba "), ("\n<", "a\nb\n"), "\nb \na"),
        ((" a ", "b", "<b"), ("a \n", "b<"), "<<\n \n a"),
        ((" <a", "a ", " a\n "), ("<\nab", "a a"), "\nx  <"),
        (("<a>", "<b"), ("<c>",), "x \n <"),
        (("<|a|>",), (), "see <= 2"),
    ],
)
def test_starts_read_once_examples(
    starts: tuple[str, ...], led: tuple[str, ...], text: str
) -> None:
    assert Starts(starts, led).hold(text) == starts_hold(text, starts, led)


def test_starts_keeps_no_prefixes_of_a_long_literal() -> None:
    """A literal past MAX_PREFIXED (a template's delimiter may be 200 KB: its prefixes would
    take n²/2 characters) is left to starts_hold, which answers the same."""
    long = "<" + "a" * 200_000
    reader = Starts((long, "<b>"), ())
    assert not reader._prefixes
    for text in ["x <a", "x <", "<b", "y " + long[:50]]:
        assert reader.hold(text) == starts_hold(text, (long, "<b>"))


def test_starts_hold_examples() -> None:
    assert starts_hold("x <=", ("<a>",)) == 4
    assert starts_hold("x <", ("<a>",)) == 2
    assert starts_hold("<a<b", ("<a<b>", "<b>")) == 0  # the leftmost of two partial matches
    assert starts_hold("<a<b", ("<b>", "<a<b>")) == 0
    assert starts_hold("x <a> y", ("<b>", "<a>")) == -1
    assert starts_hold("x  <", (), ("<a>",)) == 1  # the run before a literal's prefix
    assert starts_hold("x <= 2\n", (), ("<a>",)) == 6  # the trailing run


def test_the_general_path_takes_the_fast_paths_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the fast path scanned the buffer with the chunk and then declined it, the general
    path takes that scan instead of scanning again (``engine._feed``): used on a call's opening
    streamed a token at a time, and what the parser observes is the general path's alone; a
    scan of another buffer is never taken."""
    import rtc.runtime.engine as engine

    taken: list[bool] = []
    routed = engine._routed

    def counted(p: Any, events: Any, scanned: Any = None) -> Any:
        taken.append(scanned is not None)
        if scanned is not None:
            # The scan handed over is the scan of this buffer, position and state.
            again = p._scan[p.region + 1](p._buf, p._pos, [])
            assert scanned[:4] == again[:4]
            assert (scanned[4] is None) == (again[4] is None)
            if again[4] is not None:
                assert scanned[4].span() == again[4].span()
                assert scanned[4].groupdict() == again[4].groupdict()
        return routed(p, events, scanned)

    monkeypatch.setattr(engine, "_routed", counted)
    module = rtc.generated.get("gemma4")
    text = 'Sure.<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>Done.'
    chunks = re.findall(r"<\|\"\|>|<\|?[a-z_]+\|?>|\w+|\W", text)
    parser = module.ResponseParser
    assert run(parser, "", chunks) == run(without_fast_path(parser), "", chunks)
    assert any(taken)
