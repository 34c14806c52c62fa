"""vLLM's real OpenAI server around a scripted engine, for the plugin tests (needs vLLM).

:func:`serve` parses ``vllm serve`` arguments with vLLM's own CLI parser and checks them as the CLI
does, builds vLLM's engine configuration for a model folder (``engine_models.build_model``), and
the FastAPI app with ``build_app`` / ``init_app_state``: everything is vLLM's except the engine,
a ``MagicMock(spec=AsyncLLM)`` whose ``generate`` plays a scripted generation one token at a time.
The scripted engine decodes as vLLM's detokenizer does (``tokenizers``' ``DecodeStream``, honouring
the request's ``skip_special_tokens``), drops the end-of-turn token from the text, and stops with
``length`` at ``max_tokens``. Generations are scripted per request id.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")


@dataclass
class Script:
    """What the engine writes for one request: ``text`` (the generation, its end-of-turn token
    not included) then the eos token, unless ``max_tokens`` cuts it first."""

    text: str
    decoded: list[str] = field(default_factory=list)  # what the engine handed over, per token


@dataclass
class Server:
    app: Any
    chat: Any  # the app's OpenAIServingChat
    tokenizer: Any  # vLLM's tokenizer of the model
    scripts: dict[str, Script]
    engine: Any
    model: str  # the served model's name (its folder)

    def script(self, request_id: str, text: str) -> Script:
        script = self.scripts[request_id] = Script(text)
        return script


def _engine_generate(server_ref: list[Server]) -> Any:
    from tokenizers.decoders import DecodeStream
    from vllm.outputs import CompletionOutput, RequestOutput
    from vllm.sampling_params import RequestOutputKind

    async def generate(
        engine_input: Any, sampling_params: Any, request_id: str, **_: Any
    ) -> AsyncIterator[Any]:
        server = server_ref[0]
        key = request_id.removeprefix("chatcmpl-")
        script = server.scripts[key]
        backend = server.tokenizer._tokenizer if hasattr(server.tokenizer, "_tokenizer") else None
        hf = getattr(server.tokenizer, "tokenizer", server.tokenizer)
        backend = backend or hf._tokenizer
        ids = hf.encode(script.text, add_special_tokens=False)
        eos = hf.eos_token_id
        limit = sampling_params.max_tokens
        finish = "stop"
        if limit is not None and len(ids) >= limit:
            ids, finish = ids[:limit], "length"
        else:
            ids = [*ids, eos]
        prompt_ids = list(engine_input["prompt_token_ids"])
        stream = DecodeStream(skip_special_tokens=sampling_params.skip_special_tokens)
        delta_mode = sampling_params.output_kind == RequestOutputKind.DELTA
        texts: list[str] = []
        all_ids: list[int] = []
        for n, token in enumerate(ids):
            last = n == len(ids) - 1
            piece = stream.step(backend, token) or ""
            if token == eos and finish == "stop":
                piece = ""  # the end-of-turn token stops the generation; its text is not output
            script.decoded.append(piece)
            texts.append(piece)
            all_ids.append(token)
            if not delta_mode and not last:
                continue
            text = piece if delta_mode else "".join(texts)
            token_ids = [token] if delta_mode else list(all_ids)
            yield RequestOutput(
                request_id=request_id,
                prompt=None,
                prompt_token_ids=prompt_ids,
                prompt_logprobs=None,
                outputs=[
                    CompletionOutput(
                        index=0,
                        text=text,
                        token_ids=token_ids,
                        cumulative_logprob=None,
                        logprobs=None,
                        finish_reason=finish if last else None,
                        stop_reason=None,
                    )
                ],
                finished=last,
            )
            await asyncio.sleep(0)  # other requests run between tokens, as in a server

    return generate


def serve_args(model: Path, *flags: str) -> Any:
    """``vllm serve MODEL FLAGS`` as vLLM's CLI parses and checks them."""
    from vllm.entrypoints.common.cli_args import make_arg_parser, validate_parsed_serve_args
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = make_arg_parser(FlexibleArgumentParser())
    args = parser.parse_args(["--model", str(model), "--max-model-len", "32768", *flags])
    validate_parsed_serve_args(args)
    return args


async def serve(model: Path, *flags: str) -> Server:
    """vLLM's OpenAI app for ``model`` started with ``flags``, over a scripted engine."""
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.entrypoints.launchers.api_server.app_state import init_app_state
    from vllm.entrypoints.launchers.app import build_app
    from vllm.renderers.registry import renderer_from_config
    from vllm.v1.engine.async_llm import AsyncLLM

    args = serve_args(model, *flags)
    config = AsyncEngineArgs.from_cli_args(args).create_engine_config()
    renderer = renderer_from_config(config)
    server_ref: list[Server] = []
    engine = MagicMock(spec=AsyncLLM)
    engine.errored = False
    engine.is_running = True
    engine.dead_error = None
    engine.model_config = config.model_config
    engine.vllm_config = config
    engine.renderer = renderer
    engine.input_processor = MagicMock()
    engine.io_processor = MagicMock()
    engine.generate = _engine_generate(server_ref)

    async def supported_tasks() -> tuple[str, ...]:
        return ("generate",)

    engine.get_supported_tasks = supported_tasks
    tasks = ("generate",)
    app = build_app(args, tasks, config.model_config)
    await init_app_state(engine, app.state, args, tasks)
    chat = app.state.openai_serving_chat
    server = Server(app, chat, renderer.tokenizer, {}, engine, str(model))
    server_ref.append(server)
    return server


def openai_client(server: Server) -> Any:
    """The official ``openai`` client, talking HTTP to the app in this process."""
    import httpx
    import openai

    transport = httpx.ASGITransport(app=server.app)
    http = httpx.AsyncClient(transport=transport, base_url="http://vllm.test/v1")
    return openai.AsyncOpenAI(api_key="-", base_url="http://vllm.test/v1", http_client=http)
