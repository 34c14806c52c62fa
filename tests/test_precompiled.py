"""Precompiled content parsers (``rtc.compiler.lowering.content``) against the general ones.

A generated module reads ``content_args`` at compile time where they are plain data and calls
``json_with`` / ``xml_inline_with`` / ``kv_lines_with`` with precompiled patterns; everywhere
else it calls the general runtime parser (``rtc.runtime.content.PARSERS``, itself checked
against transformers in ``test_content_parsers``). Here both run on random bodies and arguments
(every key and oddity of ``tests/strategies.contents``, plus bodies aimed at the shortcuts) and
must give the same value or the same exception type; transformers' own parser is the third
opinion.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import contents
from test_content_parsers import canon
from test_prefilter import SETTINGS

from rtc.compiler import compile_template, load
from rtc.runtime import content

reference = pytest.importorskip("transformers.utils.chat_parsing.content_parsers")

EXTRA_BODIES = [
    "",
    "   ",
    "Paris, France",
    "celsius",
    "\ufeff1",
    "\ufeff{}",
    " \t\n-1",
    "-x",
    "-Infinity",
    "NaN",
    "nul",
    "Infinity",
    "٤٢",
    "'quoted'",
    "[1, 'a']",
    "{'k': 'v'}",
    "{a:1,\"b\":'x,y:z'}",
    "<x>'1'</x><y>2</y>",
    "<p=x> 'a b' </p>",
    "x='1',y=[2]",
    "k: 'v'\nk2: 3",
    "\x01",
    "{" * 50,
]


def _template(spec: dict[str, Any]) -> dict[str, Any]:
    return {"start_anchor": "<A>", "fields": {"x": {"open": "<x>", "close": "</x>", **spec}}}


def _outcome(fn: Any, body: Any) -> Any:
    try:
        return ("value", canon(fn(body)))
    except Exception as exc:  # the exception type is the observable
        return ("raises", type(exc))


@SETTINGS
@given(data=st.data())
def test_precompiled_parser_is_the_general_parser(data: st.DataObject) -> None:
    spec, bodies = data.draw(contents(), label="content")
    spec = {k: v for k, v in spec.items() if k in ("content", "content_args")}
    kind = spec.get("content", "text")
    args = spec.get("content_args", {})
    module = load(_template(spec))
    finish = module._finish_x
    body = data.draw(st.sampled_from(bodies + EXTRA_BODIES), label="body")
    ours = _outcome(lambda b: finish(b, {}), body)
    general = _outcome(lambda b: content.parse_content(b, kind, copy.deepcopy(args)), body)
    theirs = _outcome(
        lambda b: reference.CONTENT_PARSERS[kind](b, copy.deepcopy(args)),
        body,
    )
    assert ours == general == theirs, (kind, args, body)


PRECOMPILED = [
    ("json", {"unquoted_keys": True, "string_delims": [['<|"|>', '<|"|>']]}, "json_with"),
    ("json", {}, "json_value"),
    ("json", {"allow_non_json": True, "strip": False}, "json_or_text"),
    ("json", {"allow_non_json": True, "unquoted_keys": True}, "json_with"),
    # Without merging, with both groups: the loop written out as _tags_x (values inline).
    ("xml-inline", {"tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>"}, "_tags_x"),
    (
        "xml-inline",
        {"tag_pattern": r"(?P<key>\w+)=(?P<value>[^,]*)", "value_parser": {"name": "int"}},
        "_tags_x",
    ),
    (
        "xml-inline",
        {"tag_pattern": r"(?P<key>\w+)=(?P<value>[^,]*)", "merge_duplicates": True},
        "xml_inline_with",
    ),
    ("xml-inline", {"tag_pattern": r"(?P<key>\w+)=[^,]*"}, "xml_inline_with"),
    ("kv-lines", {"line_sep": None, "kv_sep": "="}, "kv_lines_with"),
]
GENERAL = [
    ("json", {"string_delims": None}),
    ("json", {"string_delims": [["a"]]}),
    ("json", []),
    ("xml-inline", {}),
    ("xml-inline", {"tag_pattern": "("}),
    ("xml-inline", {"tag_pattern": r"(?P<key>\w+)", "value_parser": {"name": "nope"}}),
    ("xml-inline", {"tag_pattern": r"(?P<key>\w+)", "value_parser": "json"}),
    ("kv-lines", {"kv_sep": ""}),
    ("kv-lines", {"line_sep": ""}),
]


@pytest.mark.parametrize(("kind", "args", "call"), PRECOMPILED)
def test_plain_arguments_are_precompiled(kind: str, args: Any, call: str) -> None:
    source = compile_template(_template({"content": kind, "content_args": args}))
    assert f"content = {call}(" in source.replace("\n        ", "")
    assert "_ARGS_X" not in source  # no arguments left to read at run time


@pytest.mark.parametrize(("kind", "args"), GENERAL)
def test_arguments_that_fail_keep_the_general_parser(kind: str, args: Any) -> None:
    source = compile_template(_template({"content": kind, "content_args": args}))
    parser = content.PARSERS[kind].__name__
    assert f"content = {parser}(body, _ARGS_X)" in source


def test_precompiled_patterns_are_named_constants_with_their_argument() -> None:
    template = _template(
        {
            "content": "xml-inline",
            "content_args": {
                "tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>",
                "value_parser": {"name": "json", "args": {"string_delims": [["«", "»"]]}},
            },
        }
    )
    source = compile_template(template)
    assert "# content_args of 'x': tag_pattern\n_X_TAG_PATTERN = regex.compile(" in source
    assert "# content_args of 'x': value_parser: string_delims '\\xab'...'\\xbb'\n" in source
    assert "_X_VALUE_STRING_DELIMS = (" in source
    # The value parser's expression sits in the written-out loop (no function per value).
    assert "def _tags_x(body: str) -> dict[str, Any]:" in source
    assert "result[key] = json_with(raw, _X_VALUE_STRING_DELIMS," in source


def test_shortcuts_are_exact_on_edge_bodies() -> None:
    """The two steps json_with skips: an opener that does not occur, a text that cannot begin
    a JSON value (allow_non_json); every other path runs json.loads as the reference does."""
    delims = ((("'", content.regex.compile("'(.*?)'", content.regex.DOTALL))),)
    for body in EXTRA_BODIES + ["'a' 1", " 7 ", "\t[1]", "tru", "true", "-", "0x1", None]:
        for non_json, args in (
            (1, {"allow_non_json": True}),
            (2, {"allow_non_json": True, "strip": False}),
            (0, {}),
        ):
            for pairs, more in ((delims, {"string_delims": [["'", "'"]]}), ((), {})):
                want = _outcome(lambda b, a={**args, **more}: content.parse_json(b, a), body)
                if not pairs:
                    if non_json:
                        strip = non_json == 1
                        got = _outcome(lambda b, s=strip: content.json_or_text(b, s), body)
                    else:
                        got = _outcome(content.json_value, body)
                    assert got == want, (body, args)
                got = _outcome(
                    lambda b, p=pairs, n=non_json: content.json_with(b, p, False, n), body
                )
                assert got == want, (body, args, more)


@SETTINGS
@given(text=st.text(alphabet=st.sampled_from(",{}:\"' _aZ9é²٤\u0301\n-"), max_size=24))
def test_a_bare_key_needs_a_word_character_after_a_comma_or_brace(text: str) -> None:
    """The implication json_with relies on to skip the bare-key rewrite: no ``[,{]\\w`` in the
    text, no match of the rewrite's pattern (so the rewrite would change nothing)."""
    if content._BARE_KEY_START.search(text) is None:
        assert content._BARE_KEY.search(text) is None, text
        assert content._BARE_KEY.sub(r'"\1":', text) == text
    for pairs in ((), ((("'", content.regex.compile("'(.*?)'", content.regex.DOTALL))),)):
        args: dict[str, Any] = {"unquoted_keys": True, "allow_non_json": True}
        if pairs:
            args["string_delims"] = [["'", "'"]]
        want = _outcome(lambda b, a=args: content.parse_json(b, copy.deepcopy(a)), text)
        got = _outcome(lambda b, p=pairs: content.json_with(b, p, True, 1), text)
        assert got == want, (text, pairs)
