"""JSONL decoding: the tools memo gives exactly what ``json.loads`` gives, line by line.

``jsonl.ToolsMemo`` replaces a known tools text by a sentinel before decoding; these lines try
to fool it: the tools text inside a string, under another key, nested, twice, after an escaped
quote, beside a NUL escape, in other spacing, as JSON text in a string, with numbers that compare
equal but differ in type. A hypothesis test then mixes random records and known tools texts.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rtc.compiler.offline import jsonl
from rtc.compiler.offline.jsonl import JsonlChunk, ToolsMemo

TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"n": {"type": "integer"}}}}]
RAW = json.dumps(TOOLS)
OTHER = [{"type": "function", "function": {"name": "g"}}]


def _loads(line: str) -> Any:
    try:
        return ("ok", json.loads(line))
    except ValueError:
        return ("error", None)


def _memo_loads(memo: ToolsMemo, line: str) -> Any:
    try:
        return ("ok", memo.loads(line.encode("utf-8")))
    except ValueError:
        return ("error", None)


TRICKY = [
    f'{{"text": "a", "tools": {RAW}}}',
    f'{{"tools": {RAW}, "text": "a"}}',
    f'{{"text": {json.dumps(RAW)}, "tools": null}}',  # the tools text inside a string
    f'{{"other": {RAW}, "tools": {json.dumps(OTHER)}}}',  # under another key
    f'{{"meta": {{"tools": {RAW}}}, "tools": []}}',  # nested under the same key
    f'{{"meta": {{"tools": {RAW}}}, "tools": {RAW}}}',  # nested first, then at the top
    f'{{"tools": {RAW}, "tools": {json.dumps(OTHER)}}}',  # a repeated key: the last one wins
    f'{{"tools": {json.dumps(OTHER)}, "tools": {RAW}}}',
    f'{{"text": "\\u0000rtc: tools", "tools": {RAW}}}',  # the sentinel's own text
    f'{{"text": "\\u0000", "tools": {RAW}}}',
    f'{{"text" : "a" , "tools" :  {RAW} }}',  # other spacing
    f'{{"tools":{json.dumps(TOOLS, separators=(",", ":"))}}}',
    f'{{"tools": {json.dumps(RAW)}}}',  # tools as JSON text, in a string
    f'{{"text": "x\\"", "tools": {RAW}}}',  # after an escaped quote
    f'["tools", {RAW}]',  # not an object
    f'{{"tools": {RAW}',  # cut off
    f'{{"tools": {RAW}}} trailing',
    '{"tools": [1.0, 2]}',  # equal to [1, 2.0] in Python, different types
    '{"tools": [1, 2.0]}',
    '{"tools": [true]}',
    '{"tools": [1]}',
    '{"t\\u006fols": [1]}',  # the key written with an escape
    '{"tools": "\\u0000rtc: tools"}',
]


def test_tricky_lines_decode_as_json_loads_does() -> None:
    memo = ToolsMemo("tools")
    for _ in range(2):  # the second round runs with everything learned in the first
        for line in TRICKY:
            assert _memo_loads(memo, line) == _loads(line), line
            memo.new_chunk()


def test_a_known_tools_text_is_decoded_once_and_shared() -> None:
    memo = ToolsMemo("tools")
    first = memo.loads(f'{{"text": "a", "tools": {RAW}}}'.encode())  # learned here
    second = memo.loads(f'{{"text": "b", "tools": {RAW}}}'.encode())
    third = memo.loads(f'{{"tools": {RAW}, "text": "c"}}'.encode())
    assert first == json.loads(f'{{"text": "a", "tools": {RAW}}}')
    assert second["tools"] == TOOLS and third["tools"] is second["tools"]  # decoded once
    assert (second["text"], third["text"]) == ("b", "c")


@st.composite
def _lines(draw: st.DrawFn) -> str:
    tools_texts = [RAW, json.dumps(OTHER), json.dumps(TOOLS, indent=1), '"[1]"', "[1.0]", "[1]"]
    values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
        max_leaves=6,
    )
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        key = draw(st.sampled_from(["tools", "text", "meta", "to\\u006fls"]))
        if draw(st.booleans()):
            value = draw(st.sampled_from(tools_texts))
        else:
            value = json.dumps(draw(values))
        if draw(st.booleans()):
            value = f'{{"tools": {value}}}'
        parts.append(f'"{key}"{draw(st.sampled_from([":", ": ", " : "]))}{value}')
    line = "{" + ", ".join(parts) + "}"
    if draw(st.integers(0, 9)) == 0:
        cut = draw(st.integers(0, len(line)))
        line = line[:cut]
    return line


@settings(max_examples=120, derandomize=True, deadline=None)
@given(st.lists(_lines(), min_size=1, max_size=8))
def test_random_lines_decode_as_json_loads_does(lines: list[str]) -> None:
    memo = ToolsMemo("tools")
    for line in lines + lines:
        assert _memo_loads(memo, line) == _loads(line), line


def test_split_lines_numbers_lines_and_skips_blank_ones() -> None:
    chunk = JsonlChunk(b'{"a": 1}\n\n   \n{"a": 2}\r\n{"a": 3}', first_line=10)
    lines, numbers = jsonl.split_lines(chunk)
    assert numbers == [10, 13, 14]
    assert [json.loads(line) for line in lines] == [{"a": 1}, {"a": 2}, {"a": 3}]


def test_output_lines_keep_each_input_field_as_written() -> None:
    lines = [b'{"id": 1.50, "x": "\\u00e9"}', b"{}", b"[1]", b'{"message": 1}']
    records = [json.loads(line) for line in lines]
    messages = [{"content": "é"}, None, None, None]
    errors = [None, {"type": "ValueError", "message": "m", "line": 2}, None, None]
    out = jsonl.encode_lines(lines, records, messages, errors).decode().splitlines()
    assert out[0] == '{"id": 1.50, "x": "\\u00e9", "message": {"content": "é"}, "error": null}'
    assert json.loads(out[1]) == {"message": None, "error": errors[1]}
    assert json.loads(out[2]) == {"message": None, "error": None}  # not an object: no fields
    assert json.loads(out[3]) == {"message": None, "error": None}  # its own message replaced
