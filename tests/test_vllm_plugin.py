"""rtc's vLLM plugin through vLLM's real serving code (vLLM 0.33.0; .ci/run's vllm job).

Every catalogue family is served by vLLM's own OpenAI app (``vllm_harness.serve``: vLLM's CLI
parser and checks, engine configuration, ``build_app``/``init_app_state``), started with
``--enable-auto-tool-choice --tool-call-parser rtc-<family> --reasoning-parser rtc-<family>``,
over a scripted engine that streams the family's real model outputs (``fixtures.jsonl``) one
token at a time. Each answer, streamed and not, through vLLM's ``OpenAIServingChat`` and through
HTTP read by the official ``openai`` client, must equal what the family's ``parse_openai`` gives
for the same text, prompt and tools (call ids aside: vLLM makes its own). Then what a server
meets: rejected regions, ``length`` cut-offs, several calls, concurrent requests, the ``rtc``
name choosing a family, and a vLLM the plugin was not written for.

Without vLLM (README's test command) the module is skipped; CI's vllm job sets
``RTC_REQUIRE_VLLM=1``, under which a missing vLLM fails instead.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

try:
    import vllm  # noqa: F401
except ImportError as error:
    if os.environ.get("RTC_REQUIRE_VLLM"):
        raise ImportError(
            f"RTC_REQUIRE_VLLM is set but vLLM cannot be imported: {error}"
        ) from error
    pytest.skip(
        "vLLM is not installed: these tests run in .ci/run's vllm job (vllm==0.33.0)",
        allow_module_level=True,
    )

from engine_answers import QWEN3_PROMPT, REJECTED, THREE_CALLS, WEATHER, shape
from engine_models import build_model, fixture_cases, write_comparison
from vllm_harness import Server, openai_client, serve

from rtc import generated

pytestmark = [pytest.mark.xdist_group("vllm"), pytest.mark.vllm]

FIXTURES_PER_FAMILY = 3
FAMILIES = generated.names()


def _expected(module: Any, text: str, prompt: str, tools: list[Any], *, length: bool = False):
    stream = module.DeltaStream(prompt, tools=tools, reasoning_key="reasoning")
    stream.feed(text)
    _, message, _ = stream.finish("length" if length else "stop")
    return shape(message)


def _from_chunks(chunks: list[dict[str, Any]]) -> tuple[dict[str, Any], str | None]:
    """The message OpenAI's streaming clients accumulate from chunk dicts, and the finish reason;
    checks that each call's id and name come once, on its first entry."""
    content, reasoning, calls = [], [], {}
    finish = None
    for chunk in chunks:
        for choice in chunk.get("choices", ()):
            delta = choice.get("delta") or {}
            content.append(delta.get("content") or "")
            reasoning.append(delta.get("reasoning") or "")
            for entry in delta.get("tool_calls") or ():
                call = calls.get(entry["index"])
                function = entry.get("function") or {}
                if call is None:
                    assert entry.get("id") and function.get("name"), entry
                    call = calls[entry["index"]] = {"id": entry["id"], "name": function["name"]}
                    call["arguments"] = ""
                else:
                    assert not entry.get("id") and not function.get("name"), entry
                call["arguments"] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    assert sorted(calls) == list(range(len(calls))), "indexes count from 0 without gaps"
    message = {
        "content": "".join(content),
        "reasoning": "".join(reasoning),
        "tool_calls": [
            {"id": c["id"], "function": {"name": c["name"], "arguments": c["arguments"]}}
            for _, c in sorted(calls.items())
        ],
    }
    return shape(message), finish


def _finish(expected: dict[str, Any], length: bool) -> str:
    return "length" if length else "tool_calls" if expected["tool_calls"] else "stop"


async def _direct(server: Server, rid: str, prompt: str, tools: list[Any], stream: bool, **extra):
    """One request through the app's ``OpenAIServingChat``: (message, finish_reason)."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    request = ChatCompletionRequest(
        model=server.model,
        messages=[{"role": "user", "content": "hi"}],
        tools=tools,
        stream=stream,
        request_id=rid,
        chat_template_kwargs={"rtc_prompt": prompt},
        **extra,
    )
    answer = await server.chat.create_chat_completion(request)
    if not stream:
        assert not hasattr(answer, "error"), answer
        choice = answer.choices[0]
        return shape(choice.message.model_dump()), choice.finish_reason
    chunks = []
    async for frame in answer:
        body = frame.removeprefix("data: ").strip()
        if body and body != "[DONE]":
            chunks.append(json.loads(body))
    return _from_chunks(chunks)


async def _http(server: Server, rid: str, prompt: str, tools: list[Any], stream: bool, **extra):
    """One request over HTTP with the official openai client: (message, finish_reason)."""
    client = openai_client(server)
    answer = await client.chat.completions.create(
        model=server.model,
        messages=[{"role": "user", "content": "hi"}],
        tools=tools,
        stream=stream,
        extra_body={"request_id": rid, "chat_template_kwargs": {"rtc_prompt": prompt}},
        **extra,
    )
    if not stream:
        choice = answer.choices[0]
        return shape(choice.message.model_dump()), choice.finish_reason
    return _from_chunks([chunk.model_dump() async for chunk in answer])


def _run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


async def _family_server(name: str, folder: Path) -> Server:
    build_model(name, folder)
    flags = ("--enable-auto-tool-choice", "--tool-call-parser", f"rtc-{name}")
    return await serve(folder, *flags, "--reasoning-parser", f"rtc-{name}")


@pytest.mark.parametrize("name", FAMILIES)
def test_every_family_streams_and_answers_like_parse_openai(name: str, tmp_path: Path) -> None:
    module = generated.get(name)
    rows = fixture_cases(name)[:FIXTURES_PER_FAMILY]
    assert rows, f"{name}: no fixture without an end-of-turn token"

    async def check() -> None:
        server = await _family_server(name, tmp_path / name)
        for i, row in enumerate(rows):
            prompt, tools = row["prompt"], row["tools"]
            expected = _expected(module, row["text"], prompt, tools)
            finish = _finish(expected, False)
            ways = [("direct", _direct, True), ("direct", _direct, False)]
            if i == 0:
                ways += [("http", _http, True), ("http", _http, False)]
            for way, call, stream in ways:
                rid = f"{row['id']}-{way}-{stream}"
                script = server.script(rid, row["text"])
                got = await call(server, rid, prompt, tools, stream)
                assert "".join(script.decoded) == row["text"], f"{rid}: the engine dropped text"
                assert got == (expected, finish), f"{name} {rid}"

    _run(check())


# -- what a server meets -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def qwen3_server(tmp_path_factory: pytest.TempPathFactory) -> Server:
    return _run(_family_server("qwen3", tmp_path_factory.mktemp("qwen3") / "model"))


def _check(
    server: Server,
    rid: str,
    text: str,
    *,
    length_at: int | None = None,
    prompt: str = QWEN3_PROMPT,
    **extra: Any,
) -> Any:
    """Streamed and not, direct and over HTTP, ``text`` after ``prompt`` answers as rtc's
    stream does (cut by ``max_tokens=length_at`` when given)."""
    module = server.chat.parser_cls.choice.module
    hf = getattr(server.tokenizer, "tokenizer", server.tokenizer)
    length = length_at is not None
    seen = text
    if length:
        seen = hf.decode(hf.encode(text, add_special_tokens=False)[:length_at])
        extra["max_tokens"] = length_at
    expected = _expected(module, seen, prompt, WEATHER, length=length)
    finish = _finish(expected, length)

    async def check() -> None:
        for way, call in (("direct", _direct), ("http", _http)):
            for stream in (True, False):
                key = f"{rid}-{way}-{stream}"
                server.script(key, text)
                got = await call(server, key, prompt, WEATHER, stream, **extra)
                assert got == (expected, finish), key

    _run(check())
    return expected


def test_several_calls_get_indexes_ids_and_typed_arguments(qwen3_server: Server) -> None:
    expected = _check(qwen3_server, "three", THREE_CALLS)
    assert [name for name, _ in expected["tool_calls"]] == [
        "get_weather",
        "get_forecast",
        "get_time",
    ]
    assert json.loads(expected["tool_calls"][1][1]) == {"city": "Rome", "days": 3}  # typed by tools


def test_a_long_conversation_is_read_from_its_last_turn(qwen3_server: Server) -> None:
    # The plugin decodes the prompt from its last turn (prompt_tail): earlier turns hold the
    # start anchor, calls, reasoning and characters byte tokens split; the last turn leaves
    # reasoning open. The answer must read as parse_openai reads it after the whole prompt.
    turn = (
        "<|im_start|>user\nWetter in Köln? 日本 🙂<|im_end|>\n<|im_start|>assistant\n"
        "<think>\nhm</think>\n\n" + THREE_CALLS + "<|im_end|>\n"
    )
    prompt = turn * 40 + "<|im_start|>user\nAnd now?<|im_end|>\n<|im_start|>assistant\n<think>\n"
    expected = _check(qwen3_server, "long", "Let me see.</think>\n\nSunny, 21°C.", prompt=prompt)
    assert expected["reasoning"] == "Let me see." and expected["content"] == "Sunny, 21°C."


def test_a_rejected_call_is_content_and_the_answer_goes_on(qwen3_server: Server) -> None:
    expected = _check(qwen3_server, "rejected", REJECTED)
    assert expected["tool_calls"] == []
    assert expected["content"].startswith("Here:<tool_call>") and expected["content"].endswith(
        "Done."
    )


def test_a_call_cut_off_by_the_length_limit_is_content(qwen3_server: Server) -> None:
    hf = getattr(qwen3_server.tokenizer, "tokenizer", qwen3_server.tokenizer)
    cut = len(hf.encode(THREE_CALLS[: THREE_CALLS.index("Rome")], add_special_tokens=False))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected = _check(qwen3_server, "cut", THREE_CALLS, length_at=cut)
    # The limit is read from max_tokens without its deprecation warning (vLLM's own serving
    # code still reads it, and warns, in its own files).
    assert not [w for w in caught if "engines" in w.filename and "rtc" in w.filename]
    assert [name for name, _ in expected["tool_calls"]] == ["get_weather"]
    assert expected["content"].endswith('"arguments": {"city": "')


def test_reasoning_left_out_when_the_request_asks(qwen3_server: Server) -> None:
    async def check() -> None:
        for stream in (True, False):
            qwen3_server.script(f"noreason-{stream}", THREE_CALLS)
            message, _ = await _direct(
                qwen3_server,
                f"noreason-{stream}",
                QWEN3_PROMPT,
                WEATHER,
                stream,
                include_reasoning=False,
            )
            assert message["reasoning"] is None and len(message["tool_calls"]) == 3

    _run(check())


def test_forced_tool_choice_is_refused_in_one_request_only(qwen3_server: Server) -> None:
    """Concurrent requests: each answers as alone, whatever another one does (a refused
    tool_choice, a rejected region, a cut-off, streamed and not)."""
    import openai

    hf = getattr(qwen3_server.tokenizer, "tokenizer", qwen3_server.tokenizer)
    module = qwen3_server.chat.parser_cls.choice.module
    cut = len(hf.encode(THREE_CALLS[: THREE_CALLS.index("Rome")], add_special_tokens=False))
    cases = []
    for i in range(12):
        text = (THREE_CALLS, REJECTED, f"<think>{i}</think>Answer {i}.")[i % 3]
        ids = hf.encode(text, add_special_tokens=False)
        length_at = cut if i % 4 == 3 and len(ids) >= cut else None
        cases.append((f"many-{i}", text, length_at, i % 2 == 0))

    async def one(rid: str, text: str, length_at: int | None, stream: bool) -> None:
        qwen3_server.script(rid, text)
        extra = {} if length_at is None else {"max_tokens": length_at}
        seen = (
            text
            if length_at is None
            else hf.decode(hf.encode(text, add_special_tokens=False)[:length_at])
        )
        expected = _expected(module, seen, QWEN3_PROMPT, WEATHER, length=length_at is not None)
        got = await _http(qwen3_server, rid, QWEN3_PROMPT, WEATHER, stream, **extra)
        assert got == (expected, _finish(expected, length_at is not None)), rid

    async def refused() -> None:
        qwen3_server.script("forced", THREE_CALLS)
        with pytest.raises(openai.BadRequestError, match="tool_choice"):
            await _http(
                qwen3_server, "forced", QWEN3_PROMPT, WEATHER, False, tool_choice="required"
            )

    async def check() -> None:
        await asyncio.gather(refused(), *(one(*case) for case in cases))

    _run(check())


# -- choosing the family --------------------------------------------------------------------------


def _serve_rtc(folder: Path, *flags: str) -> Server:
    base = ("--enable-auto-tool-choice", "--tool-call-parser", "rtc", "--reasoning-parser", "rtc")
    return _run(serve(folder, *(flags or base)))


@pytest.mark.parametrize(
    ("family", "model_type", "chosen"),
    [
        # qwen3's rtc-written sibling reads every probe back too, and reads real output better.
        ("qwen3", "qwen3_moe", "qwen3_rtc"),
        ("gemma4", "gemma4", "gemma4_rtc"),
        ("glm4_moe", "glm4_moe", "glm4_moe"),
    ],
)
def test_rtc_chooses_by_model_type(
    family: str, model_type: str, chosen: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="rtc.engines.vllm"):
        server = _serve_rtc(build_model(family, tmp_path / "m", model_type=model_type))
    choice = server.chat.parser_cls.choice
    assert choice.name == chosen and model_type in choice.reason
    assert f"rtc parses with {chosen}" in caplog.text


def test_rtc_reads_the_tokenizer_response_template(tmp_path: Path) -> None:
    catalogue = json.loads((Path(generated.__file__).parent / "smollm3.json").read_text())
    server = _serve_rtc(build_model("smollm3", tmp_path / "a", response_template=catalogue))
    assert server.chat.parser_cls.choice.name == "smollm3"
    own = {**catalogue, "fields": {**catalogue["fields"]}}
    own["fields"]["content"] = {**own["fields"]["content"], "content_args": {"strip": True}}
    server = _serve_rtc(build_model("smollm3", tmp_path / "b", response_template=own))
    choice = server.chat.parser_cls.choice
    assert choice.name == "response_template" and choice.module.TEMPLATE == own


def test_rtc_refuses_to_start_when_the_format_is_unknown(tmp_path: Path) -> None:
    folder = build_model("llama3", tmp_path / "m", model_type="llama")
    # vLLM builds the reasoning parser while it reads its configuration: the server stops there.
    with pytest.raises(
        ValueError, match=r"model_type 'llama': .*equally well.*rtc-llama3.*rtc-xlam"
    ):
        _serve_rtc(folder)


def test_tool_parser_alone_sends_reasoning_as_content(tmp_path: Path) -> None:
    folder = build_model("qwen3", tmp_path / "m", model_type="qwen3")
    server = _serve_rtc(folder, "--enable-auto-tool-choice", "--tool-call-parser", "rtc")

    async def check() -> None:
        server.script("alone", THREE_CALLS)
        message, finish = await _direct(server, "alone", QWEN3_PROMPT, WEATHER, True)
        assert message["reasoning"] is None and message["content"] == "Three tools.I will check."
        assert len(message["tool_calls"]) == 3 and finish == "tool_calls"

    _run(check())


def test_rtc_with_another_parser_is_refused(tmp_path: Path) -> None:
    folder = build_model("qwen3", tmp_path / "m", model_type="qwen3")
    flags = (
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        "hermes",
        "--reasoning-parser",
        "rtc",
    )
    with pytest.raises(TypeError, match="name the same rtc parser for both"):
        _serve_rtc(folder, *flags)


# -- the vLLM it was written for ------------------------------------------------------------------


def test_the_interface_is_the_tested_one() -> None:
    from rtc.compiler.engines import vllm_plugin

    assert vllm.__version__ in vllm_plugin.TESTED
    assert vllm_plugin.interface_problems() == []


def test_another_vllm_refuses_to_start_with_rtc(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    from rtc.compiler.engines import vllm_plugin

    monkeypatch.setattr(vllm, "__version__", "0.34.0")
    monkeypatch.setitem(
        vllm_plugin.INTERFACE, "vllm.parser.abstract_parser:Parser.parse", ("self", "text")
    )
    problems = vllm_plugin.interface_problems()
    assert problems[0] == "vLLM 0.34.0 is not a tested release (0.33.0)"
    assert "Parser.parse takes (self, model_output" in problems[1]
    monkeypatch.setattr(ToolParserManager, "tool_parsers", dict(ToolParserManager.tool_parsers))
    monkeypatch.setattr(
        ReasoningParserManager, "reasoning_parsers", dict(ReasoningParserManager.reasoning_parsers)
    )
    vllm_plugin.register.cache_clear()  # (registered again below, into the patched registries)
    vllm_plugin.register()
    folder = build_model("qwen3", tmp_path / "m", model_type="qwen3")
    with pytest.raises(Exception, match=r"written for vLLM 0\.33\.0.*0\.34\.0 is not a tested"):
        _serve_rtc(folder)


# -- beside vLLM's own parsers ---------------------------------------------------------------------


def test_compare_reports_messages_and_cpu_time(tmp_path: Path) -> None:
    from rtc.compiler.engines.vllm_compare import compare_family

    spec = json.loads(write_comparison(tmp_path, ["qwen3", "smollm3"]).read_text())
    result = compare_family("qwen3", spec["qwen3"]["tokenizer"], spec["qwen3"]["cases"][:3], 1)
    assert set(result["us_per_token"]) == {"rtc", "hf", "vllm"} and result["tokens"] > 100
    assert set(result["ratio"]) == {"hf", "vllm"} and not result["errors"]
    smollm3 = compare_family(
        "smollm3", spec["smollm3"]["tokenizer"], spec["smollm3"]["cases"][:2], 1
    )
    assert "hf" in smollm3["errors"] and "hf" not in smollm3["ratio"]  # join: hf refuses it


def test_compare_with_earlier_turns_reads_the_same_messages(tmp_path: Path) -> None:
    from vllm.tokenizers import get_tokenizer

    from rtc.compiler.engines.vllm_compare import compare_family, with_history

    spec = json.loads(write_comparison(tmp_path, ["qwen3"]).read_text())["qwen3"]
    cases = spec["cases"][:3]
    tokenizer = get_tokenizer(spec["tokenizer"])
    longer = with_history(generated.get("qwen3"), tokenizer, cases, 2000)
    for before, after in zip(cases, longer, strict=True):
        assert after["prompt"].endswith(before["prompt"])
        assert len(tokenizer.encode(after["prompt"], add_special_tokens=False)) >= 2000
    plain = compare_family("qwen3", spec["tokenizer"], cases, 1)
    long = compare_family("qwen3", spec["tokenizer"], cases, 1, history=2000)
    assert long["differences"] == plain["differences"] and not long["errors"]


DELTAS = [
    {"content": "Hi"},
    {"reasoning": "hm", "content": ""},
    {"tool_calls": [{"index": 0, "function": {"arguments": '{"a'}}]},
    {"tool_calls": [{"index": 1, "id": "c1", "type": "function", "function": {"name": "f"}}]},
    {
        "content": "x",
        "tool_calls": [
            {"index": 0, "function": {"arguments": "}"}},
            {"index": 1, "id": "c2", "type": "function", "function": {"name": "g"}},
        ],
    },
    {"tool_calls": [{"index": 2}]},
]


@pytest.mark.parametrize("delta", DELTAS)
def test_messages_built_from_dicts_are_the_validated_objects(delta: dict[str, Any]) -> None:
    """The plugin gives a message's calls as dicts (one validation): the same message, with the
    same fields set at every level, as one built from ``DeltaToolCall`` and
    ``DeltaFunctionCall`` objects with the delta's own keys, and the same JSON as vLLM sends
    it, where a field without a value is absent, never null (as OpenAI sends argument pieces)."""
    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
    )

    from rtc.compiler.engines.vllm_parsers import _delta_message

    fields: dict[str, Any] = {key: delta[key] for key in ("content", "reasoning") if key in delta}
    if "tool_calls" in delta:
        fields["tool_calls"] = [
            DeltaToolCall(
                **{key: value for key, value in entry.items() if key != "function"},
                **(
                    {"function": DeltaFunctionCall(**entry["function"])}
                    if "function" in entry
                    else {}
                ),
            )
            for entry in delta["tool_calls"]
        ]
    want = DeltaMessage(**fields)
    got = _delta_message(delta)
    assert got == want
    assert got.model_fields_set == want.model_fields_set == set(delta)
    for mine, theirs, entry in zip(
        got.tool_calls, want.tool_calls, delta.get("tool_calls", ()), strict=True
    ):
        assert type(mine) is DeltaToolCall
        assert mine.model_fields_set == theirs.model_fields_set == set(entry)
        if theirs.function is not None:
            assert type(mine.function) is DeltaFunctionCall
            assert mine.function.model_fields_set == theirs.function.model_fields_set
    for unset in (False, True):
        assert got.model_dump_json(exclude_unset=unset) == want.model_dump_json(exclude_unset=unset)
    assert "null" not in got.model_dump_json(exclude_unset=True)


@pytest.mark.parametrize("name", ["qwen3_5", "minimax_m2", "step3"])
def test_an_argument_piece_is_sent_as_the_general_fold_sends_it(name: str) -> None:
    """``parse_delta`` sends a lone piece of a call's arguments without the fold: the same
    message as the fold of that one delta gives, the same fields set and the same JSON, for
    every such piece of the family's fixtures streamed a character at a time (the families
    whose calls' arguments stream a parameter at a time; JSON calls are sent whole)."""
    from vllm.entrypoints.generate.base.protocol import DeltaMessage

    from rtc.compiler.engines.deltas import merge
    from rtc.compiler.engines.vllm_parsers import _delta_message

    module = generated.get(name)
    pieces = 0
    for row in fixture_cases(name):
        stream = module.DeltaStream(row["prompt"], tools=row["tools"] or None)
        for char in row["text"]:
            deltas = stream.feed(char)
            if len(deltas) != 1 or set(deltas[0]) != {"tool_calls"}:
                continue
            calls = deltas[0]["tool_calls"]
            if len(calls) != 1 or "id" in calls[0]:
                continue
            pieces += 1
            fast = DeltaMessage(tool_calls=calls)
            general = _delta_message(merge(deltas))
            assert fast == general and fast.model_fields_set == general.model_fields_set
            assert fast.tool_calls[0].model_fields_set == general.tool_calls[0].model_fields_set
            assert fast.model_dump_json(exclude_unset=True) == general.model_dump_json(
                exclude_unset=True
            )
    assert pieces >= 10, f"{name}: its fixtures stream too few argument pieces"


def test_call_ids_are_vllms_random_ones_or_its_own_kind() -> None:
    """vLLM's random call ids are made by the plugin (of their shape, which vLLM's own are
    checked to have: a vLLM whose ids look otherwise gets its own ids); ids of another kind,
    Kimi's ``functions.NAME:N``, still come from vLLM. Either way vLLM's count of the
    request's calls goes on (Kimi's next id is numbered by it)."""
    from vllm.renderers.chat_utils.tool_call import make_tool_call_id

    from rtc.compiler.engines.vllm_parsers import RANDOM_ID, RtcParser, _random_ids

    assert RANDOM_ID.fullmatch(make_tool_call_id())  # what the plugin's own ids copy
    assert _random_ids("random") and not _random_ids("kimi_k2")
    for id_type, first, second in (
        ("kimi_k2", "functions.get_weather:3", "functions.get_time:4"),
        ("random", None, None),
    ):
        state = SimpleNamespace(tool_call_id_type=id_type, history_tool_call_cnt=3)
        parser: Any = SimpleNamespace(_stream_state=state)
        ids = [RtcParser._new_tool_call_id(parser, n) for n in ("get_weather", "get_time")]
        assert state.history_tool_call_cnt == 5
        if first is not None:
            assert ids == [first, second]
        else:
            assert all(RANDOM_ID.fullmatch(i) for i in ids) and ids[0] != ids[1]
    made = {RtcParser._new_tool_call_id(parser, "f") for _ in range(10_000)}
    assert len(made) == 10_000
