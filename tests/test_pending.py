"""A pattern's match pending from the search position, read one chunk at a time by its position
automaton (``rtc.compiler.regex_syntax.positions``, ``rtc.runtime.pending``).

The argument (``runtime/pending.py``): where the automaton reads the held text as pending, the
``regex`` module's partial-mode search from the search position reports a partial match there,
so the state's scanner returns at once, holding everything. Checked here against ``regex``
itself on random patterns of the modelled constructs and random texts (whole, and read in two
chunks), then through parsers: the fast path with the automata against the general path on
every chunk, on call openings held over many chunks, and on the catalogue's own openings.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
import regex
from catalogue_data import family
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fast_path import agree_on, run, without_fast_path

import rtc.generated
import rtc.runtime.fast_path as fast_path
import rtc.runtime.pending as pending
from rtc.compiler.regex_syntax.positions import MAX_POSITIONS, positions
from rtc.runtime.matching import SPACE_CHARS, SPACE_STR
from rtc.runtime.pending import OUT, Steps

SETTINGS = settings(max_examples=300, derandomize=True, deadline=None, database=None)

ATOMS = ["<a>", "<", "a", "b", ">", r"\s", r"[^<]", r"[a-z]", ".", "x", r"\w", "(?i:B)", "é"]
# Negative look-aheads (their bodies read loosely: an assertion, a nested look-around).
ATOMS += ["(?!ab)", r"(?!(?:a|<a)\b)", "(?!x|b)", "(?!a(?!b))"]
# The guard the compiler puts before a \s*-led pattern searched while streaming.
GUARD = r"(?:\G|(?<!\s)|(?!\s))"
QUANTIFIERS = ["?", "*", "+", "*?", "+?", "??", "{1,3}", "{2}", "{0,2}?", "{2,}"]
TEXT = "<a>b x\nBé"


@st.composite
def patterns(draw: st.DrawFn, depth: int = 0) -> str:
    """Patterns of the modelled constructs: characters, classes, sequences, alternations,
    groups, greedy and lazy repeats."""
    kind = draw(st.sampled_from(["atom", "atom", "seq", "alt", "repeat"]))
    if depth > 2 or kind == "atom":
        return draw(st.sampled_from(ATOMS))
    if kind == "seq":
        return "".join(draw(st.lists(patterns(depth + 1), min_size=2, max_size=4)))
    if kind == "alt":
        branches = draw(st.lists(patterns(depth + 1), min_size=2, max_size=3))
        return "(?:" + "|".join(branches) + ")"
    group = draw(st.sampled_from(["(?:", "(", "(?P<n>"]))
    return group + draw(patterns(depth + 1)) + ")" + draw(st.sampled_from(QUANTIFIERS))


@st.composite
def guarded_patterns(draw: st.DrawFn) -> str:
    """Patterns, some behind the compiler's guard."""
    pattern = draw(patterns())
    return GUARD + f"(?:{pattern})" if draw(st.booleans()) else pattern


def steps_of(pattern: str, ahead: bool = False) -> Steps | None:
    found = positions(pattern, ahead=ahead)
    if found is None:
        return None
    gates = tuple((g.pieces, g.jumps, g.first, g.last) for g in found.gates)
    return Steps(found.pieces, found.jumps, found.first, found.last, found.gated, gates)


def read_pending(steps: Steps, text: str) -> bool:
    state = steps.read(0, text)
    return state != OUT and steps.sure(state)


def reported_pending(pattern: str, text: str) -> bool:
    """What the scanner reads off the regex module: a partial match starting at 0."""
    m = regex.compile(pattern, regex.DOTALL).search(text, 0, partial=True)
    return m is not None and m.partial and m.start() == 0


def check_reads(steps: Steps, texts: list[str], reported: Callable[[str], bool]) -> None:
    """Each text read as pending only where ``reported`` says the scanner holds it; and read
    whole or in two chunks from any cut, the same state."""
    for text in texts:
        state = steps.read(0, text)
        if state != OUT and steps.sure(state):
            assert reported(text), text
        for cut in range(len(text) + 1):
            head = steps.read(0, text[:cut])
            after = OUT if head == OUT else steps.read(head, text[cut:])
            assert after == state, (text, cut)


@SETTINGS
@given(
    pattern=guarded_patterns(), texts=st.lists(st.text(TEXT, min_size=1, max_size=9), max_size=12)
)
def test_pending_only_where_the_regex_module_reports_it(pattern: str, texts: list[str]) -> None:
    """Read as pending (whole, or in two chunks from any cut) only where the regex module's
    partial-mode search reports a partial match at the start."""
    steps = steps_of(pattern)
    if steps is not None:
        check_reads(steps, texts, lambda text: reported_pending(pattern, text))


@SETTINGS
@given(
    head=patterns(),
    ahead=patterns(),
    texts=st.lists(st.text(TEXT, min_size=1, max_size=9), max_size=12),
)
def test_a_trailing_look_ahead_is_read_as_consumed(head: str, ahead: str, texts: list[str]) -> None:
    """``P(?=Q)`` read as ``PQ`` (cohere's and gemma4_rtc's openings look ahead for the call's
    close): pending only where the regex module reports a partial match at the start."""
    pattern = f"{head}(?={ahead})"
    steps = steps_of(pattern, ahead=True)
    if steps is None:
        return
    assert positions(pattern) is None  # (without ahead: a positive look-ahead has none)
    check_reads(steps, texts, lambda text: reported_pending(pattern, text))


@SETTINGS
@given(
    head=patterns(),
    ahead=patterns(),
    other=patterns(),
    first=st.booleans(),
    wrap=st.sampled_from(["", "(?:", "(", GUARD + "(?:"]),
    texts=st.lists(st.text(TEXT, min_size=1, max_size=9), max_size=12),
)
def test_a_branch_s_trailing_look_ahead_is_read_as_consumed(
    head: str, ahead: str, other: str, first: bool, wrap: str, texts: list[str]
) -> None:
    """``A|P(?=Q)`` read as ``A|PQ`` (qwen3_coder's close: ``</function>`` where another call
    follows), also in a group around it all, after the compiler's guard or not (deepseek_v4's
    close): pending only where the regex module reports a partial match at the start."""
    branches = [f"{head}(?={ahead})", other]
    pattern = "|".join(branches if first else branches[::-1])
    if wrap:
        pattern = f"{wrap}{pattern})"
    steps = steps_of(pattern, ahead=True)
    if steps is not None:
        check_reads(steps, texts, lambda text: reported_pending(pattern, text))


def test_a_branch_s_trailing_look_ahead_is_read() -> None:
    """Not vacuous: qwen3_coder's close, held while the look-ahead of its second branch reads
    on, is read as pending; and not once a branch completes."""
    pattern = r"(?:</function>\s*)?</tool_call>|</function>(?=\s*<(?:tool_call>|function=))"
    assert positions(pattern) is None
    steps = steps_of(pattern, ahead=True)
    assert steps is not None
    for text in ["</", "</function>", "</function>\n", "</function>\n<", "</function>\n<func"]:
        assert read_pending(steps, text) and reported_pending(pattern, text), text
    for text in ["</function>\n</tool_call>", "</function><function=", "</function>x"]:
        assert not read_pending(steps, text), text


def test_a_guarded_group_s_branch_look_ahead_is_read() -> None:
    """Not vacuous: deepseek_v4's call close (its alternatives led by \\s*, behind the
    compiler's guard), held while its first branch's look-ahead reads on, is read as pending;
    and not once a branch completes."""
    pattern = rtc.generated.deepseek_v4._CLOSE_TOOL_CALLS.pattern
    assert pattern.startswith(GUARD + "(?:") and positions(pattern) is None
    steps = steps_of(pattern, ahead=True)
    assert steps is not None
    close, opening, end = "</｜DSML｜invoke>", "<｜DSML｜invoke", "</｜DSML｜tool_calls>"
    for text in ["\n", "</", "\n" + close, close + "\n", close + "\n<｜DS", close + opening[:-1]]:
        assert read_pending(steps, text) and reported_pending(pattern, text), repr(text)
    for text in [close + opening, close + "\n" + end, end, close + "x"]:
        assert not read_pending(steps, text), repr(text)


def scanner_pending_after_space(rest: str, text: str) -> bool:
    """What the scanner reads off the regex module for ``\\s*REST`` searched as REST: the
    leftmost match is partial, and only whitespace (``SPACE_CHARS``) comes before it, which the
    scanner backs over to the start."""
    m = regex.compile(rest, regex.DOTALL).search(text, 0, partial=True)
    return m is not None and m.partial and all(c in SPACE_CHARS for c in text[: m.start()])


@SETTINGS
@given(
    rest=patterns(),
    texts=st.lists(st.text(TEXT + " \t\u3000", min_size=1, max_size=12), max_size=12),
)
def test_whitespace_before_the_rest_is_read_as_the_scanner_backs_over_it(
    rest: str, texts: list[str]
) -> None:
    """The rest of a ``\\s*``-led pattern, its automaton given the whitespace as ``lead``:
    pending (whole, or in two chunks from any cut) only where the scanner, backing the
    leftmost partial match over the whitespace before it, reports it at the start."""
    found = positions(rest, ahead=True)
    if found is None or found.starts_with_space():
        return
    gates = tuple((g.pieces, g.jumps, g.first, g.last) for g in found.gates)
    steps = Steps(found.pieces, found.jumps, found.first, found.last, found.gated, gates, SPACE_STR)
    check_reads(steps, texts, lambda text: scanner_pending_after_space(rest, text))


def test_whitespace_before_the_rest_is_read() -> None:
    """Not vacuous: whitespace before a call's opening (qwen3_5's, a newline or two after the
    answer) is read, the opening then as without it; a match of the rest that may begin with
    whitespace has no lead (the compiler leaves such a pattern to the scanner)."""
    rest = r"<c>\s*<f=(?P<name>[^>\n]+)>"
    found = positions(rest)
    assert found is not None and not found.starts_with_space()
    steps = Steps(found.pieces, found.jumps, found.first, found.last, lead=SPACE_STR)
    for text in ["\n\n<c>", " <c>\n<f", "\t\u3000<c><f=na", "<c> <f=x"]:
        assert read_pending(steps, text) and scanner_pending_after_space(rest, text), text
    for text in ["x <c>", "\n\n<c>\n<f=x>", "\n\n", "\n<d"]:
        assert not read_pending(steps, text), text
    assert positions(r"[ a]b") is not None and positions(r"[ a]b").starts_with_space()
    with pytest.raises(ValueError, match="lead character"):
        Steps(("x",), {}, (0,), (0,), lead="x")


def test_a_trailing_look_ahead_is_read() -> None:
    """Not vacuous: such an opening held while the look-ahead reads on is read as pending."""
    pattern = r"<a>(?=[^<]*(?:<(?!a>)[^<]*)*?</a>)"
    steps = steps_of(pattern, ahead=True)
    assert steps is not None
    for text in ["<a>", "<a>x y", "<a>x <b> y </", "<a>x </a"]:
        assert read_pending(steps, text) and reported_pending(pattern, text), text
    for text in ["<a>x </a>", "<a>x <a>"]:
        assert not read_pending(steps, text), text


def test_a_long_held_opening_is_read_on_after_it_grew(monkeypatch: pytest.MonkeyPatch) -> None:
    """cohere's opening looks ahead for the call's close, so the whole call is held; chunks
    without "<" grow it without the automaton (growing.grown), and the automaton reads on over
    what was appended when a chunk brings a "<" (the held text is then past MAX_HELD, where a
    first reading is left to the scanner): the scanner is not asked, and the events and message
    are the general path's."""
    _, scanned = counted(monkeypatch)
    parser = rtc.generated.get("cohere").ResponseParser
    words = " ".join(f"word{i}" for i in range(600))
    assert len(words) > pending.MAX_HELD
    call = '[{"tool_name": "f", "parameters": {"q": "' + words + ' a <= b, c < d"}}]'
    text = "<|START_RESPONSE|>Ok.<|END_RESPONSE|><|START_ACTION|>" + call + "<|END_ACTION|>"
    chunks = [text[i : i + 5] for i in range(0, len(text), 5)]
    assert run(parser, "", chunks) == run(without_fast_path(parser), "", chunks)
    assert len(scanned) <= 3, len(scanned)


def test_a_call_held_whole_is_read_on_from_the_record_past_max_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not vacuous: granite4's opening looks ahead over the call's JSON value, so the whole call
    is held while its arguments stream; past MAX_HELD, where no growth check takes a chunk of
    prose, the record reads each chunk on (``continues_pending``) instead of held_case, and the
    events and message are the general path's."""
    read_on: list[tuple[int, bool]] = []
    continues = fast_path.continues_pending

    def counted_continue(p: Any, text: str, fast: Any, record: Any) -> bool:
        found = continues(p, text, fast, record)
        read_on.append((len(record[0]), found))
        return found

    monkeypatch.setattr(fast_path, "continues_pending", counted_continue)
    parser = rtc.generated.get("granite4").ResponseParser
    words = " ".join(f"word{i}" for i in range(400))
    assert len(words) > pending.MAX_HELD
    call = '<tool_call> {"name": "f", "arguments": {"q": "' + words + '"}} </tool_call>'
    chunks = ["Here", " it", " is", ":", " \n"] + [call[i : i + 5] for i in range(0, len(call), 5)]
    assert run(parser, "", chunks) == run(without_fast_path(parser), "", chunks)
    past = [found for held, found in read_on if held > pending.MAX_HELD]
    # Every chunk of the argument read on; not the one that completes the value.
    assert len(past) > 100 and all(past[:-1]) and not past[-1], read_on[-5:]


def test_pending_is_read_where_the_regex_module_reads_it() -> None:
    """Not vacuous: on random patterns and texts, the automaton reads most of the partial
    matches the regex module reports at the start (it leaves the rest to the scanner: the
    module also reports some partial matches no continuation completes, e.g. where a required
    literal is sought ahead). A fixed seed; the implication itself is checked above."""
    rng = random.Random(37)
    pending = agreed = 0
    for _ in range(1000):
        pattern = _random_pattern(rng)
        steps = steps_of(pattern)
        if steps is None:
            continue
        for _ in range(10):
            text = "".join(rng.choice(TEXT) for _ in range(rng.randint(1, 8)))
            truth = reported_pending(pattern, text)
            pending += truth
            agreed += truth and read_pending(steps, text)
    assert pending > 150
    assert agreed >= 0.9 * pending, (agreed, pending)


def _random_pattern(rng: random.Random, depth: int = 0) -> str:
    kind = rng.random()
    if depth == 0 and kind < 0.2:
        return GUARD + "(?:" + _random_pattern(rng, 1) + ")"
    if depth > 2 or kind < 0.4:
        return rng.choice(ATOMS)
    if kind < 0.6:
        return "".join(_random_pattern(rng, depth + 1) for _ in range(rng.randint(2, 4)))
    if kind < 0.7:
        return "(?:" + "|".join(_random_pattern(rng, depth + 1) for _ in range(2)) + ")"
    return "(?:" + _random_pattern(rng, depth + 1) + ")" + rng.choice(QUANTIFIERS)


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?=<a>)<a>",  # a look-ahead
        r"(?!)a",  # a negative look-ahead that always fails
        r"(?<=x)<a>",  # a look-behind
        r"<a>\b",  # an assertion
        r"<a>$",
        r"(?>ab|a)b",  # an atomic group
        r"a++b",  # a possessive repeat
        r"(a)\1",  # a back-reference
        r"a\Kb",
        r"x*",  # matches the empty string
        r"(?:<a>)?",
        r"a{0,300}b",  # too many positions
        r"[",  # not a pattern
    ],
)
def test_patterns_outside_the_model_have_no_automaton(pattern: str) -> None:
    assert positions(pattern) is None


def test_bounded_repeats_are_written_out_up_to_the_limit() -> None:
    found = positions("a{3,5}b")
    assert found is not None and len(found.tests) == 6
    assert positions(f"a{{{MAX_POSITIONS}}}") is not None
    assert positions(f"a{{{MAX_POSITIONS}}}b") is None


def test_literal_runs_are_one_piece_and_follow_only_where_it_jumps() -> None:
    found = positions(r"<t>\s*(?P<name>[^<]+?)</t>")
    assert found is not None
    assert found.pieces == ("<t>", (r"\s",), ("[^<]",), "</t>")
    assert found.jumps == {2: (3, 4), 3: (3, 4), 4: (4, 5), 8: ()}


def test_negative_look_aheads_gate_the_moves_that_cross_them() -> None:
    found = positions(r"t=(?!ab\b)(?:f\.)?\w")
    assert found is not None
    # From "=" (position 1) to "f" (2) and to \w (4): both cross the look-ahead, gate 0.
    assert found.gated == {(1, 2): (0,), (1, 4): (0,)}
    assert [gate.pieces for gate in found.gates] == [("ab",)]
    steps = steps_of(r"t=(?!ab\b)(?:f\.)?\w+<")
    assert steps is not None
    assert read_pending(steps, "t=") and read_pending(steps, "t=f.x")
    assert not read_pending(steps, "t=a")  # the look-ahead is not decided yet
    assert read_pending(steps, "t=ax")
    assert not read_pending(steps, "t=ab")  # its body matched (read loosely: without \b)


# --- through parsers: the fast path with the automata against the general path -------------

OPENINGS = [
    r"(?:<b>\s*)?<c>\s*([^<]+?)\s*<s>\s*",  # deepseek's shape
    r"<c>\s*<f=([^>\n]+)>",  # qwen3_coder's
    r"\s*<c>\s*<f=([^>\n]+)>",  # qwen3_5's: \s*-led, its rest's automaton reads the whitespace
    r"<\|t\|>call:(\w+)\{",  # gemma4's
    r"\[([a-z_]+)\(",  # pythonic calls
    r"<c>(?:x|y)+?<s>",
    r"(?:<b>)?\s*to=(?!(?:get|x)\b)(?:f\.)?([^\s<]+)\s*<s>",  # gpt_oss's, \s*-led: guarded
]
PIECES = ["<", "b", ">", "c", "s", "<c>", "<b>", "<s>", "get", "_", "time", " ", "\n", "x", "y"]
PIECES += ["<|", "t", "|>", "call", ":", "{", "}", "[", "(", "f=", "=", "é", "</d>", "<f"]
PIECES += ["to=", "to", "f.", "getx", "get ", "x"]


@SETTINGS
@given(
    opening=st.sampled_from(OPENINGS),
    pieces=st.lists(st.sampled_from(PIECES), max_size=24),
)
def test_held_openings_stream_as_the_general_path_does(opening: str, pieces: list[str]) -> None:
    """A call's opening held over many chunks (the automaton reads each), beside a literal
    close: the same events and message as the general path, chunk by chunk and a character
    at a time."""
    agree_on(
        {"content": {"close": "</e>"}, "c": {"open_pattern": opening, "close": "</c>"}}, "", pieces
    )


def counted(monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], list[str]]:
    """What the fast path's reads of the automata answer, and the texts it asks the scanner
    about (``pending_states``, its read on from the record, ``continues_pending``, and
    ``holds_at_pos`` patched to count; the record's answer counts as its states, or None)."""
    answered: list[Any] = []
    scanned: list[str] = []
    read, holds = fast_path.pending_states, fast_path.holds_at_pos
    continues = fast_path.continues_pending

    def counted_read(*args: Any) -> Any:
        answered.append(found := read(*args))
        return found

    def counted_continue(p: Any, text: str, fast: Any, record: Any) -> bool:
        found = continues(p, text, fast, record)
        answered.append(p._steps[2] if found else None)
        return found

    def counted_scan(p: Any, text: str) -> bool:
        scanned.append(text)
        return holds(p, text)

    monkeypatch.setattr(fast_path, "pending_states", counted_read)
    monkeypatch.setattr(fast_path, "continues_pending", counted_continue)
    monkeypatch.setattr(fast_path, "holds_at_pos", counted_scan)
    return answered, scanned


def test_held_openings_are_read_by_the_automaton(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: streamed a token at a time, a held opening is answered by the automaton,
    and the scanner is not asked for it."""
    from rtc.compiler import load

    answered, scanned = counted(monkeypatch)
    module = load(
        {
            "start_anchor": "<S>",
            "fields": {
                "content": {"close": "</e>"},
                "c": {"open_pattern": OPENINGS[0], "close": "</c>"},
            },
        }
    )
    chunks = ["Hi", " there", ".", "<", "b", ">", "<", "c", ">", " get", "_", "time", " <"]
    chunks += ["s", ">", "{}", "</c>"]
    assert run(module.ResponseParser, "", chunks) == run(
        without_fast_path(module.ResponseParser), "", chunks
    )
    assert sum(found is not None for found in answered) >= 4
    assert len(scanned) <= 2


def test_whitespace_before_a_held_opening_is_read_by_the_automaton(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not vacuous: qwen3_5's call opening after the answer's newlines, a character at a time,
    is answered by the automaton; the scanner is asked only where the opening completes."""
    answered, scanned = counted(monkeypatch)
    module = rtc.generated.get("qwen3_5")
    text = "Hi.\n\n<tool_call>\n<function=get_time>\n<parameter=city>\nX\n</parameter>\n"
    text += "</function>\n</tool_call>"
    chunks = list(text)
    assert run(module.ResponseParser, "", chunks) == run(
        without_fast_path(module.ResponseParser), "", chunks
    )
    assert sum(found is not None for found in answered) >= 25
    assert len(scanned) <= 3, scanned


def test_a_held_opening_read_last_by_the_automaton_is_read_on_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not vacuous: once the automaton read a held call opening (hy_v3's
    ``<tool_calls>\n<tool_call>get_current_date``, a token at a time), feed() reads the next
    chunk on from its record (``continues_pending``): held_case is not entered until the
    opening completes, and the literal prefixes (``still_pending``) are asked only there; the
    events are the general path's."""
    module = rtc.generated.get("hy_v3")
    chunks = ["Checking", ".", "<", "tool", "_", "calls", ">", "\n", "<", "tool", "_", "call"]
    chunks += [">", "get", "_", "current", "_", "date", "<", "tool", "_", "sep", ">", "\n"]
    chunks += ["</", "tool", "_", "call", ">", "\n", "</", "tool", "_", "calls", ">"]
    asked: list[str] = []
    entered: list[str] = []
    literal, held_case = fast_path.still_pending, fast_path.held_case

    def counted_literal(whole: str, pending: Any) -> Any:
        asked.append(whole)
        return literal(whole, pending)

    def counted_case(p: Any, text: str, fast: Any, events: bool) -> Any:
        entered.append(text)
        return held_case(p, text, fast, events)

    monkeypatch.setattr(fast_path, "still_pending", counted_literal)
    monkeypatch.setattr(fast_path, "held_case", counted_case)
    answered, _scanned = counted(monkeypatch)
    assert run(module.ResponseParser, "", chunks) == run(
        without_fast_path(module.ResponseParser), "", chunks
    )
    # Only where the opening completed (the automaton answers "out": the general path runs).
    opened = "<tool_calls>\n<tool_call>get_current_date<tool_sep>"
    assert [whole for whole in asked if len(whole) > len("<tool_calls>\n")] == [opened], asked
    assert sum(found is not None for found in answered) >= len(chunks[8:22]), answered
    # held_case takes the first literal's chunks (chunks[3:8], "tool" to "\n"), then none until
    # the opening completes (chunks[22], its last ">").
    assert entered[:6] == [*chunks[3:8], chunks[22]], entered


WITH_STEPS = [
    name
    for name in rtc.generated.names()
    if any(f[19] for f in rtc.generated.get(name).ResponseParser._region_fast if f)
]


def test_most_families_have_automata() -> None:
    assert len(WITH_STEPS) >= 30, WITH_STEPS


@pytest.mark.parametrize("name", WITH_STEPS)
def test_catalogue_automata_read_their_own_openings(name: str) -> None:
    """Each catalogue family with an automaton, on its own fixtures (real call openings) in
    1- to 3-character chunks: the fast path with the automata streams as the general path does."""
    module = rtc.generated.get(name)
    rng = random.Random(name)
    parser = module.ResponseParser
    for fixture in family(name).fixtures[:8]:
        text, chunks = fixture.text, []
        while text:
            cut = rng.randint(1, 3)
            chunks.append(text[:cut])
            text = text[cut:]
        fast, general = run(parser, fixture.prefix, chunks), run(
            without_fast_path(parser), fixture.prefix, chunks
        )
        assert fast == general, fixture.key


def test_the_automaton_stays_bounded_whatever_it_reads() -> None:
    """A name in any script adds moves; past the bounds a new state or move is not kept (the
    answer is still read, or is OUT, and the scanner decides), so memory stays bounded."""
    steps = steps_of(r"<c>(?:[^<]|<(?!s>))+<s>")
    assert steps is not None
    # More distinct characters than MAX_MOVES: CJK ideographs and Hangul, then private use.
    distinct = [*range(0x4E00, 0xD7A4), *range(0xE000, 0xF900)]
    assert len(distinct) > pending.MAX_MOVES
    text = "<c>" + "".join(map(chr, distinct))
    state = steps.read(0, text)
    assert state != OUT and steps.sure(state)
    assert sum(map(len, steps._moves)) <= pending.MAX_MOVES
    assert len(steps._sets) <= pending.MAX_STATES
    # Bounded, and still the same answers: the regex module agrees on a prefix of that text.
    for cut in (4, 100, 5_000):
        assert read_pending(steps, text[:cut]) == reported_pending(
            r"<c>(?:[^<]|<(?!s>))+<s>", text[:cut]
        )


def test_parsers_in_threads_share_the_automata() -> None:
    """The automata's states and moves are shared by every parser of a module: parsers in
    several threads, each a token at a time, observe what one parser alone does."""
    from concurrent.futures import ThreadPoolExecutor

    name = "gpt_oss"
    module = rtc.generated.get(name)
    fixtures = family(name).fixtures
    cases = []
    for n, fixture in enumerate(fixtures * 4):
        text, chunks = fixture.text, []
        step = 1 + n % 3
        while text:
            chunks.append(text[:step])
            text = text[step:]
        cases.append((fixture.prefix, chunks))
    alone = [run(module.ResponseParser, prefix, chunks) for prefix, chunks in cases]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda case: run(module.ResponseParser, *case), cases))
    assert together == alone
