"""Bad generations and bad calls: rtc fails like transformers 5.23.0.

Malformed tool-call JSON, unterminated regions, NUL and lone surrogates in the text, chunks that
are not ``str``, calls after ``finalize()``, errors inside ``feed`` followed by more feeds
(nothing is rolled back, quirk Q46), errors raised while the prefix is consumed (Q21), missing
or non-``str`` prefixes. Every call is compared with the reference: same result or same
exception type at the same call, and the same state afterwards (seen through the calls that
follow). Where the reference's error is an accident of its implementation (a ``TypeError`` from
``str + int``), rtc's message must say what was passed.

Also the declared deviation: where the reference never returns (zero-width delimiters that
re-fire forever, quirk Q5), rtc raises ``ValueError`` instead, from ``feed``, ``finalize``, the
constructor and ``parse_response``. rtc runs under a timer there, so a hang fails the test.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import pytest
from limits import DEEP, too_deep
from reference import (
    RTC_TIMEOUT,
    Reference,
    Rtc,
    diff_steps,
    load,
    record_oneshot,
    record_stream,
    time_limit,
)

from rtc.compiler import load as rtc_compile_load

pytestmark = pytest.mark.core

pytest.importorskip("transformers")

TEMPLATE: dict[str, Any] = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<A>",
    "fields": {
        "tool_calls": {
            "open": "<tc>",
            "close": "</tc>",
            "content": "json",
            "repeats": True,
            "transform": {"type": "function", "function": "{content}"},
        },
        "x": {"open_pattern": "<x>", "close_pattern": "</x>", "content": "json"},
        "n": {"open": "<n>", "close": "</n>", "content": "int", "optional": False},
        "content": {"close": "<|end|>"},
    },
}
"""Literal and pattern delimiters, json and int bodies, a required field, an implicit field."""

PATTERN_ANCHOR: dict[str, Any] = {
    **copy.deepcopy(TEMPLATE),
    "start_anchor_pattern": "<A>",
}
del PATTERN_ANCHOR["start_anchor"]


CONTEXT_TEMPLATES: dict[str, dict[str, Any]] = {
    # \b needs the character before the search position: a window of consumed text is kept.
    "word-boundary": {
        "start_anchor": "<A>",
        "fields": {
            "n": {"open_pattern": r"\bN:", "close_pattern": r";\B|;$", "content": "int"},
            "tool_calls": {"open": "<tc>", "close": "</tc>", "content": "json", "repeats": True},
            "content": {"close": "<|end|>", "content": "int", "optional": False},
        },
    },
    # A look-behind may look arbitrarily far back: the whole buffer is kept.
    "look-behind": {
        "start_anchor": "<A>",
        "fields": {
            "n": {"open_pattern": r"(?<=\n)N:", "close": ";", "content": "int"},
            "tool_calls": {"open_pattern": r"(?<!x)<tc>", "close": "</tc>", "content": "json"},
            "content": {"close_pattern": r"(?<=\S)<\|end\|>", "content": "float"},
        },
    },
}
"""Implicit fields whose values fail too, and patterns that see consumed text (rtc trims it)."""

FILLER = "filler text, long enough to push consumed text out of a short window. " * 2

CONTEXT_GENERATIONS: dict[str, list[str]] = {
    "implicit-fails-at-open": ["hi", " N:1;", " 2<|end|>"],
    "implicit-fails-then-recovers": ["x\nN:", "1;", "3", "<|end|>", "4"],
    "long-then-bad-int": [FILLER, "\nN:zz;", FILLER, "\nN:5;", "7<|end|>"],
    "long-then-bad-json": [FILLER, "<tc>{bad</tc>", FILLER, "<tc>{}</tc>", "1.5<|end|>"],
    "long-byte-by-byte": list(FILLER + "\nN:1;" + FILLER + "<tc>[]</tc>2<|end|>"),
    "delimiter-across-window": [FILLER, "\nN", ":", "4", ";", FILLER[:63], "<|e", "nd|>"],
    "nul-and-surrogates": ["\x00\nN:\ud800;", "\udfff<tc>\x00</tc>"],
}


@pytest.mark.parametrize("template_name", CONTEXT_TEMPLATES)
@pytest.mark.parametrize("name", CONTEXT_GENERATIONS)
def test_bad_generation_with_context(template_name: str, name: str) -> None:
    template = CONTEXT_TEMPLATES[template_name]
    chunks = CONTEXT_GENERATIONS[name]
    text = "".join(chunks)
    _compare_oneshot(template, text, "")
    _compare_oneshot(template, text, "old <A>" + FILLER)
    _compare_stream(template, "", chunks)
    _compare_stream(template, "<A>\n", chunks)
    _compare_stream(template, "", [text[i : i + 7] for i in range(0, len(text), 7)])


class Text(str):
    """A ``str`` subclass: accepted wherever text is."""


@functools.cache
def _reference() -> Reference:
    return Reference()


@functools.cache
def _rtc() -> Rtc:
    return Rtc(rtc_compile_load)


def _compare_stream(template: dict[str, Any], prefix: Any, chunks: list[Any]) -> None:
    ref, rtc = _reference(), _rtc()
    ref_state, ref_loaded = load(ref, template)
    rtc_state, rtc_loaded = load(rtc, template)
    assert (ref_state, rtc_state) == ("ok", "ok")
    want = record_stream(ref, ref_loaded, prefix, None, chunks)
    got = record_stream(rtc, rtc_loaded, prefix, None, chunks)
    assert diff_steps(want, got) is None, diff_steps(want, got)


def _compare_oneshot(template: dict[str, Any], text: Any, prefix: Any) -> None:
    ref, rtc = _reference(), _rtc()
    _, ref_loaded = load(ref, template)
    _, rtc_loaded = load(rtc, template)
    want = record_oneshot(ref, ref_loaded, text, prefix, None)
    got = record_oneshot(rtc, rtc_loaded, text, prefix, None)
    assert diff_steps([want], [got]) is None, diff_steps([want], [got])


# --- bad generations ----------------------------------------------------------------------------

GENERATIONS: dict[str, list[str]] = {
    "malformed-tool-call": ["<tc>{bad</tc>", "more", "<tc>{}</tc>", "<n>1</n>"],
    "malformed-tool-call-split": ['<tc>{"name": "f", ', '"arguments": {,}}</t', "c>", "<n>1</n>"],
    "tool-call-not-an-object": ["<tc>[1, 2]</tc><tc>null</tc><tc>7</tc><n>1</n>"],
    "tool-call-trailing-garbage": ['<tc>{"name": "f"} extra</tc><n>1</n>'],
    "tool-call-nan-and-duplicates": ['<tc>{"a": NaN, "a": Infinity}</tc><n>1</n>'],
    # 3,000 levels: a RecursionError before CPython 3.13, a deep list on 3.13 (tests/limits.py)
    "tool-call-deeply-nested": ["<tc>" + DEEP + "]" * len(DEEP) + "</tc>", "<n>1</n>"],
    "tool-call-nested-beyond-the-limit": ["<tc>" + too_deep() + "</tc>"],
    "pattern-region-malformed": ["<x>{bad", "</x>", "more", "<x>{}</x>", "<n>1</n>"],
    "pattern-region-malformed-then-text": ["<x>{bad", "</x>z", "more", "<x>{}</x>", "<n>1</n>"],
    "unterminated-json-region": ['<tc>{"a": 1', "<n>1</n>"],
    "unterminated-pattern-region": ["<n>1</n><x>{}", "</"],
    "unterminated-open-delimiter": ["<n>1</n>hi <t"],
    "unterminated-int-region": ["<n> 4"],
    "bad-int-then-more-feeds": ["<n>zz</n>", "1", "<n>2</n>"],
    "bad-int-at-finalize": ["<n>zz"],
    "required-field-missing": ["hi<|end|>"],
    "required-field-empty": ["<n> </n>"],
    "nul": ["a\x00b<n>1</n>c\x00", "<tc>\x00</tc>"],
    "nul-in-int": ["<n>\x001</n>"],
    "nul-in-delimiter": ["<n\x00>1</n>", "<n>1</\x00n></n>"],
    "lone-surrogates": ["\ud800<n>1</n>\udfff", "<|end\ud800|>x"],
    "surrogate-in-json": ['<tc>{"a": "\ud800", "b": "\\udfff"}</tc><n>2</n>'],
    "surrogate-split-delimiter": ["<n>1</", "\ud800n>", "</n>"],
    "control-characters": ["\x1b[31m<n>\t1\x0c</n>\x85\u2028<|end|>"],
}


@pytest.mark.parametrize("name", GENERATIONS)
def test_bad_generation(name: str) -> None:
    chunks = GENERATIONS[name]
    text = "".join(chunks)
    for template in (TEMPLATE, PATTERN_ANCHOR):
        _compare_oneshot(template, text, "")
        _compare_stream(template, "", chunks)
        _compare_stream(template, "", [text])
        _compare_stream(template, "", list(text))


# --- chunks that are not str ---------------------------------------------------------------------


NON_STR_CHUNKS: dict[str, Any] = {
    "int": 5,
    "zero": 0,
    "float": 1.5,
    "true": True,
    "false": False,
    "none": None,
    "empty-str": "",
    "bytes": b"<n>",
    "empty-bytes": b"",
    "bytearray": bytearray(b"x"),
    "list": ["<n>"],
    "empty-list": [],
    "tuple": ("a",),
    "dict": {"a": 1},
    "str-subclass": Text("<n>1</n>"),
}


@pytest.mark.parametrize("name", NON_STR_CHUNKS)
def test_non_str_chunk(name: str) -> None:
    bad = NON_STR_CHUNKS[name]
    # Fed in the middle of a held partial delimiter, then at the start, then after an error.
    _compare_stream(TEMPLATE, "", ["hi <n>1</", bad, "n>", bad, "<n>2</n>"])
    _compare_stream(TEMPLATE, "", [bad, "<n>1</n>"])
    _compare_stream(TEMPLATE, "", ["<n>x</n>", bad, "<n>1</n>"])
    if not isinstance(bad, list):  # parse_response takes a list as a batch (declared extension)
        _compare_oneshot(TEMPLATE, bad, "")


def test_non_str_chunk_error_says_what_was_passed() -> None:
    module = rtc_compile_load(copy.deepcopy(TEMPLATE))
    for bad, name in ((5, "int"), (b"<n>", "bytes"), (["a"], "list"), (1.5, "float")):
        parser = module.ResponseParser("")
        parser.feed("<n>1</")
        with pytest.raises(TypeError, match=name):
            parser.feed(bad)
        assert parser.feed("n>") == [{"type": "region_close", "field": "n", "value": 1}]
        if not isinstance(bad, list):
            with pytest.raises(TypeError, match=name):
                module.parse_response(bad, prefix="")


# --- after finalize -------------------------------------------------------------------------------

AFTER_FINALIZE: dict[str, list[Any]] = {
    "feed-text": ["x"],
    "feed-empty": [""],
    "feed-none": [None],
    "feed-int": [5],
    "feed-bytes": [b"x"],
    "feed-delimiter": ["<n>2</n>"],
}


@pytest.mark.parametrize("name", AFTER_FINALIZE)
def test_calls_after_finalize(name: str) -> None:
    ref, rtc = _reference(), _rtc()
    outcomes = []
    for engine in (ref, rtc):
        _, loaded = load(engine, TEMPLATE)
        parser = engine.parser(loaded, "", None)
        parser.feed("<n>1</n>hi")
        message, _ = parser.finalize()
        steps = []
        calls = [functools.partial(parser.feed, c) for c in AFTER_FINALIZE[name]]
        for call in [*calls, parser.finalize]:
            try:
                call()
                steps.append("returned")
            except Exception as exc:  # noqa: BLE001 - compared
                steps.append(type(exc).__name__)
        outcomes.append((message, steps))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][1] == ["RuntimeError", "RuntimeError"]


def test_finalize_twice_after_a_failed_finalize() -> None:
    # A failed finalize leaves the parser usable: feed more, then finalize succeeds.
    _compare_stream(TEMPLATE, "", ["hi"])
    _compare_stream(TEMPLATE, "", ["<n>x"])
    ref, rtc = _reference(), _rtc()
    results = []
    for engine in (ref, rtc):
        _, loaded = load(engine, TEMPLATE)
        parser = engine.parser(loaded, "", None)
        parser.feed("hi")
        with pytest.raises(ValueError):
            parser.finalize()
        events = parser.feed("<n>3</n>tail")
        results.append((events, parser.finalize()))
        with pytest.raises(RuntimeError):
            parser.finalize()
    assert results[0] == results[1]


# --- prefixes -------------------------------------------------------------------------------------

PREFIXES: dict[str, Any] = {
    "none": None,
    "empty": "",
    "zero": 0,
    "false": False,
    "empty-bytes": b"",
    "empty-list": [],
    "bytes": b"<A>hi",
    "list": ["<A>"],
    "int": 5,
    "true": True,
    "str-subclass": Text("<A>hi"),
    "error-in-prefix-pattern-region": "<A><x>{bad</x>",
    "error-in-prefix-literal-region": "<A><tc>{bad</tc>",
    "error-in-prefix-int": "old<A><n>no</n>",
    "unterminated-region-in-prefix": "<A><x>{",
    "partial-delimiter-in-prefix": "<A><n>1</",
    "nul-and-surrogates": "\x00<A>\ud800<n>1</n>",
    "history-without-anchor": "<n>1</n><tc>{}</tc>",
}


@pytest.mark.parametrize("name", PREFIXES)
def test_prefix(name: str) -> None:
    prefix = PREFIXES[name]
    for template in (TEMPLATE, PATTERN_ANCHOR):
        _compare_stream(template, prefix, ["n>", "}</x>", "<n>2</n>"])
        _compare_oneshot(template, "n><n>3</n>", prefix)


def test_non_str_prefix_error_says_what_was_passed() -> None:
    for template in (TEMPLATE, PATTERN_ANCHOR):
        module = rtc_compile_load(copy.deepcopy(template))
        for bad, name in ((5, "int"), (b"<A>", "bytes"), (["<A>"], "list"), (True, "bool")):
            with pytest.raises(TypeError, match=name):
                module.ResponseParser(bad)
            with pytest.raises(TypeError, match=name):
                module.parse_response("x", prefix=bad)


def test_missing_prefix_is_a_value_error() -> None:
    module = rtc_compile_load(copy.deepcopy(TEMPLATE))
    with pytest.raises(ValueError, match='prefix=""'):
        module.ResponseParser()
    with pytest.raises(ValueError, match='prefix=""'):
        module.parse_response("x")


# --- the declared deviation: rtc raises where the reference never returns (Q5) ------------------

LOOPING: dict[str, tuple[dict[str, Any], str]] = {
    "lookahead": (
        {"start_anchor": "S", "fields": {"x": {"open_pattern": "(?=a)", "close_pattern": "(?=a)"}}},
        "aab",
    ),
    "empty-groups": (
        {"start_anchor": "S", "fields": {"x": {"open_pattern": "(?:)", "close_pattern": "(?:)"}}},
        "aab",
    ),
    "empty-groups-other-text": (
        {"start_anchor": "S", "fields": {"x": {"open_pattern": "(?:)", "close_pattern": "(?:)"}}},
        "b",
    ),
    "empty-patterns-with-implicit": (
        {"start_anchor": "S", "fields": {"x": {"open_pattern": "", "close_pattern": ""}, "c": {}}},
        "text",
    ),
    "lookahead-after-text": (
        {
            "start_anchor": "S",
            "fields": {"x": {"open_pattern": "(?=a)", "close_pattern": "(?=a)"}, "c": {}},
        },
        "hello a",
    ),
}


def _rtc_call(fn: Any) -> BaseException | None:
    """Run an rtc call under a timer; return what it raised (a hang fails the test)."""
    try:
        with time_limit(RTC_TIMEOUT):
            fn()
    except Exception as exc:  # noqa: BLE001 - inspected by the caller
        return exc
    return None


@pytest.mark.parametrize("name", LOOPING)
def test_non_terminating_template_raises_value_error(name: str) -> None:
    template, text = LOOPING[name]
    module = rtc_compile_load(copy.deepcopy(template))
    for fn in (
        lambda: module.parse_response(text, prefix=""),
        lambda: module.parse_response([text, text], prefix=""),
        lambda: module.ResponseParser(text),
    ):
        exc = _rtc_call(fn)
        assert isinstance(exc, ValueError), repr(exc)
    for chunks in ([text], list(text)):
        parser = module.ResponseParser("")
        raised = [_rtc_call(functools.partial(parser.feed, c)) for c in chunks]
        raised.append(_rtc_call(parser.finalize))
        raised.append(_rtc_call(parser.finalize))
        errors = [exc for exc in raised if exc is not None]
        assert errors, "no call raised"
        assert all(isinstance(exc, ValueError) for exc in errors), errors


def test_loop_only_at_end_of_stream() -> None:
    # While streaming, the partial `<...` of y vetoes x's zero-width open (it starts later);
    # at the end of the stream y cannot match, and x's open and close re-fire forever.
    template = {
        "start_anchor": "S",
        "fields": {
            "x": {"open_pattern": "(?=a)", "close_pattern": "(?=a)"},
            "y": {"open_pattern": "<[^>]*>"},
        },
    }
    module = rtc_compile_load(copy.deepcopy(template))
    for chunks in (["<a"], ["<", "a"]):
        parser = module.ResponseParser("")
        fed = [_rtc_call(functools.partial(parser.feed, c)) for c in chunks]
        assert fed == [None] * len(chunks)
        assert isinstance(_rtc_call(parser.finalize), ValueError)
        assert isinstance(_rtc_call(parser.finalize), ValueError)
    assert isinstance(_rtc_call(lambda: module.parse_response("<a", prefix="")), ValueError)
    # Where y does match, the reference returns: so must rtc, with the same answer.
    _compare_oneshot(template, "<a>a", "")
    _compare_stream(template, "", list("<a>a"))


def test_templates_that_stop_are_not_refused() -> None:
    # Same delimiters where the reference does return: rtc answers like it.
    for template, text in [
        (LOOPING["lookahead"][0], "b"),
        (LOOPING["lookahead"][0], ""),
        (LOOPING["empty-groups"][0], ""),
        ({"start_anchor": "S", "fields": {"c": {"close_pattern": "$"}}}, "abc\n"),
        ({"start_anchor": "S", "fields": {"c": {"close_pattern": ""}}}, "abc"),
    ]:
        _compare_oneshot(template, text, "")
        _compare_stream(template, "", [text])
        _compare_stream(template, "", list(text))


# --- rtc parse: invalid UTF-8 in the inputs test_cli.py does not cover ----------------------------


def test_parse_invalid_utf8_in_tools_and_template_names_byte_offset(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from rtc.compiler.cli import main

    template = tmp_path / "t.json"
    template.write_text(json.dumps(TEMPLATE), encoding="utf-8")
    tools = tmp_path / "tools.json"
    tools.write_bytes(b'[{"name": "f\xff"}]')
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(b'{"start_anchor": "caf\xe9", "fields": {"c": {}}}')
    runs = {
        f"{tools}: invalid UTF-8 at byte offset 12": [str(template), "--tools", str(tools)],
        f"{latin1}: invalid UTF-8 at byte offset 21": [str(latin1)],
    }
    for fragment, args in runs.items():
        for stream in ([], ["--stream"]):
            result = CliRunner().invoke(
                main, ["parse", *args, "--prefix", "", *stream], input="<n>1</n>"
            )
            assert result.exit_code == 2, (result.stderr, result.exception)
            lines = result.stderr.splitlines()
            assert len(lines) == 1 and fragment in lines[0], result.stderr
            assert result.stdout == ""
