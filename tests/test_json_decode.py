"""``rtc.runtime.json_decode.loads`` against ``json.loads``: the same value or the same error.

``loads`` skips json.loads' entry and exit steps only where they cannot change the outcome
(see its module docstring). The texts here aim at every step it skips or hands back: leading
and trailing JSON whitespace, the BOM, other Unicode whitespace, extra data after a value,
empty text, truncated and broken values, deep nesting and the integer digit limit.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_content_parsers import canon
from test_prefilter import SETTINGS

from rtc.runtime.json_decode import loads

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)
# Pieces around and inside a value: JSON whitespace, whitespace JSON does not skip, the BOM,
# extra values and characters that break or end a value.
PADDING = st.text(alphabet=" \t\n\r\ufeff\x0b\x0c\xa0\u2028", max_size=3)
NOISE = st.text(alphabet='{}[]",:0123456789.-eE+ntrufalsNIy\\ ', max_size=12)


def _outcome(fn: Any, text: str) -> Any:
    try:
        return ("value", canon(fn(text)))
    except Exception as exc:  # the exception type and message are the observable
        return ("raises", type(exc), str(exc))


def _same(text: str) -> None:
    assert _outcome(loads, text) == _outcome(json.loads, text), repr(text)


@SETTINGS
@given(
    value=VALUES,
    before=PADDING,
    after=PADDING,
    extra=st.one_of(st.just(""), NOISE),
    cut=st.integers(min_value=0, max_value=200),
    ascii_only=st.booleans(),
)
def test_loads_is_json_loads(
    value: Any, before: str, after: str, extra: str, cut: int, ascii_only: bool
) -> None:
    encoded = json.dumps(value, ensure_ascii=ascii_only)
    _same(encoded)
    _same(before + encoded + after + extra)
    _same(encoded[:cut])  # truncated values: errors from inside the scanner
    _same(encoded[cut:])


@SETTINGS
@given(text=NOISE, before=PADDING, after=PADDING)
def test_loads_is_json_loads_on_noise(text: str, before: str, after: str) -> None:
    _same(text)
    _same(before + text + after)


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "\ufeff",
        "\ufeff1",
        "\ufeff{}",
        "3",
        " 3",
        "3 ",
        "3\n",
        "3x",
        "3 4",
        "-",
        "-Infinity",
        "NaN",
        "nul",
        "Paris, France",
        "007",
        "1.5e3",
        '{"a": 1} {"b": 2}',
        '{"a": 1}}',
        '"unterminated',
        '"tab\there"',
        '{"a": }',
        "[1, 2,]",
        "\xa01",
        "1\xa0",
        "[" * 5000 + "]" * 5000,  # RecursionError from the scanner, as from json.loads
        "9" * 5000,  # the integer digit limit's ValueError, as from json.loads
    ],
)
def test_loads_edges(text: str) -> None:
    if text.startswith("[" * 5000):
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(1000)  # the same depth for both calls, whatever the runner set
        try:
            _same(text)
        finally:
            sys.setrecursionlimit(limit)
        return
    _same(text)
