"""rtc.runtime.content against transformers 5.23.0's content parsers (the oracle).

Every comparison runs the same body and args through both and demands the same value
(types, key order and NaN included) or the same exception type.
"""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Callable
from typing import Any

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from limits import DEEP, json_error, too_deep
from transformers.utils.chat_parsing import content_parsers as reference

from rtc.runtime import content

pytestmark = pytest.mark.core

NAMES = ["text", "int", "float", "bool", "json", "xml-inline", "kv-lines"]


def canon(value: Any) -> Any:
    """Comparable form of a parsed value: 1, 1.0 and True differ; NaN equals NaN."""
    if isinstance(value, dict):
        return ("dict", tuple((canon(k), canon(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list", tuple(canon(item) for item in value))
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def outcome(parser: Callable[[str, Any], Any], body: Any, args: Any) -> Any:
    try:
        return ("value", canon(parser(body, copy.deepcopy(args))))
    except Exception as exc:  # the exception type is the observable
        return ("raises", type(exc))


def assert_same(name: str, body: Any, args: Any) -> Any:
    ours = outcome(content.PARSERS[name], body, args)
    theirs = outcome(reference.CONTENT_PARSERS[name], body, args)
    assert ours == theirs, (name, body, args)
    return ours


def test_tables_match_reference() -> None:
    assert list(content.PARSERS) == list(reference.CONTENT_PARSERS) == NAMES
    assert content.STREAMABLE == reference.STREAMABLE_PARSERS
    assert content.STREAMABLE == frozenset({"text", "int", "float", "bool"})


# --- hand-picked cases (quirks Q34-Q40 and friends) ----------------------------------------

HAND_PICKED: list[tuple[str, str, Any, Any]] = [
    # (parser, body, args, expected outcome: a value, an exception type, or ... for "any")
    # text: Python str.strip(), Unicode whitespace included
    ("text", " \x1c\x85\xa0a b\u2000\n", {}, "a b"),
    ("text", "  a  ", {"strip": False}, "  a  "),
    ("text", "  a  ", {"strip": 0}, "  a  "),
    ("text", "  a  ", {"strip": "no"}, "a"),
    ("text", "", {}, ""),
    # Q38 int/float use Python builtins
    ("int", " 4_2 ", {}, 42),
    ("int", "٤٢", {}, 42),
    ("int", " 42 ", {"strip": False}, 42),
    ("int", "+7", {}, 7),
    ("int", "4.0", {}, ValueError),
    ("int", "", {}, ValueError),
    ("int", "1" * 5000, {}, ValueError),
    ("float", "1_0.5", {}, 10.5),
    ("float", "inf", {}, math.inf),
    ("float", "-Infinity", {}, -math.inf),
    ("float", "nan", {}, math.nan),
    ("float", "1e3", {}, 1000.0),
    ("float", "0x10", {}, ValueError),
    # Q39 bool never fails
    ("bool", "yes", {}, False),
    ("bool", " TRUE ", {}, True),
    ("bool", "1", {}, True),
    ("bool", " 1", {"strip": False}, False),
    ("bool", "", {}, False),
    # Q40 non-dict content_args
    ("text", "a", None, AttributeError),
    ("int", "1", [], AttributeError),
    ("json", "1", "x", AttributeError),
    ("xml-inline", "", 7, AttributeError),
    ("kv-lines", "", [1], AttributeError),
    # Q35 json edge cases
    ("json", '{"a": 1, "a": 2}', {}, {"a": 2}),
    # nesting beyond what json accepts here raises RecursionError, which allow_non_json lets through
    ("json", too_deep(), {}, RecursionError),
    ("json", too_deep(), {"allow_non_json": True}, RecursionError),
    # 3,000 levels: RecursionError before CPython 3.13, an unclosed array (a JSON error) on 3.13
    ("json", DEEP, {}, json_error(DEEP)),
    (
        "json",
        DEEP,
        {"allow_non_json": True},
        DEEP if json_error(DEEP) is ValueError else RecursionError,
    ),
    ("json", '"x"', {"string_delims": None}, TypeError),
    ("json", "\x01", {"string_delims": [["<s>", "</s>"]]}, ValueError),
    ("json", '"\x02"', {"string_delims": [["<s>", "</s>"]]}, ValueError),
    ("json", '"\x01"', {"string_delims": []}, ValueError),  # raw control char in a string
    ("json", "[NaN, Infinity, -Infinity]", {}, [math.nan, math.inf, -math.inf]),
    ("json", " \n[1]\t", {}, [1]),
    ("json", "\ufeff[1]", {}, ValueError),
    ("json", "[1,]", {}, ValueError),
    ("json", "1" * 5000, {}, ValueError),
    # an over-long integer is not a JSONDecodeError, so allow_non_json does not catch it
    ("json", "1" * 5000, {"allow_non_json": True}, ValueError),
    ("json", "12345678901234567890123", {}, 12345678901234567890123),
    # Q34 json dialect limits
    ("json", "{a:1,b_2:[1]}", {"unquoted_keys": True}, {"a": 1, "b_2": [1]}),
    ("json", "{ a:1}", {"unquoted_keys": True}, ValueError),
    ("json", "{a :1}", {"unquoted_keys": True}, ValueError),
    ("json", '{"k": "x,y:z"}', {"unquoted_keys": True}, ValueError),
    ("json", "{é:1}", {"unquoted_keys": True}, {"é": 1}),
    ("json", "not json", {"allow_non_json": True}, "not json"),
    ("json", " not json ", {"allow_non_json": True, "strip": False}, " not json "),
    ("json", " not json ", {"allow_non_json": 0}, ValueError),
    (
        "json",
        '{"code": <s>a "quoted"\nline</s>}',
        {"string_delims": [["<s>", "</s>"]]},
        {"code": 'a "quoted"\nline'},
    ),
    (
        "json",
        "{a: <<x>>,b: [[y]]}",
        {"string_delims": [["<<", ">>"], ["[[", "]]"]], "unquoted_keys": True},
        {"a": "x", "b": "y"},
    ),
    # the second pair captures the first pair's marker, which is then never restored
    ("json", "[<<x>>]", {"string_delims": [["<<", ">>"], ["[", "]"]]}, "\x010\x02"),
    ("json", "{ a:1}", {"string_delims": [["{", "}"]], "unquoted_keys": True}, " a:1"),
    ("json", "<s>x</s>", {"string_delims": [["<s>"]]}, ValueError),
    ("json", "<s>x</s>", {"string_delims": [["<s>", "</s>", "!"]]}, ValueError),
    ("json", "<x>", {"string_delims": ["<>"]}, "x"),
    ("json", "1", {"string_delims": [[1, 2]]}, TypeError),
    ("json", "1", {"string_delims": [[b"a", "b"]]}, TypeError),
    ("json", "ab", {"string_delims": [["", ""]]}, ValueError),
    ("json", "1", {"string_delims": 5}, TypeError),
    ("json", "\x01", {"string_delims": None}, TypeError),
    ("json", "[1]", {"string_delims": {"ab": 1}}, [1]),
    ("json", '"é\\u00e9"', {"string_delims": [["<", ">"]]}, "éé"),
    ("json", '{"a": <é\u2028>}', {"string_delims": [["<", ">"]]}, {"a": "é\u2028"}),
    # Q36 xml-inline edge cases
    ("xml-inline", "<a>1</a>", {}, ValueError),
    ("xml-inline", "<a>1</a>", {"tag_pattern": None}, ValueError),
    ("xml-inline", "", {"tag_pattern": "(?P<key"}, regex.error),
    ("xml-inline", "x", {"tag_pattern": 5}, TypeError),
    ("xml-inline", "x", {"tag_pattern": "(?P<k>x)"}, ValueError),
    ("xml-inline", "y", {"tag_pattern": "(?P<k>x)"}, {}),
    ("xml-inline", "<a>", {"tag_pattern": r"<(?P<key>\w+)>"}, {"a": ""}),
    (
        "xml-inline",
        "<a>",
        {"tag_pattern": r"<(?P<key>\w+)>(?P<value>x)?"},
        {"a": None},
    ),
    (
        "xml-inline",
        "<a>",
        {"tag_pattern": r"<(?P<key>\w+)>(?P<value>x)?", "value_parser": {}},
        AttributeError,
    ),
    (
        "xml-inline",
        "<a>",
        {
            "tag_pattern": r"<(?P<key>\w+)>(?P<value>x)?",
            "value_parser": {"args": {"strip": False}},
        },
        {"a": None},
    ),
    (
        "xml-inline",
        "<a>",
        {
            "tag_pattern": r"<(?P<key>\w+)>(?P<value>x)?",
            "value_parser": {"name": "int", "args": {"strip": False}},
        },
        TypeError,
    ),
    (
        "xml-inline",
        "<a>[1,2]</a><a>3</a>",
        {
            "tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>",
            "value_parser": {"name": "json"},
            "merge_duplicates": True,
        },
        {"a": [1, 2, 3]},
    ),
    (
        "xml-inline",
        "<a>1</a><b>2</b><a>3</a><a>4</a>",
        {
            "tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>",
            "merge_duplicates": True,
        },
        {"a": ["1", "3", "4"], "b": "2"},
    ),
    (
        "xml-inline",
        "<a>1</a><b>2</b><a>3</a>",
        {"tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>"},
        {"a": "3", "b": "2"},
    ),
    (
        "xml-inline",
        "<a>\n x \n</a>",
        {"tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>"},
        {"a": "\n x \n"},
    ),
    (
        "xml-inline",
        "<a>1</a>",
        {"tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>", "value_parser": "int"},
        AttributeError,
    ),
    (
        "xml-inline",
        "<a>1</a>",
        {
            "tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>",
            "value_parser": {"name": "nope"},
        },
        KeyError,
    ),
    (
        "xml-inline",
        "<a>1</a>",
        {
            "tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>",
            "value_parser": {"name": ["unhashable"]},
        },
        TypeError,
    ),
    (
        "xml-inline",
        "<a>1</a>",
        {
            "tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>",
            "value_parser": {"name": "int", "args": None},
        },
        AttributeError,
    ),
    ("xml-inline", "", {"tag_pattern": r"(?P<key>)"}, {"": ""}),
    ("xml-inline", "ab", {"tag_pattern": r"(?P<key>)"}, {"": ""}),
    # Q37 kv-lines
    ("kv-lines", "a:1 b:2\tc: 3", {"line_sep": None}, {"a": "1", "b": "2", "c": ""}),
    ("kv-lines", "a:1\nb", {"kv_sep": ""}, ValueError),
    ("kv-lines", "", {"kv_sep": ""}, {}),
    ("kv-lines", " \n ", {"kv_sep": ""}, {}),
    ("kv-lines", "a", {"kv_sep": None}, TypeError),
    ("kv-lines", "", {"kv_sep": None}, {}),
    ("kv-lines", "a", {"line_sep": ""}, ValueError),
    ("kv-lines", "a", {"line_sep": 1}, TypeError),
    ("kv-lines", " a : 1 : 2 \nb:\n:c\n\nd:4\na:5", {}, {"a": "5", "b": "", "": "c", "d": "4"}),
    ("kv-lines", " a : 1 \n", {"strip": False}, {" a ": " 1 "}),
    ("kv-lines", "a=1;b = 2", {"line_sep": ";", "kv_sep": "="}, {"a": "1", "b": "2"}),
    ("kv-lines", "a: 1\nb: x", {"value_parser": {"name": "int"}}, ValueError),
    ("kv-lines", "a: 1\nb: [2]", {"value_parser": {"name": "json"}}, {"a": 1, "b": [2]}),
    ("kv-lines", "a: 1", {"value_parser": False}, AttributeError),
]


@pytest.mark.parametrize(("name", "body", "args", "expected"), HAND_PICKED)
def test_hand_picked(name: str, body: str, args: Any, expected: Any) -> None:
    observed = assert_same(name, body, args)
    if isinstance(expected, type) and issubclass(expected, BaseException):
        assert observed == ("raises", expected)
    else:
        assert observed == ("value", canon(expected))


def test_parse_content_dispatch() -> None:
    assert content.parse_content(" 5 ", "int", {}) == 5
    with pytest.raises(KeyError):
        content.parse_content("x", "python-call-list", {})
    with pytest.raises(KeyError):
        reference.parse_content("x", "python-call-list", {})
    with pytest.raises(TypeError):
        content.parse_content("x", ["text"], {})


def test_merge_mutates_a_parsed_list() -> None:
    # The list parsed from the first <a> is the very object that receives the later values.
    args = {
        "tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>",
        "value_parser": {"name": "json"},
        "merge_duplicates": True,
    }
    value = content.parse_xml_inline("<a>[]</a><a>1</a><a>[2]</a>", args)
    assert value == {"a": [1, [2]]}


def test_exception_is_regex_error_not_value_error() -> None:
    with pytest.raises(regex.error) as caught:
        content.parse_xml_inline("x", {"tag_pattern": "("})
    assert not isinstance(caught.value, ValueError)


# --- property tests -------------------------------------------------------------------------

JSON_WORDS = [
    "{", "}", "[", "]", '"', ":", ",", " ", "\n", "a", "b_1", "é", "1", "-2.5e3", "true",
    "null", "NaN", "Infinity", "'", "\\", "\\n", "<s>", "</s>", "<<", ">>", "\x01", "\x02",
    "\x010\x02", "{a:", ",b:", "\t",
]  # fmt: skip
TEXT_WORDS = [
    " ", "\n", "\t", "\xa0", "\u2000", "\x1c", "a", "TRUE", "true", "1", "0", "-", "+", "_",
    "٤", "²", "inf", "nan", "e", ".", "5", "x", ":", "=", ";", ",", "\r\n", "<a>", "</a>",
    "<b>", "</b>", "<a=", ">", "[1]", '"q"', "{", "}",
]  # fmt: skip

STRIPS = st.sampled_from([True, False, None, 0, 1, "", "x"])
DELIMS = st.sampled_from(
    [
        [],
        None,
        [["<s>", "</s>"]],
        [["<<", ">>"], ["<s>", "</s>"]],
        [["<s>", "</s>"], ["<<", ">>"]],
        [["<", ">"]],
        [["[", "]"], ["<<", ">>"]],
        [["", ""]],
        [["a", ""]],
        [["<s>"]],
        [["<s>", "</s>", "x"]],
        ["<>"],
        [[1, "x"]],
        "ab",
        5,
    ]
)
VALUE_PARSERS = st.sampled_from(
    [
        None,
        {},
        {"name": "text"},
        {"name": "int"},
        {"name": "float"},
        {"name": "bool"},
        {"name": "json"},
        {"name": "json", "args": {"allow_non_json": True}},
        {"name": "text", "args": {"strip": False}},
        {"name": "int", "args": {"strip": False}},
        {"name": "kv-lines", "args": {"kv_sep": "="}},
        {"name": "nope"},
        {"name": "text", "args": None},
        "text",
        False,
    ]
)
TAG_PATTERNS = st.sampled_from(
    [
        r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>",
        r"<(?P<key>\w+)>(?P<value>[^<]*)",
        r"<(?P<key>\w+)=(?P<value>[^>]*)?>",
        r"<(?P<key>\w*)>",
        r"<(?P<key>a)?(?P<value>b)?>",
        r"(?P<value>\d)",
        r"<(?P<k>\w+)>",
        r"(?P<key>)",
        r"(?P<key",
        r"[",
        None,
        3,
    ]
)


def _words(words: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(words), max_size=12).map("".join)


def _maybe(key: str, values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(st.just({}), values.map(lambda value: {key: value}))


def _args(*parts: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    def merge(dicts: tuple[dict[str, Any], ...]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for part in dicts:
            merged.update(part)
        return merged

    return st.tuples(*parts).map(merge)


JSON_KEYS = st.sampled_from(["a", "b_1", "é", "x y", "1", "a,b:c"])
JSON_STRINGS = st.sampled_from(["", "s", 'q"q', "a\nb", "x,y:z", "<s>", "é\u2028", "{a:1}"])
JSON_TREES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**20), 10**20),
        st.floats(allow_nan=True, allow_infinity=True),
        JSON_STRINGS,
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(JSON_KEYS, children, max_size=3)
    ),
    max_leaves=8,
)


def _render_json(tree: Any, style: random.Random) -> str:
    """JSON-like text for ``tree`` in a randomly chosen dialect: bare keys, custom string
    delimiters and odd spacing, so the dialect knobs of the json parser have work to do."""
    if isinstance(tree, dict):
        items = []
        for key, value in tree.items():
            key_text = key if style.random() < 0.4 else json.dumps(key)
            items.append(key_text + style.choice([":", ": ", " :"]) + _render_json(value, style))
        return "{" + style.choice([",", ", "]).join(items) + "}"
    if isinstance(tree, list):
        return "[" + ",".join(_render_json(item, style) for item in tree) + "]"
    if isinstance(tree, str):
        opener, closer = style.choice([('"', '"'), ('"', '"'), ("<s>", "</s>"), ("<<", ">>")])
        return opener + tree + closer if opener != '"' else json.dumps(tree)
    return json.dumps(tree)


JSON_BODIES = st.one_of(
    _words(JSON_WORDS),
    st.tuples(JSON_TREES, st.integers(0, 2**16)).map(
        lambda drawn: _render_json(drawn[0], random.Random(drawn[1]))
    ),
)
XML_BODIES = _words(
    [
        "<a>1</a>", "<b> x </b>", "<a>[1, 2]</a>", "<a>{\"k\": 1}</a>", "<c>true</c>",
        "<a=1>", "<b=>", "<a>", "ab", "\n", " ", "<a>٤</a>", "<b>x: 1\ny=2</b>", "</a>", "<a>b>",
    ]
)  # fmt: skip
KV_BODIES = _words(
    [
        "a: 1", "b:x", "c = 2", "d", ":e", " f : [1] ", "a:7", "g=h;i=j", "", "k: true",
        "\n", "\n", "\n", ";", " ", "\t", "x:y:z", "n=٤",
    ]
)  # fmt: skip

SCALAR_BODIES = st.one_of(_words(TEXT_WORDS), st.text(max_size=8))
SCALAR_ARGS = _args(_maybe("strip", STRIPS))


@settings(derandomize=True, deadline=None, max_examples=300)
@given(name=st.sampled_from(["text", "int", "float", "bool"]), body=SCALAR_BODIES, args=SCALAR_ARGS)
def test_scalar_parsers_match(name: str, body: str, args: Any) -> None:
    assert_same(name, body, args)


@settings(derandomize=True, deadline=None, max_examples=400)
@given(
    body=JSON_BODIES,
    args=_args(
        _maybe("string_delims", DELIMS),
        _maybe("unquoted_keys", st.sampled_from([True, False, 1, None])),
        _maybe("allow_non_json", st.sampled_from([True, False, "yes"])),
        _maybe("strip", STRIPS),
    ),
)
def test_json_parser_matches(body: str, args: Any) -> None:
    assert_same("json", body, args)


@settings(derandomize=True, deadline=None, max_examples=300)
@given(
    body=XML_BODIES,
    args=_args(
        TAG_PATTERNS.map(lambda pattern: {"tag_pattern": pattern}),
        _maybe("value_parser", VALUE_PARSERS),
        _maybe("merge_duplicates", st.sampled_from([True, False, 0, "y"])),
    ),
)
def test_xml_inline_parser_matches(body: str, args: Any) -> None:
    assert_same("xml-inline", body, args)


@settings(derandomize=True, deadline=None, max_examples=300)
@given(
    body=KV_BODIES,
    args=_args(
        _maybe("line_sep", st.sampled_from(["\n", None, ";", ",", "", " ", 7])),
        _maybe("kv_sep", st.sampled_from([":", "=", ": ", "", None, "<a>"])),
        _maybe("strip", STRIPS),
        _maybe("value_parser", VALUE_PARSERS),
    ),
)
def test_kv_lines_parser_matches(body: str, args: Any) -> None:
    assert_same("kv-lines", body, args)


@settings(derandomize=True, deadline=None, max_examples=200)
@given(
    name=st.sampled_from(NAMES),
    body=st.one_of(_words(TEXT_WORDS + JSON_WORDS), st.text(max_size=10)),
    args=st.one_of(
        st.dictionaries(
            st.sampled_from(
                ["strip", "string_delims", "unquoted_keys", "allow_non_json", "tag_pattern"]
                + ["value_parser", "merge_duplicates", "line_sep", "kv_sep", "unknown"]
            ),
            st.one_of(STRIPS, DELIMS, TAG_PATTERNS, VALUE_PARSERS),
            max_size=4,
        ),
        st.sampled_from([None, [], "x"]),
    ),
)
def test_any_parser_with_any_args_matches(name: str, body: str, args: Any) -> None:
    assert_same(name, body, args)
