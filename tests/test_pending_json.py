"""A call's JSON value pending from the search position, read one chunk at a time by
``rtc.runtime.pending_json.JsonSteps`` (shapes found by ``rtc.compiler.regex_syntax.json_value``).

The argument (``runtime/pending_json.py``): where the reader is sure the match is pending, the
``regex`` module's partial-mode search reports a partial match at the search position, so the
state's scanner returns at once, holding everything. Checked against ``regex`` itself on the
catalogue's JSON patterns and on patterns of the same shapes, over random JSON texts cut
anywhere and read in chunks; then through parsers, the fast path against the general path.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fast_path import run, without_fast_path
from test_pending import counted

import rtc.generated
from rtc.compiler import load
from rtc.compiler.regex_syntax.json_value import GRAMMAR, JsonShape, json_shape
from rtc.runtime.pending_json import OUT, JsonSteps

SETTINGS = settings(max_examples=300, derandomize=True, deadline=None, database=None)
GENERATED = Path(rtc.generated.__file__).parent

# Patterns of the shapes, beside the catalogue's: a literal head with a rest and $, a choice of
# heads with \s* outside the look-ahead, a head with a name, closes at \G (one with more after),
# a head that reads on to the value, which must be an array of objects (mistral_v3's).
SHAPES = [
    r"<a>(?=\s*(?&jv)\s*(?:</a>|$))",
    r"(?:<a>|<b>)\s*(?=(?&jv))",
    r"<c>\s*(?P<n>[\w-]+)\s*(?=(?&jv))",
    r"<a>(?=(?&jv)\s*</a>)",
    r"<a>[tx]?(?=\s*(?&jv)\s*(?:</a>|<b>|$))",
    r"<t>\s*(?:\[A\])?\s*(?=(?&jv))",
    r"\G(?:(?&jv)\K|(?<=\}))",
    r"\G(?:(?&jv)\K|(?<=\]))\s*\}",
    r"<t>[^\[]*(?=\[\s*\{(?&jv)*)(?=(?&jv))",  # mistral_v3's: an array of objects
]


def catalogue_patterns() -> list[str]:
    """The tool-call patterns of the catalogue's templates that read the JSON grammar."""
    found = []
    for path in sorted(GENERATED.glob("*.json")):
        field = json.loads(path.read_text())["fields"].get("tool_calls", {})
        for key in ("open_pattern", "close_pattern"):
            if "(?&jv)" in field.get(key, ""):
                found.append(field[key])
    return found


def reader(shape: JsonShape) -> JsonSteps:
    """The reader a module builds for ``shape`` (as the module template writes it)."""
    head = shape.head
    return JsonSteps(
        None if head is None else (head.pieces, head.jumps, head.first, head.last),
        shape.leads,
        shape.spaced,
        shape.rest,
        shape.dollar,
        shape.behind,
        shape.objects,
    )


PATTERNS = [p for p in catalogue_patterns() if json_shape(p)]
PATTERNS += [GRAMMAR + s for s in SHAPES] + [s + GRAMMAR for s in SHAPES[:2]]


class Held:
    """What ``JsonSteps.start`` reads of a parser: the buffer and the search position."""

    def __init__(self, before: str) -> None:
        self._buf = before
        self._pos = len(before)


def json_value(rng: random.Random, depth: int = 0) -> str:
    kind = rng.random()
    if depth > 3 or kind < 0.3:
        return rng.choice(
            ['"s"', '"a\\"b"', "12", "-3.5e+2", "true", "null", "0", '"\\n"', '"<a>{}"']
            + ['"<tool_call>"', '"[TOOL_CALLS]x{"', '"é ٣"', "1E5", "[]", "{}"]
        )
    if kind < 0.65:
        items = [
            f'"k{i}"' + rng.choice([":", " : ", ":\n"]) + json_value(rng, depth + 1)
            for i in range(rng.randint(0, 3))
        ]
        return "{" + rng.choice(["", " "]) + ", ".join(items) + "}"
    items = [json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return "[" + ", ".join(items) + rng.choice(["", " "]) + "]"


PIECES = ["{", "}", "[", "]", '"', "\\", ":", ",", " ", "\n", "a", "1", "-", ".", "e", "+"]
PIECES += ["t", "true", "null", '"k"', "12", "1.5e-3", "٣", "\u00a0", "\x1c", "x", "</", "</a>"]
PIECES += ["<a>", "$", "<tool_call>", "[TOOL_CALLS]"]


def held_text(rng: random.Random, shape: JsonShape) -> str:
    """A head (often), then a JSON value with something after it, or random pieces; cut."""
    head = ""
    if shape.leads and rng.random() < 0.9:
        head = rng.choice(shape.leads) + rng.choice(["", " ", "get_weather", " fn-1 [ARGS]", "t"])
        if shape.objects and rng.random() < 0.5:
            head += rng.choice(["[", " [", "[ ", " [\n"]) + rng.choice(["{", ""])
    if rng.random() < 0.6:
        body = json_value(rng) + rng.choice(["", " ", "\n", "</a>", "</tool_call>", " </s>", "}"])
    else:
        body = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 8)))
    text = head + rng.choice(["", "", " ", "\n "]) + body
    return text[: rng.randint(1, len(text))] if rng.random() < 0.8 else text


def partial_at(pattern: Any, buf: str, pos: int) -> bool:
    m = pattern.search(buf, pos, partial=True)
    return m is not None and m.partial and m.start() == pos


@SETTINGS
@given(index=st.integers(0, len(PATTERNS) - 1), seed=st.integers(0, 2**32))
def test_sure_only_where_the_regex_module_reports_a_partial_match(index: int, seed: int) -> None:
    """Sure after any chunk only where the regex module's partial-mode search from the search
    position reports a partial match there; read in chunks as read whole."""
    rng = random.Random(seed)
    source = PATTERNS[index]
    shape = json_shape(source)
    assert shape is not None
    steps, pattern = reader(shape), regex.compile(source, regex.DOTALL)
    for _ in range(20):
        text = held_text(rng, shape)
        before = rng.choice(["", "x", "}", "]", " "])
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, 3))) if text[1:] else []
        state = steps.start(Held(before))
        read = before
        for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True):
            state = OUT if state == OUT else steps.read(state, text[a:b])
            read += text[a:b]
            if state != OUT and steps.sure(state):
                assert partial_at(pattern, read, len(before)), (source, before, read)
        whole = steps.start(Held(before))
        whole = OUT if whole == OUT else steps.read(whole, text)
        assert whole == state, (source, text, cuts)


def test_most_partial_matches_are_read() -> None:
    """Not vacuous: of the partial matches the regex module reports at the search position, the
    reader is sure of most (it leaves the rest to the scanner). A fixed seed."""
    rng = random.Random(38)
    reported = read = 0
    for _ in range(3000):
        source = rng.choice(PATTERNS)
        shape = json_shape(source)
        assert shape is not None
        steps = reader(shape)
        text = held_text(rng, shape)
        truth = partial_at(regex.compile(source, regex.DOTALL), text, 0)
        state = steps.read(steps.start(Held("")), text)
        reported += truth
        read += truth and state != OUT and steps.sure(state)
    assert reported > 500
    assert read >= 0.85 * reported, (read, reported)


def test_catalogue_shapes() -> None:
    """The catalogue's JSON patterns read: each family's opening or close, as expected."""
    shapes = {}
    for path in sorted(GENERATED.glob("*.json")):
        field = json.loads(path.read_text())["fields"].get("tool_calls", {})
        for key in ("open_pattern", "close_pattern"):
            if (shape := json_shape(field.get(key, ""))) is not None:
                shapes[path.stem, key] = shape
    assert set(shapes) == {
        ("ernie", "open_pattern"),
        ("granite3", "open_pattern"),
        ("granite3", "close_pattern"),
        ("granite4", "open_pattern"),
        ("llama3", "close_pattern"),
        ("mistral", "open_pattern"),
        ("mistral", "close_pattern"),
        ("mistral_magistral", "open_pattern"),
        ("mistral_magistral", "close_pattern"),
        ("mistral_v3", "open_pattern"),
        ("mistral_v3", "close_pattern"),
        ("smollm3", "open_pattern"),
    }
    smollm3 = shapes["smollm3", "open_pattern"]
    assert (smollm3.leads, smollm3.spaced) == (("<tool_call>",), True)
    assert (smollm3.rest, smollm3.dollar) == (("</tool_call>", "<|im_end|>"), True)
    assert shapes["mistral", "open_pattern"].leads == ("[TOOL_CALLS]",)
    assert shapes["llama3", "close_pattern"].behind == "}"
    assert shapes["mistral_v3", "open_pattern"].objects


@pytest.mark.parametrize(
    "pattern",
    [
        r"<a>(?=\s*(?&jv))",  # no grammar
        GRAMMAR.replace("true|", "yes|") + r"<a>(?=\s*(?&jv))",  # another grammar
        GRAMMAR + r"(?:<a>)?\w*(?=(?&jv))",  # a head without leading literals
        GRAMMAR + r"<a>(?=\s*(?&jv)\s*(?: x|$))",  # a rest literal led by whitespace
        GRAMMAR + r"<a>(?=\s*(?&jv)(?:</a>|$))",  # a rest without \s*
        GRAMMAR + r"<a>(?=\s*(?&jv))(?=x)",  # two look-aheads
        GRAMMAR + r"\G(?:(?&jv)|(?<=\}))",  # no \K
        GRAMMAR + r"<a>(?=\s*(?&jv)\s*[ab])",  # a rest that is no literal
    ],
)
def test_other_patterns_have_no_reader(pattern: str) -> None:
    assert json_shape(pattern) is None


def test_what_the_reader_does_not_model_is_out() -> None:
    """Outside strings, whitespace and digits other than ASCII's (which \\s and \\d may read),
    a number at the top, a later head in the text: OUT, and the scanner decides."""
    shape = json_shape(GRAMMAR + SHAPES[0])
    assert shape is not None
    steps = reader(shape)
    start = steps.start(Held(""))
    for text in ['<a>{"k":\u00a01', '<a>{"k": ٣', "<a>\u20001", '<a>{"k":\x1c1', "<a>1", "<a> -"]:
        assert steps.read(start, text) == OUT, text
    assert steps.read(start, '<a>{"k": "<a>') == OUT  # a later match may begin there
    assert steps.read(start, '<a>{"k": "é ٣\u00a0') != OUT  # in a string, any character
    close = reader(json_shape(GRAMMAR + SHAPES[6]))  # type: ignore[arg-type]
    assert close.start(Held("}")) == OUT  # the look-behind alternative matches at once
    assert close.read(close.start(Held("x")), '{"a": [1, {"b": nul') != OUT


def test_a_value_then_whitespace_is_not_sure_where_the_rest_ends_at_dollar() -> None:
    """``$`` ends the rest: a value followed by whitespace alone is a complete match for now
    (the scanner decides); a literal of the rest begun makes it pending again."""
    shape = json_shape(GRAMMAR + SHAPES[0])
    assert shape is not None
    steps = reader(shape)
    state = steps.read(steps.start(Held("")), '<a>{"k": [1, 2]}')
    assert state != OUT and not steps.sure(state)
    state = steps.read(state, " </")
    assert state != OUT and steps.sure(state)
    assert steps.read(state, "a>") == OUT  # complete


def call_field(opening: str, close: str) -> dict[str, Any]:
    """A tool-call field opened by ``opening`` (its captures reach the call through the
    transform, as the catalogue's do)."""
    return {
        "open_pattern": opening,
        "close": close,
        "repeats": True,
        "content": "json",
        "transform": {"type": "function", "function": {"name": "f", "arguments": "{content}"}},
    }


ARGUMENT = (
    '{"code": "def f(x):\\n    return {\\"a\\": [x, 1.5e-3]}\\n", "n": -12, "ok": true, '
    '"list": [[], {}, [null, false]], "s": "say \\"hi\\" {not json"}'
)


def test_an_array_of_objects_where_the_template_looks_ahead_for_one() -> None:
    """mistral_v3's look-ahead for "[", whitespace, "{" before the value's: read as the value's
    first characters; any other value is no match there."""
    shape = json_shape(GRAMMAR + SHAPES[-1])
    assert shape is not None and shape.objects
    steps = reader(shape)
    start = steps.start(Held(""))
    # (Before a "[", the head reads on: one may still come.)
    for text in ["<t>", '<t> {"a"', "<t> [", "<t> [ \n", '<t> [{"a": [1', '<t>[{}, {"b"']:
        state = steps.read(start, text)
        assert state != OUT and steps.sure(state), text
    for text in ["<t> [1", "<t> [[", "<t> []", '<t> [{"a": 1}]']:
        assert steps.read(start, text) == OUT, text


@SETTINGS
@given(seed=st.integers(0, 2**32), index=st.integers(0, 3))
def test_json_openings_stream_as_the_general_path_does(seed: int, index: int) -> None:
    """A call whose arguments are a long JSON value (code with braces and escapes inside
    strings, nested arrays, numbers), after prose, in random 1- to 6-character chunks: the same
    events and message with the fast path (the reader) as without."""
    opening, close = [
        (GRAMMAR + SHAPES[0], "</a>"),
        (GRAMMAR + SHAPES[2], "</c>"),
        (SHAPES[1] + GRAMMAR, "</b>"),
        (GRAMMAR + SHAPES[-1], "</t>"),
    ][index]
    fields = {"content": {"close": "</e>"}, "tool_calls": call_field(opening, close)}
    text = ["Hi there. <a>" + ARGUMENT + "</a>", "Ok <c> get_x " + ARGUMENT + "</c>"][index % 2]
    if index == 2:
        text = "Ok <b>\n" + ARGUMENT + "</b> done"
    if index == 3:
        text = "Ok <t> [" + ARGUMENT + ", " + ARGUMENT + "]</t>"
    rng = random.Random(seed)
    chunks = []
    while text:
        cut = rng.randint(1, 6)
        chunks.append(text[:cut])
        text = text[cut:]
    parser = load({"start_anchor": "<S>", "fields": fields}).ResponseParser
    assert run(parser, "", chunks) == run(without_fast_path(parser), "", chunks)


def test_json_openings_are_read_by_the_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: streamed a few characters at a time, a held JSON opening is answered by the
    reader, and the scanner is asked only where the value ends."""
    answered, scanned = counted(monkeypatch)
    fields = {"content": {"close": "</e>"}, "tool_calls": call_field(GRAMMAR + SHAPES[0], "</a>")}
    module = load({"start_anchor": "<S>", "fields": fields})
    text = "Hi. <a>" + ARGUMENT + "</a>"
    chunks = [text[i : i + 4] for i in range(0, len(text), 4)]
    assert run(module.ResponseParser, "", chunks) == run(
        without_fast_path(module.ResponseParser), "", chunks
    )
    assert sum(found is not None for found in answered) >= len(ARGUMENT) // 4 - 2
    assert len(scanned) <= 3


@pytest.mark.parametrize("name", ["mistral", "mistral_magistral", "smollm3", "granite4", "ernie"])
def test_catalogue_families_read_their_calls_with_the_reader(name: str) -> None:
    """The families whose calls are JSON after an opening carry the reader in that state."""
    module = rtc.generated.get(name)
    readers = [
        steps
        for fast in module.ResponseParser._region_fast
        if fast
        for steps in fast[19]
        if isinstance(steps, JsonSteps)
    ]
    assert readers, name
