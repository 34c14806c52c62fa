"""DeltaStream's rules one by one, on catalogue parsers and small templates; and the compiler's
proofs behind early tool calls (``compiler/serving.py``), property-tested against the regex
engine and the content parser."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from openai_check import accumulate, counting_ids

from rtc.compiler import load
from rtc.compiler.regex_syntax.fast_paths import always_groups, param_shape
from rtc.generated import qwen3, qwen3_5
from rtc.runtime.openai_calls import ParamPieces

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        },
    },
}


def stream(module: Any, text: str, prefix: str = "", size: int = 1, reason: str = "stop", **kw):
    s = module.DeltaStream(prefix, id_factory=counting_ids(), **kw)
    deltas = list(s.initial_deltas)
    for i in range(0, len(text), size):
        deltas += s.feed(text[i : i + size])
    tail, message, finish = s.finish(reason)
    return deltas + tail, message, finish, s.problems


def test_role_first_and_once_reasoning_under_each_key() -> None:
    deltas, message, reason, problems = stream(
        qwen3,
        "Hm.</think>Hi",
        prefix="<|im_start|>assistant\n<think>\n",
        reasoning_key=("reasoning", "reasoning_content"),
    )
    assert deltas[0] == {"role": "assistant"} and all("role" not in d for d in deltas[1:])
    assert {"reasoning": "H", "reasoning_content": "H"} in deltas
    assert message == {
        "role": "assistant",
        "content": "Hi",
        "reasoning": "Hm.",
        "reasoning_content": "Hm.",
    }
    assert (reason, problems) == ("stop", [])


def test_strip_drops_leading_and_holds_trailing_whitespace() -> None:
    s = qwen3.DeltaStream("")
    assert s.feed("<think>\n  ") == []  # leading whitespace is never sent
    assert s.feed("Hi ") == [{"reasoning": "Hi"}]  # the space waits for more text
    assert s.feed(" there\n") == [{"reasoning": "  there"}]
    assert s.feed("</think>") == []  # trailing whitespace of the value is never sent
    assert s.finish()[1]["reasoning"] == "Hi  there"


def test_only_committed_text_is_sent() -> None:
    s = qwen3.DeltaStream("")
    assert s.feed("Hello <|im") == [{"content": "Hello"}]  # "<|im" may begin the close
    assert s.feed("_end|>") == []
    assert s.finish()[1]["content"] == "Hello"


def test_join_separators_come_before_later_occurrences(ref: Any) -> None:
    template = {
        "start_anchor": "<A>",
        "defaults": {"content": "d"},
        "fields": {"content": {"open": "<c>", "close": "</c>", "repeats": True, "join": "+"}},
    }
    deltas, message, _, problems = stream(load(template), "<c> a </c>x<c></c><c>b</c>")
    assert [d["content"] for d in deltas[1:]] == ["d", "+", "a", "+", "+", "b"]
    expected = ref.parse(ref.load(template), "<c> a </c>x<c></c><c>b</c>", "", None)
    assert message["content"] == expected["content"] == "d+a++b" and problems == []


def test_a_field_that_occurs_twice_is_concatenated_and_reported(ref: Any) -> None:
    text = "Hello<|im_end|>\nmore"
    _, message, _, problems = stream(qwen3, text)
    assert message["content"] == "Hellomore"
    assert [p["type"] for p in problems] == ["repeated"]
    assert ref.parse(ref.load(qwen3.TEMPLATE), text, "", None)["content"] == "more"


def test_rejected_call_becomes_content_or_raises_like_the_reference(ref: Any) -> None:
    text = 'Sure. <tool_call>{"name": "f", "arguments": {</tool_call><|im_end|>'
    deltas, message, reason, problems = stream(qwen3, text, size=4)
    assert message["content"] == 'Sure. <tool_call>{"name": "f", "arguments": {</tool_call>'
    assert "tool_calls" not in message and reason == "stop"
    assert [(p["type"], p["field"], p["error"]) for p in problems] == [
        ("rejected", "tool_calls", "ValueError")
    ]
    with pytest.raises(ValueError):
        ref.parse(ref.load(qwen3.TEMPLATE), text, "", None)
    with pytest.raises(ValueError):
        stream(qwen3, text, size=4, on_error="raise")


def test_a_value_that_is_not_a_call_is_refused() -> None:
    text = "<tool_call>[1, 2]</tool_call>"
    _, message, _, problems = stream(qwen3, text)
    assert message["content"] == text and problems[0]["type"] == "rejected"
    with pytest.raises(ValueError, match="not a call"):
        stream(qwen3, text, on_error="raise")


def test_whole_calls_index_from_zero_and_finish_reason() -> None:
    call = '<tool_call>{"name": "f", "arguments": {"x": %d}}</tool_call>'
    deltas, message, reason, _ = stream(qwen3, "Hi" + call % 1 + "\n" + call % 2, size=3)
    entries = [e for d in deltas for e in d.get("tool_calls", [])]
    assert [(e["index"], e["id"], e["function"]["name"]) for e in entries] == [
        (0, "call_" + "0" * 24, "f"),
        (1, "call_" + "0" * 23 + "1", "f"),
    ]
    assert [json.loads(c["function"]["arguments"]) for c in message["tool_calls"]] == [
        {"x": 1},
        {"x": 2},
    ]
    assert reason == "tool_calls"
    assert stream(qwen3, "Hi")[2] == "stop"


def test_default_ids_and_id_factory() -> None:
    s = qwen3.DeltaStream("")
    s.feed('<tool_call>{"name": "f", "arguments": {}}</tool_call>' * 2)
    ids = [c["id"] for c in s.finish()[1]["tool_calls"]]
    assert all(re.fullmatch(r"call_[0-9a-f]{24}", i) for i in ids) and len(set(ids)) == 2
    s = qwen3.DeltaStream("", id_factory=lambda: 7)  # type: ignore[arg-type, return-value]
    with pytest.raises(TypeError, match="id_factory"):
        s.feed('<tool_call>{"name": "f", "arguments": {}}</tool_call>')


def test_length_turns_an_unclosed_call_into_content() -> None:
    text = 'Hi <tool_call>{"name": "f", "argu'
    deltas, message, reason, problems = stream(qwen3, text, reason="length")
    assert message["content"] == 'Hi <tool_call>{"name": "f", "argu'
    assert reason == "length" and [p["type"] for p in problems] == ["length"]
    assert accumulate(deltas)["content"] == message["content"]


XML_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
)


def test_announced_call_gets_one_final_piece_per_parameter() -> None:
    deltas, message, reason, problems = stream(qwen3_5, "Ok." + XML_CALL, tools=[WEATHER])
    entries = [e for d in deltas for e in d.get("tool_calls", [])]
    assert entries[0] == {
        "index": 0,
        "id": "call_" + "0" * 24,
        "type": "function",
        "function": {"name": "get_weather", "arguments": ""},
    }
    assert [e["function"]["arguments"] for e in entries[1:]] == [
        '{"city": "Paris"',
        ', "days": 3',  # typed by the tool's schema
        "}",
    ]
    # Announced as soon as the opening delimiter matched, before any parameter arrived.
    first = next(i for i, d in enumerate(deltas) if "tool_calls" in d)
    assert accumulate(deltas[: first + 1])["tool_calls"][0]["function"]["name"] == "get_weather"
    assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {
        "city": "Paris",
        "days": 3,
    }
    assert (reason, problems) == ("tool_calls", [])


def test_tool_typing_that_can_raise_sends_the_call_whole() -> None:
    tool = json.loads(json.dumps(WEATHER))
    tool["function"]["parameters"]["properties"]["days"] = {"type": "array"}
    deltas, message, _, _ = stream(qwen3_5, XML_CALL, tools=[tool])
    entries = [e for d in deltas for e in d.get("tool_calls", [])]
    # Sent once, whole, after the close (an array schema does not take "3").
    assert len(entries) == 1 and json.loads(entries[0]["function"]["arguments"]) == {
        "city": "Paris",
        "days": "3",
    }


def test_length_ends_an_announced_call_with_its_complete_parameters() -> None:
    text = XML_CALL[: XML_CALL.index("<parameter=days>") + 20]
    deltas, message, reason, problems = stream(qwen3_5, text, reason="length")
    assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
    assert reason == "length" and [p["type"] for p in problems] == ["length"]
    assert accumulate(deltas)["tool_calls"] == message["tool_calls"]


def test_duplicate_parameters_decode_like_the_reference(ref: Any) -> None:
    text = XML_CALL.replace("days>\n3", "city>\nLyon")
    _, message, _, problems = stream(qwen3_5, text)
    arguments = json.loads(message["tool_calls"][0]["function"]["arguments"])
    expected = ref.parse(ref.load(qwen3_5.TEMPLATE), text, "", None)
    assert arguments == expected["tool_calls"][0]["function"]["arguments"] == {"city": "Lyon"}
    assert problems == []


def test_other_fields_are_returned_not_streamed() -> None:
    template = {
        "start_anchor": "<A>",
        "fields": {
            "content": {"close": "<end>"},
            "score": {"open": "<s>", "close": "</s>", "content": "int"},
            "reasoning": {"open": "<r>", "close": "</r>", "content": "json"},
        },
    }
    deltas, message, _, problems = stream(load(template), 'Hi<s>7</s><r>{"a": 1}</r>')
    assert all("score" not in d for d in deltas)
    assert message["score"] == 7 and message["content"] == "Hi"
    # A field named like an OpenAI key the stream owns is reported, not returned.
    assert "reasoning" not in message and [p["type"] for p in problems] == ["not_returned"]


def test_missing_required_field() -> None:
    module = load(
        {"start_anchor": "<A>", "fields": {"content": {"open": "<c>", "optional": False}}}
    )
    _, message, _, problems = stream(module, "text")
    assert message["content"] is None and [p["type"] for p in problems] == ["missing"]
    with pytest.raises(ValueError, match="Required"):
        stream(module, "text", on_error="raise")


def test_misuse() -> None:
    bad_keys: list[Any] = ["content", (), ("r", "r"), ("r", ["x"]), ("r", 1), ["r", "tool_calls"]]
    # Twice each, before and after good keys (checked keys are kept per class: a bad one must
    # never be).
    for _ in range(2):
        for key in bad_keys:
            with pytest.raises(ValueError):
                qwen3.DeltaStream("", reasoning_key=key)
        for key in ("r", ("r", "s"), ["r", "s"]):
            assert qwen3.DeltaStream("", reasoning_key=key)._reasoning_keys == tuple(
                [key] if isinstance(key, str) else key
            )
    with pytest.raises(ValueError):
        qwen3.DeltaStream("", on_error="ignore")
    s = qwen3.DeltaStream("")
    with pytest.raises(ValueError):
        s.finish("eos")
    s.finish()
    with pytest.raises(RuntimeError):
        s.feed("x")
    with pytest.raises(RuntimeError):
        s.finish()
    with pytest.raises(ValueError):
        qwen3.DeltaStream(None)


# --- the compiler's proofs ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "groups"),
    [
        (r"<f=(?P<name>\w+)>", {"name"}),
        (r"a(?P<name>\w+)?b", set()),
        (r"(?:x(?P<name>\w+))", set()),
        (r"a(?P<name>x)|b", set()),
        (r"(?P<a>x)(?P<b>[)|(])*", {"a"}),
        (r"(?i)(?P<name>x)", set()),
        (r"(?P<k>x)(?P<k>y)", set()),
        (r"\((?P<k>x)\)", {"k"}),
    ],
)
def test_always_groups(pattern: str, groups: set[str]) -> None:
    assert always_groups(pattern) == groups


@pytest.mark.parametrize(
    ("pattern", "end"),
    [
        (r"<parameter=(?P<key>[^>\n]+)>\s*(?P<value>.*?)\s*</parameter>", "</parameter>"),
        (r"<p=(?P<key>\w+)>\s*(?P<value>.*?)\s*</p>", "</p>"),
        (r"<p=(?P<key>\w+)>(?P<value>.*?)\|end", "|end"),
        (r"<p=(?P<key>\w+)>(?P<value>.*)</p>", None),  # greedy value
        (r"<p=(?P<key>.+)>(?P<value>.*?)</p>", None),  # the key can run over '>'
        (r"<p=(?P<key>\w+)>(?P<value>.*?) </p>", None),  # L3 begins with whitespace
        (r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>", None),
        (r"(?P<key>\w+)=(?P<value>[^,]*)", None),
        (r"\n<p=(?P<key>\w+)>\t(?P<value>.*?)</p>\n", "</p>\n"),  # escaped line ends, tabs
        (r"<p=(?P<key>[a&&b]+)>(?P<value>.*?)</p>", None),  # a set operation: not read
    ],
)
def test_param_shape(pattern: str, end: str | None) -> None:
    assert param_shape(pattern) == end


SHAPED = [
    r"<parameter=(?P<key>[^>\n]+)>\s*(?P<value>.*?)\s*</parameter>",
    r"<p=(?P<key>\w+)>(?P<value>.*?)</p>",
    r"<p=(?P<key>[^>]+)>\s*(?P<value>.*?)</p>",
    r"ab(?P<key>[^b]+)b(?P<value>.*?)\s*bb",
    r"\n<p=(?P<key>\w+)>\n(?P<value>.*?)</p>\n",
]
PIECES = [
    "<parameter=",
    "</parameter>",
    "<p=",
    "</p>",
    ">",
    "\n",
    " ",
    "k",
    "x y",
    "a",
    "b",
    "=",
    "<",
    "é",
]


@settings(max_examples=400, derandomize=True, deadline=None)
@given(st.sampled_from(SHAPED), st.lists(st.sampled_from(PIECES), max_size=30))
def test_matches_in_a_prefix_are_final(pattern: str, pieces: list[str]) -> None:
    """param_shape's claim: finditer over any prefix of a body yields the first matches of
    finditer over the whole body, the same spans and groups."""
    assert param_shape(pattern) is not None
    compiled = regex.compile(pattern, regex.DOTALL)
    body = "".join(pieces)
    whole = [(m.span(), m.groupdict()) for m in compiled.finditer(body)]
    for cut in range(len(body) + 1):
        found = [(m.span(), m.groupdict()) for m in compiled.finditer(body[:cut])]
        assert found == whole[: len(found)], (body, cut)


@pytest.mark.parametrize(
    ("fields", "chunks", "content"),
    [
        # Closed by its own delimiters: both are part of the raw text.
        ({"x": {"open": "<x>", "close": "</x>", "content": "int"}}, ["a<x>7b</x>c"], "<x>7b</x>"),
        # Closed by the end of the text: no close delimiter.
        ({"x": {"open": "<x>", "content": "int"}}, ["<x>", "b"], "<x>b"),
        # A close that ended an unopened region earlier is not this region's (context 1).
        ({"x": {"close_pattern": "\\bE", "content": "int"}}, ["E ", "abc"], " abc"),
        # An implicit region closed by another field's opening: its text only, and the other
        # field still opens.
        (
            {"x": {"content": "int"}, "content": {"open": "<c>", "close": "</c>"}},
            ["ab<c>", "hi</c>"],
            "abhi",
        ),
    ],
)
def test_rejected_raw_text(fields: dict[str, Any], chunks: list[str], content: str) -> None:
    s = load({"start_anchor": "<A>", "fields": fields}).DeltaStream("")
    for chunk in chunks:
        s.feed(chunk)
    assert s.finish()[1]["content"] == content
    assert [p["type"] for p in s.problems] == ["rejected"]


# ParamPieces searches the body only up to the last end literal: the same parameters, in the
# same order, as searching it all (a looping model's unclosed heads are not read again).
_PARAM_WORDS = ["<parameter=k>", "<parameter=v>", " x ", "\n", "</parameter>", "1", "<", "y"]


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(words=st.lists(st.sampled_from(_PARAM_WORDS), max_size=14), size=st.integers(1, 9))
def test_param_pieces_are_the_whole_search(words: list[str], size: int) -> None:
    plan = next(p for p in qwen3_5.DeltaStream._calls if p is not None)
    body = "".join(words)
    pieces = ParamPieces(plan, None)
    got = [piece for i in range(0, len(body), size) for piece in pieces.add(body[i : i + size])]
    got += pieces.rest()
    want = []
    for n, m in enumerate(plan.params.finditer(body)):
        key, value = json.dumps(m.group("key")), json.dumps(m.group("value"))
        want.append(f"{', ' if n else '{'}{key}: {value}")
    assert got == [*want, "}" if want else "{}"], body


JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # nan and the infinities too: json.dumps writes them (allow_nan)
    st.text(),
)
JSON_KEYS = st.one_of(st.text(), st.integers(), st.floats(), st.booleans(), st.none())
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(JSON_KEYS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(value=JSON_VALUES)
def test_json_text_is_json_dumps_without_ascii(value: Any) -> None:
    """The encoder built once writes what ``json.dumps(value, ensure_ascii=False)`` writes
    (keys of every type json accepts, non-ASCII text, nan and the infinities)."""
    from rtc.runtime.openai_calls import json_text

    assert json_text(value) == json.dumps(value, ensure_ascii=False)


def test_json_text_raises_as_json_dumps() -> None:
    """The same errors, and none left behind: an encoder keeps no state between calls."""
    from rtc.runtime.openai_calls import json_text

    loop: list[Any] = []
    loop.append(loop)
    for bad in (object(), {"a": {1, 2}}, loop, {(1, 2): 3}):
        with pytest.raises(Exception) as ours:
            json_text(bad)
        with pytest.raises(Exception) as theirs:
            json.dumps(bad, ensure_ascii=False)
        assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))
    assert json_text({"after": "é"}) == '{"after": "é"}'
