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
from pathlib import Path
from typing import Any

import pytest

try:
    import vllm  # noqa: F401
except ImportError as error:
    if os.environ.get("RTC_REQUIRE_VLLM"):
        raise ImportError(f"RTC_REQUIRE_VLLM is set but vLLM cannot be imported: {error}") from error
    pytest.skip(
        "vLLM is not installed: these tests run in .ci/run's vllm job (vllm==0.33.0)",
        allow_module_level=True,
    )

from catalogue_data import CATALOGUE
from engine_models import build_model, family_data
from vllm_harness import Server, openai_client, serve

from rtc import generated

pytestmark = pytest.mark.xdist_group("vllm")

FIXTURES_PER_FAMILY = 3
FAMILIES = generated.names()


def _fixtures(name: str) -> list[dict[str, Any]]:
    """Model outputs of the family whose text holds none of its end-of-turn tokens (an engine
    stops there), with calls first (they exercise most)."""
    stops = [s for s in family_data(name).get("stop", []) if s]
    rows = [
        json.loads(line)
        for line in (CATALOGUE / name / "fixtures.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    rows = [r for r in rows if r["text"] and not any(s in r["text"] for s in stops)]
    rows.sort(key=lambda r: (not r["expected"].get("tool_calls"), r["id"]))
    return rows


def _tools(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The fixture's tools, else one untyped tool per called name (vLLM returns calls only when
    the request has tools)."""
    if row.get("tools"):
        return row["tools"]
    names = sorted({c["name"] for c in row["expected"].get("tool_calls") or []} | {"get_weather"})
    return [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in names
    ]


def _expected(module: Any, text: str, prompt: str, tools: list[Any], *, length: bool = False):
    stream = module.DeltaStream(prompt, tools=tools, reasoning_key="reasoning")
    stream.feed(text)
    _, message, _ = stream.finish("length" if length else "stop")
    return _shape(message)


def _shape(message: dict[str, Any]) -> dict[str, Any]:
    """role, content, reasoning, tool calls (name, arguments) in order: a message without ids."""
    calls = [
        (c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or []
    ]
    return {
        "content": message.get("content") or None,
        "reasoning": message.get("reasoning") or None,
        "tool_calls": calls,
    }


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
    return _shape(message), finish


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
        return _shape(choice.message.model_dump()), choice.finish_reason
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
        return _shape(choice.message.model_dump()), choice.finish_reason
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
    rows = _fixtures(name)[:FIXTURES_PER_FAMILY]
    assert rows, f"{name}: no fixture without an end-of-turn token"
    prompt_default = family_data(name)["prompt"]

    async def check() -> None:
        server = await _family_server(name, tmp_path / name)
        for i, row in enumerate(rows):
            prompt = row.get("prefix", prompt_default)
            tools = _tools(row)
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
