"""Scale limits: big templates must compile, import and parse correctly.

Hundreds of fields, a 200-deep transform, 200-level defaults, 200 KB literal delimiters, a
2000-alternative pattern and big ``content_args``: each compiles, the module (formatted by black
where it matters) is valid Python that imports without a RecursionError or a SyntaxError such as
"too many nested parentheses", and parses like transformers 5.23.0. Where running the reference
would take too long (200 KB delimiters: its regex engine needs seconds per feed), the answer is
checked by construction instead.

No timing assertions: the tests only need to finish. Compile times seen on a 2-CPU machine
(rtc 0.1.0, black 26.10.1) are noted beside each test.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

import pytest
import regex
from reference import Reference, Rtc, Step, diff_steps, load, record_oneshot, record_stream

from rtc.compiler import compile_template
from rtc.compiler import load as rtc_compile_load

pytestmark = [pytest.mark.core, pytest.mark.scale]

pytest.importorskip("transformers")


REF_TIMEOUT = 30.0
"""Big templates are slow to load and scan for the reference: give it time (not a hang)."""


@functools.cache
def _reference() -> Reference:
    return Reference(timeout=REF_TIMEOUT)


@functools.cache
def _rtc() -> Rtc:
    return Rtc(rtc_compile_load)


def compiles(template: dict[str, Any], *, formatted: bool = True) -> Any:
    """Compile ``template`` the way ``rtc compile`` does, check the source, load the module.
    Unformatted, the source is the one ``load`` compiles and runs (once is enough)."""
    if formatted:
        source = compile_template(copy.deepcopy(template), format_code=True)
        compile(source, "<generated>", "exec")
    return rtc_compile_load(copy.deepcopy(template))


def _runs(engine: Any, loaded: Any, text: str, prefix: str, stream: bool) -> list[list[Step]]:
    runs = [[record_oneshot(engine, loaded, text, prefix, None)]]
    runs.append(record_stream(engine, loaded, prefix, None, [text]))
    if stream:
        runs.append(record_stream(engine, loaded, prefix, None, list(text)))
    return runs


def same_as_reference(
    template: dict[str, Any], texts: list[str], prefix: str = "", stream: bool = True
) -> None:
    """One shot, one feed and 1-character feeding of each text: rtc answers like the reference."""
    ref, rtc = _reference(), _rtc()
    ref_state, ref_loaded = load(ref, template)
    rtc_state, rtc_loaded = load(rtc, template)
    assert (ref_state, rtc_state) == ("ok", "ok")
    problems = []
    for text in texts:
        want = _runs(ref, ref_loaded, text, prefix, stream)
        got = _runs(rtc, rtc_loaded, text, prefix, stream)
        for w, g in zip(want, got, strict=True):
            if problem := diff_steps(w, g):
                problems.append(f"{text[:60]!r}: {problem}")
    assert not problems, "\n".join(problems)


# --- many fields --------------------------------------------------------------------------------


def many_fields(n: int) -> dict[str, Any]:
    fields: dict[str, Any] = {
        f"f{i}": {"open": f"<f{i}>", "close": f"</f{i}>", "content": "int" if i % 3 else "text"}
        for i in range(n)
    }
    fields["content"] = {"close": "<|end|>"}
    return {"defaults": {"role": "assistant"}, "start_anchor": "<|a|>", "fields": fields}


def test_hundreds_of_fields() -> None:
    # compile_template: black is nearly all of it, about 0.1 s a field (a module of ~80 lines a
    # field: each field's scanner and end-of-stream search). 120 keeps the suite fast;
    # test_two_thousand_fields_import covers bigger counts without black.
    template = many_fields(120)
    module = compiles(template)
    assert len(module.ResponseParser._names) == 121
    same_as_reference(
        template, ["hi <f119>7</f119> <f0>zero</f0> <f100>x</f100> <f1>1</f1><|end|> tail"]
    )


def test_two_thousand_fields_import() -> None:
    # load (no black): lowering ~1.7 s, Python compiling the 7 MB module ~13 s (one core). The
    # reference takes 2000 regex searches per scan but stays usable.
    template = many_fields(2000)
    compiles(template, formatted=False)
    same_as_reference(template, ["a <f1999>5</f1999> b <f1>1</f1> c"], stream=False)


# --- template data too big or too deep to be written inline -------------------------------------


def _nested_list(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def _nested_dict(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = {"k": leaf}
    return leaf


@pytest.mark.parametrize(
    "template",
    [
        pytest.param(
            {"start_anchor": "S", "fields": {"c": {"optional": _nested_list(13, "v")}}},
            id="deep-optional",
        ),
        pytest.param(
            {"start_anchor": [f"<s{i}>" for i in range(400)], "fields": {"c": {}}},
            id="400-start-anchors",
        ),
        pytest.param(
            {
                "start_anchor": "S",
                "fields": {"c": {"content_args": {f"unused{i}": i for i in range(400)}}},
            },
            id="400-unused-content-args",
        ),
        pytest.param(
            {
                "start_anchor": "S",
                "fields": {"c": {"content_args": {"strip": True, "x": _nested_dict(12, 1)}}},
            },
            id="deep-unused-content-args",
        ),
    ],
)
def test_template_too_big_to_inline_still_imports(template: dict[str, Any]) -> None:
    # TEMPLATE itself is then embedded as JSON text, parsed at import.
    module = compiles(template, formatted=False)
    assert module.TEMPLATE == template
    same_as_reference(template, ["<s7>hi <s399> there"], prefix="old <s3> new")


# --- depth --------------------------------------------------------------------------------------


def test_deep_transform() -> None:
    # compile_template: ~0.1 s each.
    for transform in (_nested_dict(200, "{content}"), _nested_list(200, "{content.a}")):
        template = {
            "start_anchor": "S",
            "fields": {
                "x": {"open": "<x>", "close": "</x>", "content": "json", "transform": transform},
                "content": {},
            },
        }
        compiles(template)
        same_as_reference(template, ['<x>{"a": [1, {"b": 2}]}</x>tail', "<x>[1]</x>"])


def test_deep_transform_each() -> None:
    template = {
        "start_anchor": "S",
        "fields": {
            "calls": {
                "open": "<c>",
                "close": "</c>",
                "content": "json",
                "transform": _nested_dict(200, {"n": "{name}", "a": "{args}"}),
                "transform_each": True,
            }
        },
    }
    compiles(template)
    same_as_reference(template, ['<c>[{"name": "f", "args": {"x": 1}}, {"name": "g"}]</c>'])


def test_deep_defaults() -> None:
    # compile_template: ~0.05 s.
    template = {
        "defaults": {
            "role": "assistant",
            "deep": _nested_dict(200, "leaf"),
            "deeper": _nested_list(200, {"x": [1.5, None, True]}),
        },
        "start_anchor": "S",
        "fields": {"deep": {"open": "<d>", "close": "</d>"}, "content": {}},
    }
    module = compiles(template)
    # Every parser gets its own copy of the defaults.
    first = module.parse_response("hi", prefix="")
    first["deeper"][0].append("mutated")
    assert module.parse_response("hi", prefix="")["deeper"] == template["defaults"]["deeper"]
    same_as_reference(template, ["hi", "<d>x</d>", "<d>  </d>"])


# --- big literal delimiters: checked by construction ----------------------------------------------


def _events_by_field(events: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """Events with consecutive chunks of one field merged (chunking is free in the contract)."""
    out: list[tuple[str, str, Any]] = []
    for event in events:
        kind, field = event["type"], event["field"]
        if kind == "region_chunk" and out and out[-1][:2] == ("region_chunk", field):
            out[-1] = (kind, field, out[-1][2] + event["text"])
        else:
            out.append((kind, field, event.get("text", event.get("value"))))
    return out


def _big(size: int) -> tuple[str, str, str]:
    return "<" + "o" * size + ">", "</" + "c" * size + ">", "<|" + "s" * size + "|>"


def _check_big_delimiters(template: dict[str, Any], size: int, formatted: bool) -> None:
    module = compiles(template, formatted=formatted)
    open_, close, anchor = _big(size)
    prefix = "history " + open_[:-1] + anchor + "pre "
    text = "lead " + open_ + " body " + close + " tail"
    expected = {"content": "tail", "x": "body"}
    expected_events = [
        ("region_open", "content", None),
        ("region_chunk", "content", "pre lead "),
        ("region_close", "content", "pre lead"),
        ("region_open", "x", None),
        ("region_chunk", "x", " body "),
        ("region_close", "x", "body"),
        ("region_open", "content", None),
        ("region_chunk", "content", " tail"),
        ("region_close", "content", "tail"),
    ]
    assert module.parse_response(text, prefix=prefix) == expected
    for piece in (len(text), 4096, 1000):
        parser = module.ResponseParser(prefix)
        events = list(parser.initial_events)
        for i in range(0, len(text), piece):
            events += parser.feed(text[i : i + piece])
        message, final = parser.finalize()
        assert message == expected
        assert _events_by_field(events + final) == expected_events
    # Without the anchor in the prefix, the whole prefix is parsed (the open inside it opens x).
    assert module.parse_response(" tail", prefix="a" + open_ + "b" + close) == {
        "x": "b",
        "content": "tail",
    }


def test_200kb_literal_delimiters() -> None:
    # compile_template: ~2.2 s (black); load: ~0.1 s.
    open_, close, anchor = _big(200_000)
    template = {
        "start_anchor": anchor,
        "fields": {"x": {"open": open_, "close": close}, "content": {}},
    }
    _check_big_delimiters(template, 200_000, formatted=True)


def test_30kb_literal_lists_and_patterns() -> None:
    # Literal lists and patterns go through the regex module, whose compile alone takes about
    # 1 s per 200 KB alternative (in the reference too): at 200 KB, load takes ~6.5 s for these
    # lists and ~5 s for these patterns; 30 KB keeps the suite fast. Not formatted by black.
    size = 30_000
    open_, close, anchor = _big(size)
    lists = {
        "start_anchor": [anchor, anchor + "!"],
        "fields": {
            "x": {"open": [open_, open_ + "!"], "close": [close + "!", close]},
            "content": {},
        },
    }
    _check_big_delimiters(lists, size, formatted=False)
    patterns = {
        "start_anchor_pattern": regex.escape(anchor),
        "fields": {
            "x": {"open_pattern": regex.escape(open_), "close_pattern": regex.escape(close)},
            "content": {},
        },
    }
    _check_big_delimiters(patterns, size, formatted=False)


def test_big_delimiters_small_enough_for_the_reference() -> None:
    # The same shapes at 300 characters, where the reference can be run.
    small = {
        "start_anchor": "<|" + "s" * 300 + "|>",
        "fields": {
            "x": {"open": ["<" + "o" * 300 + ">", "<o"], "close": "</" + "c" * 300 + ">"},
            "content": {},
        },
    }
    text = "lead <" + "o" * 300 + "> body </" + "c" * 300 + "> tail <oo"
    same_as_reference(small, [text], prefix="h <|" + "s" * 300 + "|>pre ")


# --- long alternations and big content_args ------------------------------------------------------


def test_two_thousand_alternatives() -> None:
    # compile_template: ~2 s here (it took ~110 s while `Tree.known` walked the whole tree once
    # per branch and `exclusive` compared every pair of literals).
    words = [f"tok{i}x" for i in range(2000)]
    template = {
        "start_anchor": "S",
        "fields": {
            "x": {"open_pattern": "|".join(words), "close_pattern": "</x>|" + "|".join(words)},
            "content": {},
        },
    }
    compiles(template)
    same_as_reference(template, ["a tok1999x b tok7x c tok1 d"])


def test_long_literal_lists() -> None:
    # 1000 literals, checked by construction: load ~0.3 s (at 2000: ~1 s, like the reference's
    # own load, whose prefix-overlap check is quadratic in the number of literals); compared with
    # the reference at 500.
    words = [f"tok{i}x" for i in range(1000)]
    template = {
        "start_anchor": words,
        "fields": {"x": {"open": words, "close": ["</x>", *words]}, "content": {}},
    }
    module = compiles(template, formatted=False)
    assert module.parse_response("a tok999x b tok7x c tok1 d", prefix="z tok5x y") == {
        "content": "c tok1 d",
        "x": "b",
    }
    words = words[:500]
    template = {
        "start_anchor": words,
        "fields": {"x": {"open": words, "close": ["</x>", *words]}, "content": {}},
    }
    compiles(template, formatted=False)
    same_as_reference(template, ["a tok499x b tok7x c tok1 d"], prefix="z tok5x y")


def test_big_content_args() -> None:
    # compile_template: ~0.6 s (black on ~500 KB of data).
    delims = [[f"<s{i}>", f"</s{i}>"] for i in range(1000)]
    args = {
        "string_delims": delims,
        "unused": {f"k{i}": "v" * 100 for i in range(2000)},
        "deep": _nested_dict(100, [1, 2]),
    }
    template = {
        "start_anchor": "S",
        "fields": {"x": {"open": "<x>", "close": "</x>", "content": "json", "content_args": args}},
    }
    compiles(template)
    body = '{"a": <s999>hi "there"</s999>, "b": <s0>0</s0>}'
    same_as_reference(template, [f"<x>{body}</x>", "<x><s5>x</x>"], stream=False)
