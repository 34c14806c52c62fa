"""``content_spec.read_content``: each kind's arguments read once, and what could not be read.

Whether a specialised parser then equals the general one on random bodies and arguments is
``test_precompiled.py``'s; here, which arguments count and what each reader (content lowering,
the serving facts) is told."""

from __future__ import annotations

from typing import Any

import pytest

from rtc.compiler.content_spec import read_content
from rtc.compiler.lowering.serving import content_cannot_raise
from rtc.compiler.validate import validate

TAG = r"<parameter=(?P<key>[^>\n]+)>\s*(?P<value>.*?)\s*</parameter>"


@pytest.mark.parametrize(
    ("kind", "args", "plain", "problem"),
    [
        ("text", [], False, "its content_args are not an object"),
        ("json", None, False, "its content_args are not an object"),
        ("text", {"strip": 0}, True, None),
        ("json", {"string_delims": [["<", ">"]]}, True, None),
        ("json", {"string_delims": [["<"]]}, False, "its string_delims are not pairs of strings"),
        ("json", {"string_delims": "<>"}, False, "its string_delims are not pairs of strings"),
        ("xml-inline", {}, False, "its tag_pattern is missing or invalid"),
        ("xml-inline", {"tag_pattern": "(?P<key>"}, False, "its tag_pattern is missing or invalid"),
        ("xml-inline", {"tag_pattern": TAG}, True, None),
        # An unreadable value parser: not plain, no problem of the arguments themselves.
        ("xml-inline", {"tag_pattern": TAG, "value_parser": {"name": "yaml"}}, False, None),
        ("kv-lines", {"line_sep": ""}, False, "its line_sep can fail"),
        ("kv-lines", {"line_sep": None, "kv_sep": 3}, False, "its kv_sep can fail"),
        ("kv-lines", {"line_sep": None}, True, None),
        ("kv-lines", {"value_parser": "json"}, False, None),
    ],
)
def test_what_is_read(kind: str, args: Any, plain: bool, problem: str | None) -> None:
    spec = read_content(kind, args)
    assert (spec.kind, spec.args, spec.plain, spec.problem) == (kind, args, plain, problem)


def test_values_read() -> None:
    spec = read_content(
        "json", {"string_delims": [["'", "'"]], "unquoted_keys": 1, "allow_non_json": True}
    )
    assert spec.string_delims == (("'", "'"),)
    assert (spec.unquoted_keys, spec.allow_non_json, spec.strip) == (True, True, True)
    spec = read_content(
        "xml-inline",
        {"tag_pattern": TAG, "merge_duplicates": True, "value_parser": {"name": "int"}},
    )
    assert spec.merge_duplicates and spec.tag_pattern == TAG
    assert spec.value is not None and spec.value.kind == "int" and spec.value.args == {}
    spec = read_content("kv-lines", {"line_sep": ";", "kv_sep": "=", "strip": False})
    assert (spec.line_sep, spec.kv_sep, spec.strip, spec.value) == (";", "=", False, None)
    # A value parser whose own arguments cannot be read makes the whole spec unreadable.
    bad = {"name": "json", "args": {"string_delims": 1}}
    spec = read_content("kv-lines", {"value_parser": bad})
    assert not spec.plain and not spec.value_ok and spec.value is None


def _field(content: str, args: Any) -> Any:
    template = {
        "start_anchor": "<|assistant|>",
        "fields": {
            "tool_calls": {
                "open": "<call>",
                "close": "</call>",
                "content": content,
                "content_args": args,
            }
        },
    }
    return validate(template).fields[0]


@pytest.mark.parametrize(
    ("content", "args", "why"),
    [
        ("text", {}, None),
        ("text", "x", "its content_args are not an object"),
        ("json", {}, "its json content can be rejected"),
        ("kv-lines", {"kv_sep": ""}, "its kv_sep can fail"),
        ("kv-lines", {"value_parser": {"name": "bool"}}, None),
        ("kv-lines", {"value_parser": {"name": "json"}}, "its value parser can fail"),
        ("xml-inline", {"tag_pattern": "["}, "its tag_pattern is missing or invalid"),
        ("xml-inline", {"tag_pattern": "(?P<key>a)?b"}, "its tag_pattern may match without a key"),
        (
            "xml-inline",
            {"tag_pattern": TAG, "value_parser": {"name": "?"}},
            "its value parser can fail",
        ),
        (
            "xml-inline",
            {"tag_pattern": "(?P<key>a)(?P<value>b)?", "value_parser": {"name": "text"}},
            "its value parser can be given no value",
        ),
        ("xml-inline", {"tag_pattern": TAG}, None),
    ],
)
def test_serving_reads_the_spec(content: str, args: Any, why: str | None) -> None:
    assert content_cannot_raise(_field(content, args)) == why
