"""The official ``openai`` client reads DeltaStream's deltas as a real server's.

Every catalogue family (``rtc.generated.names()``, so families added later are covered too):
each generation of its cases is streamed through ``DeltaStream`` and accumulated by the client's
``ChatCompletionStreamState``; and, end to end, a local HTTP server on 127.0.0.1 replays
generations as server-sent events (chunks built by ``DeltaStream``) to
``OpenAI(base_url=...).chat.completions.stream(...)``. The client's final completion must equal
``parse_openai`` (the message and the finish reason).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from openai_check import counting_ids
from reference import Reference, Step, canon, record_stream

import rtc.generated as catalogue

openai = pytest.importorskip("openai")
from openai.lib.streaming.chat import ChatCompletionStreamState  # noqa: E402
from openai.types.chat import ChatCompletionChunk  # noqa: E402

DATA = Path(__file__).parent / "data"
CHUNK = 5
"""Characters of generated text per feed (a token is a few characters)."""


def _generations(name: str) -> list[dict[str, Any]]:
    cases = []
    for folder in ("cases", "family_cases"):
        path = DATA / folder / f"{name}.jsonl"
        if path.exists():
            cases += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [case for case in cases if "error" not in case]


def _pieces(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]


def _chunks(module: Any, case: dict[str, Any], model: str) -> Iterator[dict[str, Any]]:
    """The chat.completion.chunk objects of a server replaying ``case`` through DeltaStream."""
    stream = module.DeltaStream(case["prefix"], tools=case.get("tools"), id_factory=counting_ids())

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {
            "id": "chatcmpl-rtc",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [choice],
        }

    for delta in stream.initial_deltas:
        yield chunk(delta)
    for piece in _pieces(case["text"]):
        for delta in stream.feed(piece):
            yield chunk(delta)
    tail, _, reason = stream.finish()
    for delta in tail:
        yield chunk(delta)
    yield chunk({}, reason)


def _as_message(message: Any) -> dict[str, Any]:
    """An SDK message as the dict shape parse_openai returns (extra keys: the reasoning)."""
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    out.update({k: v for k, v in (message.model_extra or {}).items() if v is not None})
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": call.type,
                "function": {"name": call.function.name, "arguments": call.function.arguments},
            }
            for call in message.tool_calls
        ]
    return out


def _answer(steps: list[Step]) -> Any:
    final = next(step for step in steps if step.call == "finalize")
    return final.error if final.error else canon(final.raw[0])


def _expected(module: Any, case: dict[str, Any], ref: Reference) -> tuple[dict[str, Any], str]:
    """parse_openai's message and finish reason, or, where the reference's own answer differs
    when streamed in these chunks (its ``|$`` and optional-tail quirks), the stream's."""
    prefix, tools, text = case["prefix"], case.get("tools"), case["text"]
    message, reason, _ = module.parse_openai(
        text, prefix=prefix, tools=tools, id_factory=counting_ids()
    )
    loaded = ref.load(module.TEMPLATE)
    whole = record_stream(ref, loaded, prefix, tools, [text])
    chunked = record_stream(ref, loaded, prefix, tools, _pieces(text))
    if _answer(whole) != _answer(chunked):
        stream = module.DeltaStream(prefix, tools=tools, id_factory=counting_ids())
        for piece in _pieces(text):
            stream.feed(piece)
        _, message, reason = stream.finish()
    keys = ("role", "content", "reasoning", "tool_calls")
    return {k: v for k, v in message.items() if k in keys}, reason


@pytest.mark.parametrize("name", catalogue.names())
def test_stream_state_accumulates_parse_openai(name: str, ref: Reference) -> None:
    module = catalogue.get(name)
    generations = _generations(name)
    assert generations, f"no generations for {name!r} in tests/data/cases or family_cases"
    for case in generations:
        state = ChatCompletionStreamState()
        for chunk in _chunks(module, case, name):
            state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
        final = state.get_final_completion()
        message, reason = _expected(module, case, ref)
        assert _as_message(final.choices[0].message) == message, case["name"]
        assert final.choices[0].finish_reason == reason, case["name"]


class _Replay(BaseHTTPRequestHandler):
    """POST /v1/chat/completions with ``model`` = "NAME/CASE": that generation, as SSE."""

    def do_POST(self) -> None:  # noqa: N802 - the http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        name, index = body["model"].split("/")
        case = _generations(name)[int(index)]
        assert body["stream"] is True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for chunk in _chunks(catalogue.get(name), case, body["model"]):
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Replay)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("name", catalogue.names())
def test_openai_client_end_to_end(name: str, server: str, ref: Reference) -> None:
    client = openai.OpenAI(base_url=server, api_key="unused", max_retries=0, timeout=30)
    module = catalogue.get(name)
    generations = _generations(name)
    # Generations with calls first: they exercise the most of the stream.
    order = sorted(range(len(generations)), key=lambda i: "tool" not in generations[i]["text"])
    for index in order[:3]:
        case = generations[index]
        with client.chat.completions.stream(
            model=f"{name}/{index}", messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            for _ in stream:
                pass
            final = stream.get_final_completion()
        message, reason = _expected(module, case, ref)
        assert _as_message(final.choices[0].message) == message, case["name"]
        assert final.choices[0].finish_reason == reason, case["name"]


def test_readme_serving_example() -> None:
    """The README's server loop, run: its SSE chunks accumulate to parse_openai's message."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Serving") :]
    source = section[section.index("```python\n") + 10 : section.index("```\n", 20)]
    scope: dict[str, Any] = {}
    exec(compile(source, "README.md", "exec"), scope)  # noqa: S102 - our own documentation
    prompt = "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n"
    text = '<think>Paris.</think>Let me check.<tool_call>\n{"name": "get_weather", '
    text += '"arguments": {"city": "Paris"}}\n</tool_call>'
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
    body = "".join(scope["chat_completion_chunks"]("qwen3", prompt, pieces, None, lambda: False))
    events = [line[6:] for line in body.split("\n\n") if line]
    assert events[-1] == "[DONE]"
    state = ChatCompletionStreamState()
    for event in events[:-1]:
        state.handle_chunk(ChatCompletionChunk.model_validate(json.loads(event)))
    final = state.get_final_completion().choices[0]
    message, reason, problems = catalogue.get("qwen3").parse_openai(
        text, prefix=prompt, reasoning_key="reasoning_content"
    )
    got = _as_message(final.message)
    got["tool_calls"][0]["id"] = message["tool_calls"][0]["id"]
    assert got == message and final.finish_reason == reason == "tool_calls" and not problems
