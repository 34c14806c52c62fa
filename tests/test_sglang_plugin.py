"""rtc's SGLang plugin through SGLang's own parsers (SGLang 0.5.23; .ci/run's vllm job).

The plugin is loaded as SGLang loads it (``sglang.srt.plugins.load_plugins``: the
``sglang.srt.plugins`` entry point), then each answer goes through SGLang's ``ReasoningParser``
and ``FunctionCallParser`` as its OpenAI server drives them (sgl-project/sglang 0.5.23,
``sglang/srt/entrypoints/openai/serving_chat.py``: ``_process_reasoning_stream``,
``_process_tool_call_stream``, ``_process_tool_calls``; the server itself needs more than its
parsers, torchvision among them): a ``ChatCompletionRequest`` carrying the rendered prompt, the
reasoning parser first, its normal text (the same object) into the tool-call parser; streamed
one token at a time (the family's delimiter tokens whole, every other character alone, as the
offline byte-level tokenizers of ``engine_models`` decode) with both parsers flushed at the end,
and not streamed (``parse_non_stream``, the tool parser asked ``has_tool_call`` first). Every
catalogue family's real model outputs must come out as the family's ``parse_openai`` gives them;
then several calls, a cut-off call, a rejected region, the ``rtc`` name choosing a family,
refusals, and another SGLang.

Without SGLang (README's test command) the module is skipped; CI's vllm job sets
``RTC_REQUIRE_SGLANG=1``, under which a missing SGLang fails instead.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

try:
    import sglang  # noqa: F401
    from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest, ToolChoice
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser
except ImportError as error:
    if os.environ.get("RTC_REQUIRE_SGLANG"):
        raise ImportError(
            f"RTC_REQUIRE_SGLANG is set but SGLang's parsers cannot be imported: {error}"
        ) from error
    pytest.skip(
        "SGLang is not installed: these tests run in .ci/run's vllm job (sglang==0.5.23)",
        allow_module_level=True,
    )

from engine_answers import QWEN3_PROMPT, REJECTED, THREE_CALLS, WEATHER, call, shape
from engine_models import build_model, delimiter_tokens, fixture_cases

from rtc import generated
from rtc.compiler.engines import sglang_parsers, sglang_plugin

pytestmark = [pytest.mark.xdist_group("sglang"), pytest.mark.sglang]

FIXTURES_PER_FAMILY = 3
FAMILIES = generated.names()


@pytest.fixture(scope="module", autouse=True)
def plugin() -> None:
    """rtc's detectors, registered the way SGLang's processes load their plugins."""
    from sglang.srt.plugins import load_plugins

    load_plugins()
    assert "rtc-qwen3" in FunctionCallParser.ToolCallParserEnum
    assert "rtc-qwen3" in ReasoningParser.DetectorMap


def _expected(name: str, text: str, prompt: str, tools: list[Any]) -> dict[str, Any]:
    message, _, _ = generated.get(name).parse_openai(
        text, prefix=prompt, tools=tools, reasoning_key="reasoning"
    )
    return shape(message)


def _request(prompt: str, tools: list[Any], **extra: Any) -> Any:
    """The request as SGLang's server holds it once the prompt is rendered."""
    request = ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools or None, **extra
    )
    request._response_parser_prefix = prompt
    return request


def _pieces(name: str, text: str) -> list[str]:
    """``text`` as a byte-level tokenizer with the family's delimiter tokens hands it over."""
    special, plain = delimiter_tokens(name)
    tokens = sorted({*special, *plain}, key=len, reverse=True)
    if not tokens:
        return list(text)
    pattern = re.compile("|".join(map(re.escape, tokens)) + "|.", re.DOTALL)
    return pattern.findall(text)


def _parsers(parser: str, request: Any, *, stream: bool, tokenizer: Any = None):
    tools = request.tools or []
    active = bool(tools) and request.tool_choice != "none"
    reasoning = ReasoningParser(
        parser,
        request.stream_reasoning if stream else False,
        False,
        request,
        tokenizer=tokenizer,
        tool_call_parser_active=active,
    )
    calls = FunctionCallParser(
        tools=tools,
        tool_call_parser=parser,
        tokenizer=tokenizer,
        prefix=request._response_parser_prefix,
        constrained=False,
    )
    return reasoning, (calls if active else None)


def _streamed(parser: str, request: Any, pieces: list[str], tokenizer: Any = None):
    """What SGLang's streaming path sends, accumulated as a client does."""
    reasoning_parser, call_parser = _parsers(parser, request, stream=True, tokenizer=tokenizer)
    content, reasoning, calls = [], [], {}
    for n, piece in enumerate(pieces):
        last = n == len(pieces) - 1
        said, normal = reasoning_parser.parse_stream_chunk(piece)
        if last:  # as serving_chat's _process_reasoning_stream ends the parser
            end_said, end_normal = reasoning_parser.parse_stream_end()
            if end_said:
                said = (said or "") + end_said
            if end_normal:
                normal = (normal or "") + end_normal
        reasoning.append(said or "")
        items: list[Any] = []
        if call_parser is not None:
            normal, items = call_parser.parse_stream_chunk(normal)
            if last:
                end_text, end_items = call_parser.parse_stream_end()
                normal, items = (normal or "") + end_text, [*items, *end_items]
        content.append(normal or "")
        for item in items:
            call = calls.get(item.tool_index)
            if call is None:
                assert item.name, f"a call's first item names it: {item}"
                call = calls[item.tool_index] = {"name": item.name, "arguments": ""}
            else:
                assert item.name is None, f"a call is named once: {item}"
            call["arguments"] += item.parameters
    assert sorted(calls) == list(range(len(calls))), "indexes count from 0 without gaps"
    message = {
        "content": "".join(content),
        "reasoning": "".join(reasoning),
        "tool_calls": [{"function": calls[i]} for i in sorted(calls)],
    }
    return shape(message)


def _whole(parser: str, request: Any, text: str, tokenizer: Any = None):
    """What SGLang's non-streaming path answers (``serving_chat``: reasoning, then tools)."""
    reasoning_parser, call_parser = _parsers(parser, request, stream=False, tokenizer=tokenizer)
    reasoning, text = reasoning_parser.parse_non_stream(text)
    calls: list[Any] = []
    if call_parser is not None and call_parser.has_tool_call(text):
        text, calls = call_parser.parse_non_stream(text)
    message = {
        "content": text,
        "reasoning": reasoning,
        "tool_calls": [{"function": {"name": c.name, "arguments": c.parameters}} for c in calls],
    }
    return shape(message)


def _check(name: str, text: str, prompt: str, tools: list[Any]) -> dict[str, Any]:
    expected = _expected(name, text, prompt, tools)
    request = _request(prompt, tools)
    parser = f"rtc-{name}"
    assert _streamed(parser, request, _pieces(name, text)) == expected, "streamed"
    assert _whole(parser, request, text) == expected, "not streamed"
    return expected


@pytest.mark.parametrize("name", FAMILIES)
def test_every_family_answers_like_parse_openai(name: str) -> None:
    rows = fixture_cases(name)[:FIXTURES_PER_FAMILY]
    assert rows, f"{name}: no fixture without an end-of-turn token"
    for row in rows:
        try:
            _check(name, row["text"], row["prompt"], row["tools"])
        except AssertionError as error:
            raise AssertionError(f"{name} {row['id']}: {error}") from error


# -- what a server meets -----------------------------------------------------------------------


def test_several_calls_keep_their_order_and_typed_arguments() -> None:
    expected = _check("qwen3", THREE_CALLS, QWEN3_PROMPT, WEATHER)
    assert [name for name, _ in expected["tool_calls"]] == [
        "get_weather",
        "get_forecast",
        "get_time",
    ]
    assert json.loads(expected["tool_calls"][1][1]) == {"city": "Rome", "days": 3}  # typed
    assert expected["reasoning"] == "Three tools." and expected["content"] == "I will check."


def test_a_call_cut_off_is_content() -> None:
    cut = THREE_CALLS[: THREE_CALLS.index("Rome")]
    expected = _check("qwen3", cut, QWEN3_PROMPT, WEATHER)
    assert [name for name, _ in expected["tool_calls"]] == ["get_weather"]
    assert expected["content"].endswith('"arguments": {"city": "')


def test_a_rejected_region_is_content_and_the_answer_goes_on() -> None:
    expected = _check("qwen3", REJECTED, QWEN3_PROMPT, WEATHER)
    assert expected["tool_calls"] == []
    assert expected["content"].startswith("Here:<tool_call>")
    assert expected["content"].endswith("Done.")


def test_reasoning_opened_by_the_prompt() -> None:
    prompt = QWEN3_PROMPT + "<think>\n"
    text = "Still thinking.</think>Answer." + call("get_time", '{"city": "Oslo"}')
    expected = _check("qwen3", text, prompt, WEATHER)
    assert expected["reasoning"] == "Still thinking." and len(expected["tool_calls"]) == 1


def test_without_tools_the_answer_is_reasoning_and_content() -> None:
    request = _request(QWEN3_PROMPT, [])
    text = "<think>Hm.</think>Just text."
    assert _streamed("rtc-qwen3", request, _pieces("qwen3", text)) == shape(
        {"content": "Just text.", "reasoning": "Hm."}
    )
    assert _whole("rtc-qwen3", request, text) == shape(
        {"content": "Just text.", "reasoning": "Hm."}
    )


def test_reasoning_held_until_it_ends_when_not_streamed() -> None:
    request = _request(QWEN3_PROMPT, WEATHER, stream_reasoning=False)
    reasoning_parser, _ = _parsers("rtc-qwen3", request, stream=True)
    said = [reasoning_parser.parse_stream_chunk(p)[0] for p in _pieces("qwen3", THREE_CALLS)]
    assert [s for s in said if s] == ["Three tools."]


def test_one_stream_serves_both_roles() -> None:
    """The tool detector reads what the reasoning detector's stream read: it parses nothing."""
    request = _request(QWEN3_PROMPT, WEATHER)
    for stream in (True, False):
        reasoning_parser, call_parser = _parsers("rtc-qwen3", request, stream=stream)
        if stream:
            for piece in _pieces("qwen3", THREE_CALLS):
                call_parser.parse_stream_chunk(reasoning_parser.parse_stream_chunk(piece)[1])
            call_parser.parse_stream_end()
        else:
            _, text = reasoning_parser.parse_non_stream(THREE_CALLS)
            assert call_parser.has_tool_call(text)
            assert len(call_parser.parse_non_stream(text)[1]) == 3
        detector = call_parser.detector
        assert detector._stream.stream is None and detector._own is None


def test_tool_parser_alone_sends_reasoning_as_content() -> None:
    """No rtc reasoning parser ran (none configured, or separate_reasoning off): the tool
    detector reads the text with its own stream."""
    request = _request(QWEN3_PROMPT, WEATHER)
    parser = FunctionCallParser(
        tools=request.tools, tool_call_parser="rtc-qwen3", prefix=QWEN3_PROMPT
    )
    items: list[Any] = []
    text = ""
    for piece in _pieces("qwen3", THREE_CALLS):
        normal, new = parser.parse_stream_chunk(piece)
        text += normal
        items += new
    end_text, end_items = parser.parse_stream_end()
    assert text + end_text == "Three tools.I will check."
    assert [i.name for i in [*items, *end_items] if i.name] == [
        "get_weather",
        "get_forecast",
        "get_time",
    ]


def test_rtc_beside_another_parser_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    assert sglang_parsers._configured("tool_call_parser") is None  # no server configured here
    monkeypatch.setattr(sglang_parsers, "_configured", lambda role: "hermes")
    with pytest.raises(RuntimeError, match="name the same rtc parser for both"):
        ReasoningParser("rtc-qwen3", True)  # as SGLang's server first builds it, at start-up
    with pytest.raises(RuntimeError, match="name the same rtc parser for both"):
        FunctionCallParser(tools=[], tool_call_parser="rtc-qwen3")


@pytest.mark.parametrize(
    "choice", ["required", {"type": "function", "function": {"name": "get_time"}}]
)
def test_forced_tool_choice_is_refused(choice: Any) -> None:
    request = _request(QWEN3_PROMPT, WEATHER)
    parser = FunctionCallParser(tools=request.tools, tool_call_parser="rtc-qwen3")
    forced = choice if choice == "required" else ToolChoice.model_validate(choice)
    with pytest.raises(ValueError, match="cannot force a tool call"):
        parser.get_structure_constraint(forced)
    assert parser.get_structure_constraint("auto") is None


# -- choosing the family --------------------------------------------------------------------------


def _tokenizer(folder: Path) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder))


@pytest.mark.parametrize(
    ("family", "model_type", "chosen"),
    [("qwen3", "qwen3_moe", "qwen3_rtc"), ("glm4_moe", "glm4_moe", "glm4_moe")],
)
def test_rtc_chooses_by_model_type(
    family: str, model_type: str, chosen: str, tmp_path: Path
) -> None:
    tokenizer = _tokenizer(build_model(family, tmp_path / "m", model_type=model_type))
    request = _request(QWEN3_PROMPT, WEATHER)
    reasoning_parser, call_parser = _parsers("rtc", request, stream=True, tokenizer=tokenizer)
    assert reasoning_parser.detector._stream.module.__name__.endswith("." + chosen)
    assert call_parser.detector._stream.module.__name__.endswith("." + chosen)


def test_rtc_refuses_to_start_when_the_format_is_unknown(tmp_path: Path) -> None:
    tokenizer = _tokenizer(build_model("llama3", tmp_path / "m", model_type="llama"))
    # RuntimeError, not ValueError: SGLang's server logs a ValueError here and starts anyway.
    with pytest.raises(RuntimeError, match=r"model_type 'llama': .*rtc-llama3.*rtc-xlam"):
        ReasoningParser("rtc", True, tokenizer=tokenizer)


# -- the SGLang it was written for ----------------------------------------------------------------


def test_the_interface_is_the_tested_one() -> None:
    assert sglang.__version__ in sglang_plugin.TESTED
    assert sglang_plugin.interface_problems() == []


def test_another_sglang_refuses_to_start_with_rtc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sglang, "__version__", "0.5.24")
    monkeypatch.setitem(
        sglang_plugin.INTERFACE,
        "sglang.srt.function_call.base_format_detector:BaseFormatDetector.finish",
        ("self",),
    )
    monkeypatch.setitem(
        sglang_plugin.MEMBERS,
        "sglang.srt.parser.response_template:ResponseTemplateToolDetector",
        ("has_tool_call",),
    )
    problems = sglang_plugin.interface_problems()
    assert problems[0] == "SGLang 0.5.24 is not a tested release (0.5.23)"
    assert "BaseFormatDetector.finish takes (self, tools), not (self)" in problems[1]
    assert "ResponseTemplateToolDetector members differ" in problems[2]
    monkeypatch.setattr(
        FunctionCallParser, "ToolCallParserEnum", dict(FunctionCallParser.ToolCallParserEnum)
    )
    monkeypatch.setattr(ReasoningParser, "DetectorMap", dict(ReasoningParser.DetectorMap))
    sglang_plugin.register.cache_clear()  # (registered again below, into the patched registries)
    sglang_plugin.register()
    message = r"written for SGLang 0\.5\.23.*0\.5\.24 is not a tested"
    with pytest.raises(RuntimeError, match=message):
        FunctionCallParser(tools=[], tool_call_parser="rtc-qwen3")
    with pytest.raises(RuntimeError, match=message):
        ReasoningParser("rtc", True)
    assert FunctionCallParser.ToolCallParserEnum["hermes"] is not None  # others untouched
