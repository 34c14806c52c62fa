"""A synthetic corpus of tool-calling generations, for the offline tests and ``rtc bench --batch``.

Deterministic for a seed. Each family writes generations the way its models do (reasoning,
prose, one or two tool calls with typed or string arguments, the end-of-turn token), after a
prompt that ends at the template's start anchor; about 1% of the generations are malformed
(a cut-off or broken tool call: an error where the template parses tool calls strictly, as
qwen3's does; text kept as content by the catalogue's lenient templates), and a few records are
bad (not JSON, no text, a text that is not a string) or blank lines. Records: ``{"id",
"family", "prompt", "text", "tools"}``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

from ..tool_decls import INTEGER, STRING, function_tool

TOOLS: list[dict[str, Any]] = [
    function_tool(
        "get_weather",
        "Get the weather forecast.",
        {
            "location": STRING,
            "days": INTEGER,
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        ["location"],
    ),
    function_tool(
        "set_alarm",
        "Set an alarm.",
        {
            "hour": INTEGER,
            "enabled": {"type": "boolean"},
            "label": {"anyOf": [STRING, {"type": "null"}]},
        },
        ["hour"],
    ),
]

_CITIES = ["Paris", "Lyon", "Oslo", "Kyoto", "Lima", "Cairo", "Perth", "Quebec", "Zürich", "Hanoi"]
_WORDS = (
    "the user wants a forecast so I should call the tool first and then answer with what it "
    "returns while keeping the reply short clear and friendly because they asked twice"
).split()


def _prose(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(low, high))).capitalize() + "."


def _calls(rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = []
    for _ in range(rng.choice((1, 1, 1, 2))):
        if rng.random() < 0.6:
            calls.append(
                ("get_weather", {"location": rng.choice(_CITIES), "days": rng.randint(1, 7)})
            )
        else:
            calls.append(("set_alarm", {"hour": rng.randint(0, 23), "enabled": rng.random() < 0.5}))
    return calls


def _strings(arguments: dict[str, Any]) -> dict[str, str]:
    """Arguments as models often write them: every value a string."""
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in arguments.items()}


def _qwen3(rng: random.Random, broken: bool) -> tuple[str, str]:
    prompt = f"<|im_start|>user\n{_prose(rng, 4, 12)}<|im_end|>\n<|im_start|>assistant\n"
    text = f"<think>\n{_prose(rng, 10, 60)}\n</think>\n\n"
    if rng.random() < 0.7:
        for name, arguments in _calls(rng):
            body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
            text += f"<tool_call>\n{body[:-7] if broken else body}\n</tool_call>\n"
    else:
        text += _prose(rng, 5, 40)
    return prompt, text + "<|im_end|>"


def _qwen3_coder(rng: random.Random, broken: bool) -> tuple[str, str]:
    prompt = f"<|im_start|>user\n{_prose(rng, 4, 12)}<|im_end|>\n<|im_start|>assistant\n"
    text = _prose(rng, 3, 30) + "\n"
    for name, arguments in _calls(rng):
        params = "".join(
            f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in _strings(arguments).items()
        )
        text += f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>\n"
    if broken:
        text = text[: len(text) // 2]
    return prompt, text + "<|im_end|>"


def _glm4_moe(rng: random.Random, broken: bool) -> tuple[str, str]:
    prompt = f"<|user|>\n{_prose(rng, 4, 12)}<|assistant|>"
    text = f"<think>{_prose(rng, 10, 50)}</think>\n"
    for name, arguments in _calls(rng):
        pairs = "".join(
            f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n"
            for k, v in _strings(arguments).items()
        )
        text += f"<tool_call>{name}\n{pairs}</tool_call>\n"
    if broken:
        text = text.replace("</arg_value>", "", 1)
    return prompt, text.rstrip("\n")


def _mistral(rng: random.Random, broken: bool) -> tuple[str, str]:
    prompt = (
        f"[AVAILABLE_TOOLS]{json.dumps(TOOLS)}[/AVAILABLE_TOOLS][INST]{_prose(rng, 4, 12)}[/INST]"
    )
    text = f"[THINK]{_prose(rng, 5, 40)}[/THINK]"
    for name, arguments in _calls(rng):
        body = json.dumps(_strings(arguments) if rng.random() < 0.5 else arguments)
        text += f"[TOOL_CALLS]{name}[ARGS]{body[:-2] if broken else body}"
    return prompt, text + "</s>"


def _gpt_oss(rng: random.Random, broken: bool) -> tuple[str, str]:
    prompt = f"<|start|>user<|message|>{_prose(rng, 4, 12)}<|end|><|start|>assistant"
    text = f"<|channel|>analysis<|message|>{_prose(rng, 10, 50)}<|end|>"
    name, arguments = _calls(rng)[0]
    body = json.dumps(arguments, separators=(",", ":"))
    text += (
        f"<|start|>assistant to=functions.{name}<|channel|>commentary json<|message|>"
        f"{body[:-3] if broken else body}<|call|>"
    )
    return prompt, text


def _llama3(rng: random.Random, broken: bool) -> tuple[str, str]:
    prompt = (
        f"<|start_header_id|>user<|end_header_id|>\n\n{_prose(rng, 4, 12)}<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )
    if rng.random() < 0.3:
        return prompt, _prose(rng, 5, 40) + "<|eot_id|>"
    name, arguments = _calls(rng)[0]
    body = json.dumps({"name": name, "parameters": _strings(arguments)})
    return prompt, (body[:-1] if broken else body) + "<|eot_id|>"


FAMILIES: dict[str, Callable[[random.Random, bool], tuple[str, str]]] = {
    "qwen3": _qwen3,
    "qwen3_coder": _qwen3_coder,
    "glm4_moe": _glm4_moe,
    "mistral": _mistral,
    "gpt_oss": _gpt_oss,
    "llama3": _llama3,
}


def records(family: str, count: int, seed: int = 0, bad: bool = True) -> Iterator[str]:
    """``count`` JSONL lines for one family: ~1% malformed generations, ~0.3% bad lines."""
    rng = random.Random(f"{family}:{seed}")
    make = FAMILIES[family]
    for i in range(count):
        roll = rng.random()
        if bad and roll < 0.003:
            yield rng.choice(
                [
                    "{not json",
                    json.dumps({"id": i, "family": family, "prompt": ""}),
                    json.dumps({"id": i, "family": family, "prompt": "", "text": 42}),
                    "   ",
                ]
            )
            continue
        prompt, text = make(rng, roll > 0.99)
        record = {"id": i, "family": family, "prompt": prompt, "text": text}
        if rng.random() < 0.5:
            record["tools"] = TOOLS
        yield json.dumps(record, ensure_ascii=False)


def write_jsonl(path: str, family: str, count: int, seed: int = 0, bad: bool = True) -> None:
    with open(path, "w", encoding="utf-8") as stream:
        for line in records(family, count, seed, bad):
            stream.write(line + "\n")
