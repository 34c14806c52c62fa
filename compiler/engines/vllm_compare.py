"""rtc beside vLLM's own parsers, in vLLM's serving path: the messages, and the CPU time spent
inside the parser objects per streamed token.

    python tests/engine_models.py FOLDER         # model folders and FOLDER/cases.json
    python -m rtc.compiler.engines.vllm_compare FOLDER/cases.json [--per-family N] [--json OUT]
    python -m rtc.compiler.engines.vllm_compare FOLDER/cases.json --judge OUT   # beside 5.23.0

``cases.json``: ``{family: {"tokenizer": FOLDER, "cases": [{"prompt", "text", "tools"}]}}``
(``tests/engine_models.py`` writes it, from the catalogue's fixtures, with a model folder per
family: the tokenizer the generation is decoded with). For
each family, three parsers read each case token by token through vLLM's ``ChatStreamProcessor``
(what ``OpenAIServingChat`` calls per chunk), built as the server builds them
(``ParserManager.get_parser``):

- ``rtc``: ``--tool-call-parser rtc-<family> --reasoning-parser rtc-<family>``;
- ``hf``: vLLM's interpreted response-template parser, reading the family's template from the
  tokenizer (with its reasoning field named ``thinking``, the only reasoning name ``hf`` accepts:
  the renaming keeps every field-name tie-break, ``content`` < ``reasoning*``/``thinking`` <
  ``tool_calls``); families whose template ``hf`` refuses for other reasons are left out;
- ``vllm``: the hand-written parsers vLLM recommends for the family (:data:`RECOMMENDED`).

A parser that cannot be built for a family (it needs a vocabulary the test tokenizer lacks, a
Mistral tokenizer, Harmony's encoder) is reported with its error. Messages are what a streaming
client accumulates, compared without call ids. CPU time is ``time.thread_time`` (the calling
thread's: the process's also counts the threads a tokenizer or torch starts, four after a first
request here, on whichever parser is being timed while they run) around what the server asks
of a parser for one request: building it (with the model's configuration, as the server
builds it), ``adjust_request``, and each ``parse_delta`` call (parsers do their
per-request work in different places: ``hf`` loads its template when it is built, rtc reads the
prompt at the first call); summed over the cases (the fastest of ``--repeat`` rounds), per
token, minus the same for a parser that only wraps each chunk in a ``DeltaMessage`` (the floor);
where rtc's is not above the floor's, it is "at the floor" and every ratio against it infinite.
What building and adjusting cost is also reported by itself, per request. The fixtures' prompts
are their last turn only; ``--history N`` puts N tokens of earlier turns before each
(:func:`with_history`), where a parser that decodes the whole prompt pays for it.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from rtc.runtime.oneshot import truncate
from rtc.runtime.openai import REASONING_NAMES

__all__ = ["RECOMMENDED", "compare_family", "main"]

RECOMMENDED: dict[str, tuple[str | None, str | None]] = {
    family: (tool, reasoning)
    for family, (tool, reasoning) in json.loads(
        (Path(__file__).parent / "vllm_recommended.json").read_text(encoding="utf-8")
    )["parsers"].items()
}
"""family: (--tool-call-parser, --reasoning-parser) that vLLM 0.33.0's documentation and
registries name for the family's models (``vllm_recommended.json``)."""


def _hf_template(template: dict[str, Any]) -> dict[str, Any] | None:
    """The template as ``hf`` must be given it (reasoning field named ``thinking``), or ``None``
    when ``hf`` refuses it anyway."""
    from vllm.parser.response_template import validate_response_template_for_serving

    out = copy.deepcopy(template)
    fields = out.get("fields", {})
    out["fields"] = {
        ("thinking" if name in REASONING_NAMES else name): value for name, value in fields.items()
    }
    try:
        validate_response_template_for_serving(out)
    except (TypeError, ValueError):
        return None
    return out


def _floor_class() -> type:
    from vllm.entrypoints.generate.base.protocol import DeltaMessage
    from vllm.parser.abstract_parser import Parser

    class Floor(Parser):
        def is_reasoning_end(self, input_ids: list[int]) -> bool:
            return True

        def parse(self, model_output: str, request: Any, *args: Any, **kwargs: Any) -> Any:
            return None, model_output, None

        def parse_delta(self, delta_text: str, *args: Any, **kwargs: Any) -> Any:
            return DeltaMessage(content=delta_text)

    return Floor


class _Side:
    """One parser class and what a stream through it gave and cost."""

    def __init__(self, parser_cls: type, tokenizer: Any, model_config: Any) -> None:
        self.parser_cls = parser_cls
        self.tokenizer = tokenizer
        self.model_config = model_config

    def run(self, case: dict[str, Any], tokens: list[tuple[str, int]]) -> tuple[dict, float, float]:
        """``(message, CPU seconds inside the parser, of which building and adjusting it)`` for
        one case streamed token by token."""
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
        from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor

        request = ChatCompletionRequest(
            model="m", messages=[{"role": "user", "content": "hi"}], tools=case["tools"] or None
        )
        prompt_ids = self.tokenizer.encode(case["prompt"], add_special_tokens=False)
        tools = request.tools
        last = len(tokens) - 1
        gc.collect()
        gc.disable()  # a collection's pause would land on whichever parser allocates then
        try:
            start = time.thread_time()
            parser = self.parser_cls(
                self.tokenizer, tools, chat_template_kwargs={}, model_config=self.model_config
            )
            request = parser.adjust_request(request) or request
            built = time.thread_time() - start
            processor = ChatStreamProcessor(
                request, parser, enable_auto_tools=True, parser_cls=self.parser_cls
            )
            timed = parser.parse_delta
            spent = built

            def parse_delta(*args: Any, **kwargs: Any) -> Any:
                nonlocal spent
                start = time.thread_time()
                try:
                    return timed(*args, **kwargs)
                finally:
                    spent += time.thread_time() - start

            parser.parse_delta = parse_delta
            deltas = [
                processor.step(text, [token], "stop" if n == last else None, prompt_ids)[0]
                for n, (text, token) in enumerate(tokens)
            ]
        finally:
            gc.enable()
        content: list[str] = []
        reasoning: list[str] = []
        calls: dict[int, list[str]] = {}
        for delta in deltas:
            if delta is None:
                continue
            content.append(delta.content or "")
            reasoning.append(delta.reasoning or "")
            for entry in delta.tool_calls or ():
                call = calls.setdefault(entry.index, ["", ""])
                if entry.function is not None:
                    call[0] += entry.function.name or ""
                    call[1] += entry.function.arguments or ""
        message = {
            "content": "".join(content) or None,
            "reasoning": "".join(reasoning) or None,
            "tool_calls": [tuple(calls[i]) for i in sorted(calls)],
        }
        return message, spent, built


def _tokens(tokenizer: Any, text: str) -> list[tuple[str, int]]:
    """The text as the engine streams it: one decoded piece per token, the eos token last."""
    from tokenizers.decoders import DecodeStream

    hf = getattr(tokenizer, "tokenizer", tokenizer)
    ids = [*hf.encode(text, add_special_tokens=False), hf.eos_token_id]
    stream = DecodeStream(skip_special_tokens=False)
    out = []
    for token in ids:
        piece = stream.step(hf._tokenizer, token) or ""
        out.append(("" if token == hf.eos_token_id else piece, token))
    return out


def _build(parser_manager: Any, tool: str | None, reasoning: str | None, tokenizer: Any) -> Any:
    return parser_manager.get_parser(
        tool_parser_name=tool,
        reasoning_parser_name=reasoning,
        enable_auto_tools=True,
        model_name="m",
        tokenizer=tokenizer,
    )


def _model_config(folder: str) -> Any:
    """The model's configuration, as the server hands it to each parser it builds."""
    from vllm.config import ModelConfig

    return ModelConfig(model=folder, tokenizer=folder)


def compare_family(
    name: str, folder: str, cases: list[dict], repeat: int, history: int = 0
) -> dict[str, Any]:
    """Messages and CPU time of rtc, hf and vLLM's recommended parsers for one family; with
    ``history``, each prompt that holds the start anchor carries earlier turns first
    (:func:`with_history`)."""
    from vllm.parser.parser_manager import ParserManager
    from vllm.tokenizers import get_tokenizer

    from rtc import generated

    from . import vllm_plugin

    vllm_plugin.register()  # the rtc-<family> names, as an installed plugin has them
    tokenizer = get_tokenizer(folder)
    model_config = _model_config(folder)
    if history:
        cases = with_history(generated.get(name), tokenizer, cases, history)
    sides: dict[str, Any] = {"rtc": _build(ParserManager, f"rtc-{name}", f"rtc-{name}", tokenizer)}
    errors: dict[str, str] = {}
    hf_template = _hf_template(generated.get(name).TEMPLATE)
    if hf_template is None:
        errors["hf"] = "vLLM's hf parser does not accept this template"
    else:
        hf_tokenizer = get_tokenizer(folder)
        hf_tokenizer.response_template = hf_template
        try:
            sides["hf"] = (_build(ParserManager, "hf", "hf", hf_tokenizer), hf_tokenizer)
        except Exception as error:  # vLLM's own refusal, reported as it says it
            errors["hf"] = f"{type(error).__name__}: {error}"
    tool, reasoning = RECOMMENDED.get(name, (None, None))
    if tool or reasoning:
        try:
            sides["vllm"] = _build(ParserManager, tool, reasoning, tokenizer)
            sides["vllm"](tokenizer, None, chat_template_kwargs={})
        except Exception as error:
            sides.pop("vllm", None)
            errors["vllm"] = f"{type(error).__name__}: {str(error)[:200]}"
    else:
        errors["vllm"] = "vLLM has no parser for this family"
    sides["floor"] = _floor_class()
    runners = {}
    for key, value in sides.items():
        parser_cls, side_tokenizer = value if isinstance(value, tuple) else (value, tokenizer)
        runners[key] = _Side(parser_cls, side_tokenizer, model_config)
    streams = [_tokens(tokenizer, case["text"]) for case in cases]
    tokens = sum(len(s) for s in streams)
    best: dict[str, float] = {}
    building: dict[str, float] = {}
    messages: dict[str, list[Any]] = {}
    # What is alive now is never garbage: a collection before each timed stream (the rest of
    # the process, vLLM's included) would take most of the run.
    gc.collect()
    gc.freeze()
    for _ in range(repeat):
        for key, runner in runners.items():
            total = built = 0.0
            got = []
            for case, stream in zip(cases, streams, strict=True):
                try:
                    message, spent, spent_building = runner.run(case, stream)
                except Exception as error:
                    message = {"error": f"{type(error).__name__}: {error}"[:200]}
                    spent = spent_building = 0.0
                got.append(message)
                total += spent
                built += spent_building
            if total < best.get(key, total + 1):
                best[key], building[key] = total, built
            messages[key] = got
    gc.unfreeze()
    floor = best.pop("floor") / tokens
    per_token = {key: value / tokens - floor for key, value in best.items()}
    differences = {
        key: [
            {"case": i, "rtc": messages["rtc"][i], key: messages[key][i]}
            for i in range(len(cases))
            if messages[key][i] != messages["rtc"][i]
        ]
        for key in per_token
        if key != "rtc"
    }
    return {
        "family": name,
        "tokens": tokens,
        "floor_us": floor * 1e6,
        "building_us": {key: value * 1e6 / len(cases) for key, value in building.items()},
        "us_per_token": {key: value * 1e6 for key, value in per_token.items()},
        "ratio": {
            key: _over(per_token[key], per_token["rtc"]) for key in per_token if key != "rtc"
        },
        "raw_ratio": {
            key: (per_token[key] + floor) / (per_token["rtc"] + floor)
            for key in per_token
            if key != "rtc"
        },
        "differences": differences,
        "errors": errors,
    }


def _over(other: float, rtc: float) -> float:
    """``other`` / ``rtc``, each a side's time per token less the floor's. Where rtc's is not
    above the floor's (a parser that returns most tokens as they come costs what wrapping them
    costs: qwen3 here, 0.00-0.06 µs a token above a floor of 3.1 µs), the quotient of two noisy
    minima says nothing and may come out negative; rtc is then at the floor, and the ratio is
    infinite (``Infinity`` in ``--json``, "at the floor" in the report): never below a
    family that costs more."""
    return other / rtc if rtc > 0 else math.inf


def _times(ratio: float) -> str:
    return "at the floor" if ratio == math.inf else f"{ratio:.1f}x"


def with_history(module: Any, tokenizer: Any, cases: list[dict], tokens: int) -> list[dict]:
    """The cases with at least ``tokens`` tokens of earlier conversation before each prompt that
    holds the family's start anchor (a real request carries its earlier turns, and often the
    tools' schemas, in the prompt: thousands of tokens): the family's fixtures, prompts and
    answers, in turn. What the parsers read is the text after the anchor's last match, so the
    messages do not change; what a parser spends on the prompt as a whole shows."""
    earlier = "".join(case["prompt"] + case["text"] for case in cases)
    if not earlier:
        return cases
    # Encoded once, then repeated (a tokenizer may merge across a seam: checked after).
    size = max(1, len(tokenizer.encode(earlier, add_special_tokens=False)))
    filler = earlier * -(-tokens // size)
    while len(tokenizer.encode(filler, add_special_tokens=False)) < tokens:
        filler += earlier
    anchor = module.ResponseParser._anchor
    out = []
    for case in cases:
        prompt = case["prompt"]
        if prompt and truncate(anchor, prompt) != prompt:
            case = {**case, "prompt": filler + prompt}
        out.append(case)
    return out


def reference_message(name: str, case: dict[str, Any]) -> dict[str, Any]:
    """What transformers 5.23.0 makes of a case, in the comparison's shape (run where the
    reference is installed: vLLM's environment cannot hold it)."""
    from transformers.utils.chat_parsing import parse_response

    from rtc import generated

    template = generated.get(name).TEMPLATE
    try:
        message = parse_response(case["text"], template, prefix=case["prompt"], tools=case["tools"])
    except Exception as error:  # the reference raises: no message at all
        return {"error": f"{type(error).__name__}: {error}"[:200]}
    reasoning = next((message[k] for k in REASONING_NAMES if message.get(k)), None)
    calls = []
    for call in message.get("tool_calls") or ():
        function = call.get("function", call) if isinstance(call, dict) else {}
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        calls.append((function.get("name"), arguments))
    content = message.get("content")
    return {
        "content": content if isinstance(content, str) and content else None,
        "reasoning": reasoning if isinstance(reasoning, str) else None,
        "tool_calls": calls,
    }


def judge(results: list[dict[str, Any]], spec: dict[str, Any]) -> list[str]:
    """For each message that differs from rtc's, which side gives what transformers 5.23.0
    gives (tool-call arguments compared as JSON values)."""

    def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
        def norm(m: dict[str, Any]) -> Any:
            calls = [(n, json.loads(a) if _is_json(a) else a) for n, a in m.get("tool_calls", [])]
            return (m.get("content"), m.get("reasoning"), calls, m.get("error"))

        return norm(a) == norm(b)

    lines = []
    for result in results:
        name = result["family"]
        for other, differences in result["differences"].items():
            for difference in differences:
                case = spec[name]["cases"][difference["case"]]
                reference = reference_message(name, case)
                rtc_side = {**difference["rtc"], "tool_calls": difference["rtc"]["tool_calls"]}
                verdict = [
                    side
                    for side, message in (("rtc", rtc_side), (other, difference[other]))
                    if same(
                        {
                            **message,
                            "tool_calls": [tuple(c) for c in message.get("tool_calls", [])],
                        },
                        reference,
                    )
                ]
                lines.append(
                    f"{name} {case['id']}: rtc and {other} differ; the reference agrees with "
                    f"{' and '.join(verdict) or 'neither'}"
                )
    return lines


def _is_json(text: Any) -> bool:
    try:
        json.loads(text)
    except (TypeError, ValueError):
        return False
    return True


def _summary(results: list[dict[str, Any]]) -> str:
    lines = []
    for other in ("hf", "vllm"):
        ratios = [r["ratio"][other] for r in results if other in r["ratio"]]
        raws = [r["raw_ratio"][other] for r in results if other in r["raw_ratio"]]
        if ratios:
            lines.append(
                f"{other}: {len(ratios)} families; {other} / rtc per token, less the floor: "
                f"median {_times(statistics.median(ratios))}, lowest {_times(min(ratios))}; "
                f"raw: median {statistics.median(raws):.1f}x, lowest {min(raws):.1f}x"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rtc.compiler.engines.vllm_compare")
    parser.add_argument("cases", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--families", nargs="*")
    parser.add_argument("--per-family", type=int, help="at most this many cases per family")
    parser.add_argument(
        "--history",
        type=int,
        default=0,
        help="put at least this many tokens of earlier turns before each prompt (the family's "
        "fixtures), as a multi-turn request carries them",
    )
    parser.add_argument(
        "--judge",
        type=Path,
        help="a --json result: say for each difference which side transformers 5.23.0 agrees "
        "with (run where the reference is installed)",
    )
    args = parser.parse_args(argv)
    if args.judge:
        spec = json.loads(args.cases.read_text(encoding="utf-8"))
        results = json.loads(args.judge.read_text(encoding="utf-8"))
        print("\n".join(judge(results, spec)))
        return 0
    spec = json.loads(args.cases.read_text(encoding="utf-8"))
    results = []
    for name, family in spec.items():
        if args.families and name not in args.families:
            continue
        cases = family["cases"][: args.per_family] if args.per_family else family["cases"]
        result = compare_family(name, family["tokenizer"], cases, args.repeat, args.history)
        results.append(result)
        us = ", ".join(f"{k} {v:.1f} µs" for k, v in result["us_per_token"].items())
        ratio = ", ".join(f"{k} {_times(v)}" for k, v in result["ratio"].items())
        diffs = ", ".join(f"{k} {len(v)}" for k, v in result["differences"].items())
        built = ", ".join(f"{k} {v:.0f} µs" for k, v in result["building_us"].items())
        print(f"{name}: {us} (floor {result['floor_us']:.2f} µs); {ratio}; differences: {diffs}")
        print(f"  of which building and adjusting, per request: {built}")
        sys.stdout.flush()
        for key, error in result["errors"].items():
            print(f"  {key}: {error}")
    print(_summary(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
