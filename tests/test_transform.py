"""rtc.runtime.transform against transformers 5.23.0 (the oracle).

Results are compared together with the scope they were rendered from, recording object
identity, so "inserted by reference" (quirk Q45) is checked, not just equality.
"""

from __future__ import annotations

import copy
import json
import math
import re
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers.utils.chat_parsing import content_parsers as reference

from rtc.compiler import load
from rtc.runtime import transform
from rtc.runtime.content import parse_json

pytestmark = pytest.mark.core


def canon(value: Any, seen: dict[int, int]) -> Any:
    """Comparable form: types kept, NaN == NaN, and a dict/list met again is ("alias", n)."""
    if isinstance(value, dict | list):
        if id(value) in seen:
            return ("alias", seen[id(value)])
        seen[id(value)] = len(seen)
        if isinstance(value, dict):
            return ("dict", tuple((k, canon(v, seen)) for k, v in value.items()))
        return ("list", tuple(canon(item, seen) for item in value))
    if isinstance(value, tuple):
        return ("tuple", tuple(canon(item, seen) for item in value))
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def render_outcome(render: Any, template: Any, scope: dict[str, Any]) -> Any:
    try:
        result = render(template, scope)
    except Exception as exc:  # the exception type is the observable
        return ("raises", type(exc))
    # The scope goes first, so result objects taken from it show up as aliases.
    return ("value", canon((scope, result), {}))


def assert_same_render(template: Any, scope: dict[str, Any]) -> Any:
    ours = render_outcome(transform.render, template, scope)
    theirs = render_outcome(reference._apply_transform, template, scope)
    assert ours == theirs, (template, scope)
    return ours


def apply_outcome(ours: bool, value: Any, template: Any, each: Any, captures: Any) -> Any:
    body = json.dumps(value)
    try:
        if ours:
            parsed = parse_json(body, {})
            result = transform.apply("f", parsed, template, each, captures)
        else:
            field = SimpleNamespace(
                name="f",
                content="json",
                content_args={},
                transform=template,
                transform_each=each,
            )
            result = reference.process_field(body, field, captures)
    except Exception as exc:  # the exception type is the observable
        return ("raises", type(exc))
    return ("value", canon(result, {}))


def assert_same_apply(value: Any, template: Any, each: Any, captures: dict[str, Any]) -> Any:
    ours = apply_outcome(True, value, template, each, copy.deepcopy(captures))
    theirs = apply_outcome(False, value, template, each, copy.deepcopy(captures))
    assert ours == theirs, (value, template, each, captures)
    return ours


def problem_of_reference(template: Any) -> str | None:
    """The string the reference rejects first, or None if it accepts the template."""
    try:
        reference.validate_transform_strings("field 'f'", template)
    except ValueError as exc:
        found = re.search(r"transform string (.*) mixes a", str(exc), re.DOTALL)
        assert found is not None
        return found.group(1)
    return None


def assert_same_validation(template: Any) -> None:
    theirs = problem_of_reference(template)
    ours = transform.transform_problem(template)
    if theirs is None:
        assert ours is None, template
    else:
        assert ours is not None and theirs in ours, (template, ours, theirs)


# --- the placeholder syntax -------------------------------------------------------------

PLACEHOLDER_CASES = [
    "{a}", "{a.b.c}", "{content}", "{_}", "{0}", "{é}", "{e\u0301}", "{²}", "{٤}",
    "{}", "{a-b}", "{ x }", "{{x}}", "{a}{b}", "pre {x}", "{x} post", "{a.}", "{.a}",
    "{a..b}", "{a}\n", "\n{a}", "{a.b-c}", "{\u200c}", "{a\u200d}", "x", "",
]  # fmt: skip


@pytest.mark.parametrize("text", PLACEHOLDER_CASES)
def test_placeholder_syntax_matches_reference(text: str) -> None:
    ours = transform.PLACEHOLDER
    theirs = reference._PLACEHOLDER
    assert bool(ours.fullmatch(text)) == bool(theirs.fullmatch(text))
    assert bool(ours.search(text)) == bool(theirs.search(text))
    assert_same_validation(text)
    assert_same_validation({"k": [1, {"j": text}]})
    assert_same_render(text, {"a": {"b": {"c": 1}}, "é": 2, "e\u0301": 3, "²": 4, "٤": 5})


def test_placeholder_uses_regex_word_rules() -> None:
    # `re` and `regex` disagree on these: the reference uses `regex`.
    assert transform.PLACEHOLDER.fullmatch("{²}") is None
    assert transform.PLACEHOLDER.fullmatch("{e\u0301}") is not None


# --- render ------------------------------------------------------------------------------


def test_values_are_inserted_by_reference() -> None:
    # Q45: a value referenced twice is one shared object
    content = {"name": "f", "arguments": {"x": "1"}}
    result = transform.render(
        {"a": "{content}", "b": ["{content}"], "c": "{content.arguments}"}, {"content": content}
    )
    assert result["a"] is content
    assert result["b"][0] is content
    assert result["c"] is content["arguments"]


def test_structure_is_copied_and_keys_are_literal() -> None:
    template = {"{content}": ["{content}", 7, None], "k": {"x": True}}
    result = transform.render(template, {"content": "v"})
    assert result == {"{content}": ["v", 7, None], "k": {"x": True}}
    assert result is not template and result["k"] is not template["k"]


@pytest.mark.parametrize(
    ("template", "scope", "expected"),
    [
        # Q32: keys are literal, scalars and tuples are constants
        ({"{content}": 7}, {"content": 1}, {"{content}": 7}),
        (7, {}, 7),
        (None, {}, None),
        (1.5, {}, 1.5),
        ((1, "{content}"), {"content": 1}, (1, "{content}")),
        # Q33: dotted paths cannot index lists or strings
        ("{content.0}", {"content": [1]}, ValueError),
        ("{content.a}", {"content": "abc"}, ValueError),
        ("{content.a.b}", {"content": {"a": None}}, ValueError),
        ("{content.a}", {"content": {"b": 1}}, ValueError),
        ("{content.a}", {"content": {"a": [1]}}, [1]),
        ("{nothere}", {"content": 1}, KeyError),
        ("{nothere.a}", {}, KeyError),
        ("{content}", {"content": None}, None),
        ("{{content}}", {"content": 1}, "{{content}}"),
        ("pre {content}", {"content": 1}, "pre {content}"),
        ({"a": ["{x}", {"b": "{y.z}"}]}, {"x": 1, "y": {"z": [2]}}, {"a": [1, {"b": [2]}]}),
    ],
)
def test_render_cases(template: Any, scope: dict[str, Any], expected: Any) -> None:
    observed = assert_same_render(template, scope)
    if isinstance(expected, type):
        assert observed == ("raises", expected)
    else:
        assert transform.render(template, scope) == expected


# --- apply ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "template", "each", "captures", "expected"),
    [
        ({"a": 1}, None, False, {}, {"a": 1}),
        ({"a": 1}, None, True, {}, {"a": 1}),
        ("x", "{content}", False, {"name": "n"}, "x"),
        # Q30: a capture named content is shadowed
        ("x", {"c": "{content}", "n": "{name}"}, False, {"content": "cap", "name": "n"},
         {"c": "x", "n": "n"}),
        # Q28/Q29: only captures given are in scope
        ("x", "{missing}", False, {"name": "n"}, KeyError),
        # Q31: transform_each scope lacks content
        ([{"a": 1}], "{content}", True, {}, KeyError),
        ([{"a": 1}, {"a": 2}], {"v": "{a}", "n": "{name}"}, True, {"name": "n"},
         [{"v": 1, "n": "n"}, {"v": 2, "n": "n"}]),
        ([{"name": "elem"}], "{name}", True, {"name": "cap"}, ["elem"]),
        ([{"content": 5}], "{content}", True, {}, [5]),
        ([], "{a}", True, {}, []),
        ({"a": 1}, "{a}", True, {}, ValueError),
        ("[1]", "{a}", True, {}, ValueError),
        ([{"a": 1}, 2], "{a}", True, {}, ValueError),
        ([{"a": 1}, [2]], "{a}", True, {}, ValueError),
        ([{"a": {"b": 1}}], "{a.c}", True, {}, ValueError),
        (3, 7, False, {}, 7),
    ],
)  # fmt: skip
def test_apply_cases(value: Any, template: Any, each: bool, captures: Any, expected: Any) -> None:
    observed = assert_same_apply(value, template, each, captures)
    if isinstance(expected, type):
        assert observed == ("raises", expected)
    else:
        assert observed == ("value", canon(expected, {}))


def test_apply_without_transform_returns_the_same_object() -> None:
    value = {"a": [1]}
    assert transform.apply("f", value, None, False, {"x": "1"}) is value


def test_apply_scope_is_fresh_each_element() -> None:
    value = [{"a": {"k": 1}}, {"a": {"k": 2}}]
    result = transform.apply("f", value, {"x": "{a}"}, True, {})
    assert result[0]["x"] is value[0]["a"] and result[1]["x"] is value[1]["a"]


# --- transform_problem ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        "pre {x}", "{a}{b}", "{{x}}", "{x}!", "{}", "{a-b}", "{ x }", "plain", 5, None,
        {"{bad key}": "fine"},
        {"a": "{ok}", "b": ["x", {"c": "no {way}"}], "d": "{a}{b}"},
        [["{a.b}", "{a.b.}"]],
        {"k": ("tuple {x}",)},
        [{"a": "{a}"}, "{x} {y}"],
    ],
)  # fmt: skip
def test_transform_problem_cases(template: Any) -> None:
    assert_same_validation(template)


def test_transform_problem_reports_the_first_bad_string() -> None:
    problem = transform.transform_problem({"a": ["ok", "first {x}"], "b": "second {y}"})
    assert problem is not None and "'first {x}'" in problem and "second" not in problem


# --- property tests ----------------------------------------------------------------------------

STRINGS = st.sampled_from(
    PLACEHOLDER_CASES
    + ["{content}", "{content.a}", "{content.a.b}", "{content.l}", "{name}", "{x.y}"]
    + ["{content.a.0}", "{e\u0301.k}", "{²}"]
    + ["{a.a}", "{a.k}", "{a.b.k}", "{content.k.a}", "{content.content}", "{k.l}"]
)
KEYS = st.sampled_from(["a", "b", "l", "k", "{content}", "content", "name", "x"])
LEAVES = st.one_of(STRINGS, st.integers(-3, 3), st.none(), st.booleans(), st.just(1.5))
TEMPLATES = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(KEYS, children, max_size=3)
    ),
    max_leaves=10,
)
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["", "s", "é"])),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(KEYS, children, max_size=3)
    ),
    max_leaves=8,
)
SCOPE_VALUES = st.one_of(
    st.dictionaries(KEYS, JSON_VALUES, min_size=1, max_size=3),
    st.lists(JSON_VALUES, max_size=3),
    JSON_VALUES,
)
SCOPES = st.fixed_dictionaries(
    {"content": SCOPE_VALUES, "a": SCOPE_VALUES},
    optional={"x": SCOPE_VALUES, "name": SCOPE_VALUES, "²": SCOPE_VALUES, "k": SCOPE_VALUES},
)
PARSED_VALUES = st.one_of(
    st.lists(st.dictionaries(KEYS, SCOPE_VALUES, max_size=3), max_size=3), SCOPE_VALUES
)
CAPTURES = st.dictionaries(
    st.sampled_from(["name", "x", "content", "a", "²", "e\u0301"]),
    st.sampled_from(["v", "", "1"]),
    max_size=3,
)


@settings(derandomize=True, deadline=None, max_examples=400)
@given(template=TEMPLATES, scope=SCOPES)
def test_render_matches_reference(template: Any, scope: dict[str, Any]) -> None:
    assert_same_render(template, scope)


@settings(derandomize=True, deadline=None, max_examples=400)
@given(
    value=PARSED_VALUES,
    template=st.one_of(st.none(), TEMPLATES),
    each=st.booleans(),
    captures=CAPTURES,
)
def test_apply_matches_reference(value: Any, template: Any, each: bool, captures: Any) -> None:
    assert_same_apply(value, template, each, captures)


@settings(derandomize=True, deadline=None, max_examples=400)
@given(
    template=st.recursive(
        st.one_of(LEAVES, st.text(alphabet="{}.ab_ -\n²", max_size=8)),
        lambda children: st.one_of(
            st.lists(children, max_size=3),
            st.dictionaries(st.text(alphabet="{}ab", max_size=4), children, max_size=3),
        ),
        max_leaves=10,
    )
)
def test_transform_problem_matches_reference(template: Any) -> None:
    assert_same_validation(template)


def compiled_outcome(value: Any, template: Any, each: Any, captures: Any) -> Any:
    """What a generated module's field value gives: its transform inline (rtc.compiler.lowering
    .fields), each element rendered in place with transform_each."""
    spec = {"open": "<f>", "close": "</f>", "content": "json", "transform": template}
    if each:
        spec["transform_each"] = each
    module = load({"start_anchor": "<A>", "fields": {"f": spec}})
    try:
        result = module._finish_f(json.dumps(value), captures)
    except Exception as exc:  # the exception type is the observable
        return ("raises", type(exc))
    return ("value", canon(result, {}))


# Lists of dicts (what transform_each renders) more often, and captures that share keys with
# the elements, so that which of the two a root is read from shows.
ELEMENTS = st.lists(st.dictionaries(KEYS, SCOPE_VALUES, max_size=3), min_size=1, max_size=3)
SHARED_CAPTURES = st.dictionaries(
    st.sampled_from(["name", "x", "content", "a", "k"]), st.sampled_from(["v", "1"]), max_size=3
)
ROOTED = st.dictionaries(
    st.sampled_from(["n", "m"]),
    st.sampled_from(["{name}", "{x}", "{a}", "{k}", "{content}", "{a.k}", "{k.l}"]),
    min_size=1,
    max_size=2,
)


@settings(derandomize=True, deadline=None, max_examples=300)
@given(
    value=st.one_of(ELEMENTS, PARSED_VALUES),
    template=st.one_of(ROOTED, TEMPLATES),
    each=st.booleans(),
    captures=st.one_of(SHARED_CAPTURES, CAPTURES),
)
def test_inline_transform_is_the_general_apply(
    value: Any, template: Any, each: bool, captures: Any
) -> None:
    # The property behind inlining transforms (with and without transform_each): the same
    # value, the same aliasing, or the same exception type, as the general path and the
    # reference.
    if template is None or transform.transform_problem(template) is not None:
        return  # not a template that loads
    general = assert_same_apply(value, template, each, captures)
    assert compiled_outcome(value, template, each, copy.deepcopy(captures)) == general


def test_each_element_inline_reads_the_element_before_the_captures() -> None:
    template = {"n": "{name}", "x": "{x.k}", "c": "{content}"}
    value = [{"name": "el", "x": {"k": [1]}}, {"content": 2}]
    captures = {"name": "cap", "x": "no", "content": "c"}
    expected = apply_outcome(False, value, template, True, copy.deepcopy(captures))
    assert expected[0] == "raises"  # the second element has no "x" and the captures' is a str
    value[1]["x"] = {"k": 3}
    expected = apply_outcome(False, value, template, True, copy.deepcopy(captures))
    assert expected == compiled_outcome(value, template, True, copy.deepcopy(captures))
    rendered = [{"n": "el", "x": [1], "c": "c"}, {"n": "cap", "x": 3, "c": 2}]
    assert expected == ("value", canon(rendered, {}))


def test_each_element_inline_checks_elements_in_turn() -> None:
    # An earlier element's missing key (KeyError) comes before a later non-dict (ValueError).
    template = {"n": "{name}"}
    for value, raised in (([{}, 1], KeyError), ([{"name": "a"}, 1], ValueError), ({}, ValueError)):
        assert compiled_outcome(value, template, True, {}) == ("raises", raised)
        assert apply_outcome(False, value, template, True, {}) == ("raises", raised)
