"""rtc.runtime.tools against transformers 5.23.0's tool typing (the oracle).

The reference reads tools in ``ResponseParser.__init__`` (observed via its ``_tool_params``)
and coerces with ``_coerce_tool_calls`` / ``_schema_types`` / ``_coerce``. Results are
compared together with the (mutated) input, recording object identity, so "coerced in place"
and aliasing (quirk Q45) are checked, not just equality.
"""

from __future__ import annotations

import copy
import functools
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ids import stable_repr
from limits import DEEP, json_error, too_deep
from transformers.utils.chat_parsing import response_parser as reference

from rtc.runtime import tools

pytestmark = pytest.mark.core

TEMPLATE = {"start_anchor": "<A>", "fields": {"content": {}}}


def canon(value: Any, seen: dict[int, int]) -> Any:
    """Comparable form: types kept, NaN == NaN, and a dict/list met again is ("alias", n)."""
    if isinstance(value, dict | list):
        if id(value) in seen:
            return ("alias", seen[id(value)])
        seen[id(value)] = len(seen)
        if isinstance(value, dict):
            return ("dict", tuple((canon(k, seen), canon(v, seen)) for k, v in value.items()))
        return ("list", tuple(canon(item, seen) for item in value))
    if isinstance(value, tuple):
        return ("tuple", tuple(canon(item, seen) for item in value))
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def exception_kind(exc: BaseException) -> Any:
    kind = type(exc)
    if kind.__name__ in ("TypeHintParsingException", "DocstringParsingException"):
        return kind.__name__  # our own classes, matched to transformers' by name
    return kind


def reference_parser(tool_list: Any = None) -> Any:
    return reference.ResponseParser(TEMPLATE, prefix="", tools=tool_list)


def read_outcome(read: Any, tool_list: Any) -> Any:
    try:
        params = read(tool_list)
    except Exception as exc:  # the exception kind is the observable
        return ("raises", exception_kind(exc))
    # Identity with the caller's objects matters: the properties dicts are not copied.
    return ("value", canon((tool_list, params), {}))


def assert_same_read(tool_list: Any) -> Any:
    ours = read_outcome(tools.read_tools, tool_list)
    theirs = read_outcome(lambda given: reference_parser(given)._tool_params, tool_list)
    assert ours == theirs, tool_list
    return ours


def coerce_outcome(ours: bool, value: Any, params: dict[str, Any]) -> Any:
    value = copy.deepcopy(value)
    params = copy.deepcopy(params)
    try:
        if ours:
            result = tools.coerce_tool_calls(value, params)
        else:
            parser = reference_parser()
            parser._tool_params = params
            result = parser._coerce_tool_calls(value)
    except Exception as exc:  # the exception type is the observable
        return ("raises", type(exc))
    return ("value", canon((value, result), {}))


def assert_same_coercion(value: Any, params: dict[str, Any]) -> Any:
    ours = coerce_outcome(True, value, params)
    theirs = coerce_outcome(False, value, params)
    assert ours == theirs, (value, params)
    return ours


def call(name: Any, arguments: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


# --- read_tools --------------------------------------------------------------------------


def add(a: int, b: float | None = None) -> float:
    """Add numbers.

    Args:
        a: first
        b: second
    """
    return a + (b or 0)


def undocumented(a: int) -> int:
    return a


def unhinted(a):
    """Missing hint.

    Args:
        a: a
    """


class Service:
    def lookup(self, key: str, limit: int = 3) -> list:
        """Look something up.

        Args:
            key: what
            limit: how many
        """
        return []

    @staticmethod
    def static(n: int) -> int:
        """Static.

        Args:
            n: n
        """
        return n


PROPS = {"x": {"type": "integer"}}
READ_CASES: list[Any] = [
    None,
    [],
    (),
    0,
    "",
    "abc",
    {"function": {"name": "f", "parameters": {"properties": PROPS}}},
    [{"type": "function", "function": {"name": "f", "parameters": {"properties": PROPS}}}],
    [{"name": "f", "parameters": {"type": "object", "properties": PROPS}}],
    [{"function": "f", "name": "g", "parameters": {"properties": PROPS}}],
    [{"function": None, "name": "g"}],
    [{"function": {"name": 1, "parameters": {"properties": PROPS}}}],
    [{"function": {"parameters": {"properties": PROPS}}}],
    [{"function": {"name": "f"}}],
    [{"function": {"name": "f", "parameters": None}}],
    [{"function": {"name": "f", "parameters": {"properties": [1]}}}],
    [{"function": {"name": "f", "parameters": {"properties": {}}}}],
    [{"name": "f", "parameters": {"properties": PROPS}}, {"name": "f"}],
    [{"name": "f"}, {"name": "f", "parameters": {"properties": PROPS}}],
    [{"name": "f", "parameters": {"properties": PROPS}}, {"name": "g", "parameters": {}}],
    [1, "f", None, ["name"], {"type": "function"}],
    [add],
    [add, {"name": "add", "parameters": {"properties": {}}}],
    [Service().lookup, Service.static, Service.lookup],
    [len, Service, functools.partial(add, 1), staticmethod(add)],
    [lambda x: x],
    [undocumented],
    [unhinted],
    [{"name": "ok", "parameters": {"properties": PROPS}}, undocumented],
    5,
    3.5,
]


@pytest.mark.parametrize("tool_list", READ_CASES, ids=stable_repr)
def test_read_tools_matches_reference(tool_list: Any) -> None:
    assert_same_read(tool_list)


def test_read_tools_results() -> None:
    assert tools.read_tools(None) == {}
    assert tools.read_tools("abc") == {}
    with pytest.raises(TypeError):
        tools.read_tools(5)
    wrapper = {"type": "function", "function": {"name": "f", "parameters": {"properties": PROPS}}}
    assert tools.read_tools([wrapper])["f"] is PROPS
    assert tools.read_tools(iter([wrapper])) == {"f": PROPS}
    assert tools.read_tools([add]) == {
        "add": {
            "a": {"type": "integer", "description": "first"},
            "b": {"type": "number", "nullable": True, "description": "second"},
        }
    }
    assert list(tools.read_tools([Service().lookup])["lookup"]) == ["key", "limit"]
    # Q44: callables without a docstring fail while the tools are read
    with pytest.raises(Exception) as caught:
        tools.read_tools([undocumented])
    assert type(caught.value).__name__ == "DocstringParsingException"


# --- schema_types and coerce ---------------------------------------------------------------

SCHEMA_CASES: list[Any] = [
    None,
    "integer",
    ["integer"],
    {},
    {"type": "integer"},
    {"type": ["string", "integer", 5, None, "null"]},
    {"type": 5},
    {"type": "integer", "nullable": True},
    {"type": "null", "nullable": True},
    {"type": ["null"], "nullable": 1},
    {"nullable": True},
    {"nullable": 0},
    {"anyOf": [{"type": "boolean"}, {"type": "integer"}]},
    {"type": "string", "anyOf": [{"type": "integer"}], "oneOf": [{"type": "number"}]},
    {"oneOf": [{"anyOf": [{"type": "array"}, {"type": ["object"]}]}, "integer"]},
    {"anyOf": None, "oneOf": []},
    {"anyOf": "abc"},
    {"anyOf": {"type": "integer"}},
    {"anyOf": 5},
    {"anyOf": [{"type": "integer", "nullable": True}], "nullable": True},
    {"allOf": [{"type": "integer"}], "$ref": "#/x", "enum": [1], "const": 1},
]


@pytest.mark.parametrize("schema", SCHEMA_CASES, ids=stable_repr)
def test_schema_types_matches_reference(schema: Any) -> None:
    try:
        theirs: Any = reference._schema_types(schema)
    except Exception as exc:  # the exception type is the observable
        theirs = type(exc)
        with pytest.raises(theirs):
            tools.schema_types(schema)
    else:
        assert tools.schema_types(schema) == theirs


COERCE_CASES: list[tuple[str, tuple[str, ...], Any]] = [
    # Q42: schema type order decides
    ("1", ("boolean", "integer"), True),
    ("1", ("integer", "boolean"), 1),
    ("1e3", ("integer",), 1000),
    ("3.0", ("integer",), 3),
    ("3.5", ("integer",), "3.5"),
    ("3.5", ("integer", "number"), 3.5),
    ("inf", ("integer", "number", "string"), "inf"),
    ("nan", ("number",), "nan"),
    (" 7 ", ("integer",), 7),
    ("1_000", ("integer",), 1000),
    ("٤٢", ("integer",), 42),
    ("007", ("integer",), 7),
    ("5", ("number",), 5),
    ("5.0", ("number",), 5.0),
    ("-0", ("number",), 0),
    ("1e3", ("number",), 1000),
    ("1.5e3", ("number",), 1500.0),
    ("1" * 5000, ("integer", "number", "array"), "1" * 5000),
    (" TRUE ", ("boolean",), True),
    ("0", ("boolean",), False),
    ("yes", ("boolean",), "yes"),
    (" None ", ("null",), None),
    ("null", ("integer", "null"), None),
    ("nil", ("null",), "nil"),
    ('{"a": 1}', ("object",), {"a": 1}),
    ("[1]", ("object", "array"), [1]),
    ("[1]", ("object",), "[1]"),
    ("NaN", ("array", "number"), "NaN"),
    ("7", ("string", "integer"), 7),
    ("7", ("string",), "7"),
    ("7", ("unknown", "integer"), 7),
    ("7", (), "7"),
]


@pytest.mark.parametrize(("raw", "types", "expected"), COERCE_CASES)
def test_coerce_cases(raw: str, types: tuple[str, ...], expected: Any) -> None:
    ours = tools.coerce(raw, types)
    theirs = reference._coerce(raw, types)
    assert canon(ours, {}) == canon(theirs, {}) == canon(expected, {})


def test_coerce_lets_recursion_errors_through() -> None:
    deep = too_deep()  # nested beyond what json accepts on this interpreter
    for coerce in (tools.coerce, reference._coerce):
        with pytest.raises(RecursionError):
            coerce(deep, ("array",))
    assert tools.coerce(deep, ("integer", "string")) == deep


def test_coerce_of_3000_levels_is_what_the_reference_does_here() -> None:
    # A RecursionError before CPython 3.13; on 3.13 an unclosed array, which no type accepts.
    if json_error(DEEP) is RecursionError:
        for coerce in (tools.coerce, reference._coerce):
            with pytest.raises(RecursionError):
                coerce(DEEP, ("array",))
    else:
        assert tools.coerce(DEEP, ("array",)) == reference._coerce(DEEP, ("array",)) == DEEP


# --- coerce_tool_calls ---------------------------------------------------------------------

PARAMS: dict[str, Any] = {
    "f": {
        "n": {"type": "integer"},
        "x": {"type": "number"},
        "b": {"anyOf": [{"type": "boolean"}, {"type": "integer"}]},
        "s": {"type": "string"},
        "l": {"type": "array", "items": {"type": "integer"}},
        "o": {"type": "object"},
        "m": {"type": ["integer", "null"]},
        "bad": "integer",
        "none": {},
    },
    "empty": {},
}


def test_shape_driven_coercion_in_place() -> None:
    # Q41: any value shaped like a call is coerced, whichever field it came from
    value = call("f", {"n": "7", "s": "7", "x": "1.50", "other": "7"})
    result = tools.coerce_tool_calls(value, PARAMS)
    assert result is value
    assert value["function"]["arguments"] == {"n": 7, "s": "7", "x": 1.5, "other": "7"}
    # ...while a bare {"name", "arguments"} object is left alone
    bare = {"name": "f", "arguments": {"n": "7"}}
    assert tools.coerce_tool_calls(bare, PARAMS) == {"name": "f", "arguments": {"n": "7"}}


def test_aliased_calls_are_coerced_once_and_shared() -> None:
    # Q45: the same call object referenced twice
    shared = call("f", {"n": "1"})
    value = [shared, {"k": shared}, [shared]]
    result = tools.coerce_tool_calls(value, PARAMS)
    assert result is not value and result[0] is shared and result[2][0] is shared
    assert shared["function"]["arguments"] == {"n": 1}


@pytest.mark.parametrize(
    "value",
    [
        call("f", {"n": "7", "x": "2", "b": "1", "s": "1", "m": "null", "o": '{"a": [1]}'}),
        call("f", {"n": 1.5, "x": True, "s": 1.5, "o": {"a": "1"}}),  # Q43: typed stays typed
        call("f", {"n": ["1", "x", 2, None, ["3"]], "l": ["1", "2"], "bad": "1", "none": "1"}),
        call("f", {"n": "1e3", "x": "1e3", "b": "2", "m": " None "}),
        call("f", {"o": "[" * 3000}),
        call("f", {"n": "[" * 3000}),
        call("f", "n=1"),
        call("f", None),
        call(1, {"n": "1"}),
        call("g", {"n": "1"}),
        call("empty", {"n": "1"}),
        {"function": {"name": "f", "arguments": {"n": "1"}, "extra": 1}},
        {"function": [{"name": "f", "arguments": {"n": "1"}}]},
        {"function": "f", "arguments": {"n": "1"}},
        {"name": "f", "arguments": {"n": "1"}},
        [call("f", {"n": "1"}), [call("f", {"x": "2.0"})], "text", None],
        [],
        "text",
        None,
        7,
        {"a": [call("f", {"n": "1"})]},
    ],
    ids=repr,
)
def test_coerce_tool_calls_matches_reference(value: Any) -> None:
    assert_same_coercion(value, PARAMS)


def test_coerce_with_function_tools_end_to_end() -> None:
    params = tools.read_tools([add, Service().lookup])
    value = [call("add", {"a": "2", "b": "None"}), call("lookup", {"key": "7", "limit": "3.0"})]
    result = tools.coerce_tool_calls(value, params)
    assert [item["function"]["arguments"] for item in result] == [
        {"a": 2, "b": None},
        {"key": "7", "limit": 3},
    ]


# --- property tests ----------------------------------------------------------------------------

TYPE_NAMES = ["integer", "number", "boolean", "null", "object", "array", "string", "unknown"]
SCHEMAS = st.recursive(
    st.one_of(
        st.fixed_dictionaries(
            {},
            optional={
                "type": st.sampled_from(TYPE_NAMES)
                | st.lists(st.sampled_from([*TYPE_NAMES, None, 3]), max_size=3),
                "nullable": st.sampled_from([True, False, None, 1, "", "yes"]),
                "enum": st.just([1]),
            },
        ),
        st.sampled_from([None, "integer", 5, []]),
    ),
    lambda children: st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(TYPE_NAMES),
            "anyOf": st.lists(children, max_size=3) | st.sampled_from([None, "ab", {"a": 1}]),
            "oneOf": st.lists(children, max_size=3),
            "nullable": st.booleans(),
        },
    ),
    max_leaves=6,
)
RAWS = st.sampled_from(
    [
        "1", "0", "-0", "3.0", "1e3", "1.5", "1_000", "inf", "-Infinity", "nan", "NaN",
        " true ", "False", "None", "null", " null ", "[1]", "{}", '{"a": 1}', '"s"', "٤٢",
        "abc", "", " 7 ", "0x10", "1" * 5000, "1e400", "5.", ".5", "+1", "1 2", "[1,]",
    ]
) | st.text(alphabet="01.e-+ INnaftrue[]{}\"", max_size=6)  # fmt: skip


@settings(derandomize=True, deadline=None, max_examples=250)
@given(schema=SCHEMAS)
def test_schema_types_property(schema: Any) -> None:
    try:
        theirs: Any = ("value", reference._schema_types(schema))
    except Exception as exc:  # the exception type is the observable
        theirs = ("raises", type(exc))
    try:
        ours: Any = ("value", tools.schema_types(schema))
    except Exception as exc:  # the exception type is the observable
        ours = ("raises", type(exc))
    assert ours == theirs


@settings(derandomize=True, deadline=None, max_examples=400)
@given(raw=RAWS, types=st.lists(st.sampled_from(TYPE_NAMES), max_size=4).map(tuple))
def test_coerce_property(raw: str, types: tuple[str, ...]) -> None:
    assert canon(tools.coerce(raw, types), {}) == canon(reference._coerce(raw, types), {})


ARG_NAMES = st.sampled_from(["n", "x", "b", "s", "l", "o", "m", "z"])
ARG_VALUES = st.one_of(
    RAWS,
    st.lists(st.one_of(RAWS, st.integers(0, 3), st.none()), max_size=3),
    st.sampled_from([1, 1.5, True, None, {"k": "1"}]),
)
TYPED_SCHEMAS = st.one_of(
    st.sampled_from(TYPE_NAMES).map(lambda name: {"type": name}),
    st.lists(st.sampled_from(TYPE_NAMES), min_size=1, max_size=3).map(
        lambda names: {"type": names}
    ),
    SCHEMAS,
)
PARAM_TABLES = st.fixed_dictionaries(
    {"f": st.fixed_dictionaries({name: TYPED_SCHEMAS for name in "nxbslom"})},
    optional={"g": st.dictionaries(ARG_NAMES, SCHEMAS, max_size=4), "h": st.just({})},
)
CALLS = st.builds(
    call,
    st.sampled_from(["f", "f", "f", "g", "h", "zz"]) | st.sampled_from([None, 1]),
    st.dictionaries(ARG_NAMES, ARG_VALUES, max_size=4) | st.sampled_from(["a=1", None, []]),
)
VALUES = st.recursive(
    st.one_of(CALLS, st.sampled_from(["text", None, 3, {"name": "f", "arguments": {"n": "1"}}])),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.sampled_from(["function", "k"]), children, max_size=2),
    ),
    max_leaves=5,
)


@settings(derandomize=True, deadline=None, max_examples=250)
@given(value=VALUES, params=PARAM_TABLES)
def test_coerce_tool_calls_property(value: Any, params: dict[str, Any]) -> None:
    assert_same_coercion(value, params)


@settings(derandomize=True, deadline=None, max_examples=300)
@given(
    name=st.sampled_from(["f", "f", "f", "g", "h"]),
    arguments=st.dictionaries(ARG_NAMES, ARG_VALUES, min_size=1, max_size=4),
    params=PARAM_TABLES,
)
def test_coerce_one_call_property(name: str, arguments: Any, params: dict[str, Any]) -> None:
    assert_same_coercion(call(name, arguments), params)


PROPERTY_TABLES = st.none() | st.dictionaries(ARG_NAMES, SCHEMAS, max_size=2)
FUNCTION_DICTS = st.fixed_dictionaries(
    {},
    optional={
        "type": st.just("function"),
        "name": st.sampled_from(["f", "g", 1, None]),
        "parameters": st.none()
        | st.fixed_dictionaries({}, optional={"properties": PROPERTY_TABLES}),
    },
)
# Odd-sized dicts get the {"function": ...} wrapper, the others stay bare.
TOOL_ENTRIES = FUNCTION_DICTS.map(lambda fn: {"function": fn} if len(fn) % 2 else fn) | (
    st.sampled_from([add, Service().lookup, len, "f", 3, None])
)


@settings(derandomize=True, deadline=None, max_examples=150)
@given(tool_list=st.none() | st.lists(TOOL_ENTRIES, max_size=4))
def test_read_tools_property(tool_list: Any) -> None:
    assert_same_read(tool_list)
