"""Model folders that serving engines load offline, one per catalogue family (no hub, no weights).

A folder holds what an engine reads at start-up: ``config.json`` (the family's ``model_type`` and
a tiny architecture the engine knows), and a tokenizer saved by transformers: a byte-level BPE
model without merges (every byte one token, so any text encodes and decodes back exactly, one
token per byte as a model streams) plus the family's delimiters as added tokens. Delimiters that
are control tokens in the real model's tokenizer (``SPECIAL``) are added as special tokens, so a
decode with ``skip_special_tokens`` drops them as it drops the real ones; the family's end-of-turn
tokens (``stop`` in ``family.json``) are special too, the first one the eos token.

The chat template writes the prompt a request names in ``chat_template_kwargs`` (``rtc_prompt``),
else the family's recorded prompt, whatever the messages are: what the parser is handed as its
prefix is then that prompt, byte for byte.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from catalogue_data import CATALOGUE, GENERATED

# Token-shaped strings of the templates: <|name|>, <｜name｜>, [NAME], Gemma 4's <|name>, <name|>.
_TOKEN = re.compile(
    r"<\|[^|<>\s]{1,40}\|>|<｜[^｜\s]{1,40}｜>|\[/?[A-Z_]{2,20}\]|<\|[a-z_\"]{1,20}>|<[a-z_\"]{1,20}\|>"
)

# Which token-shaped delimiters are not control tokens in the real tokenizer: DeepSeek V3's
# tool-call markers are plain added tokens there (vLLM's deepseek_v3 tool parser reads them with
# skip_special_tokens left on, vllm-project/vllm vllm/tool_parsers/deepseekv3_tool_parser.py at
# v0.33.0), like the angle-bracket tags (<think>, <tool_call>) of every family. Every other
# token-shaped delimiter is a control token of its model (Llama's <|python_tag|>, Mistral's
# [TOOL_CALLS], Harmony's <|channel|>, Kimi's <|tool_call_begin|>, Gemma 4's <|tool_call>, ...).
NOT_SPECIAL = re.compile(r"<｜tool▁")


def _unescaped(text: str) -> str:
    return re.sub(r"\\(\W)", r"\1", text)


@cache
def delimiter_tokens(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(special, plain)``: the token-shaped delimiters of family ``name``'s template, split by
    whether the real model's tokenizer marks them special."""
    template = json.loads((GENERATED / f"{name}.json").read_text(encoding="utf-8"))
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.update(_TOKEN.findall(_unescaped(value)))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(template)
    special = tuple(sorted(t for t in found if not NOT_SPECIAL.match(t)))
    plain = tuple(sorted(t for t in found if NOT_SPECIAL.match(t)))
    return special, plain


def family_data(name: str) -> dict[str, Any]:
    return json.loads((CATALOGUE / name / "family.json").read_text(encoding="utf-8"))


def build_model(
    name: str,
    folder: Path,
    *,
    model_type: str = "qwen2",
    response_template: dict[str, Any] | None = None,
) -> Path:
    """A model folder for catalogue family ``name``; returns ``folder``.

    ``model_type`` goes to ``config.json`` (the family's own model type, or one rtc cannot
    decide from); ``response_template``, when given, to ``tokenizer_config.json``. The
    architecture is a tiny Qwen2 the engine can describe without weights.
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    data = family_data(name)
    special, plain = delimiter_tokens(name)
    stops = [s for s in data.get("stop", []) if s]
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {char: i for i, char in enumerate(sorted(alphabet))}
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    specials = sorted(set(special) | set(stops) | {"<|rtc_pad|>"})
    backend.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in specials])
    backend.add_tokens([AddedToken(t, special=False, normalized=False) for t in plain])
    eos = stops[0] if stops else "<|rtc_pad|>"
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, eos_token=eos, pad_token="<|rtc_pad|>"
    )
    tokenizer.chat_template = (
        "{{- rtc_prompt if rtc_prompt is defined else " + json.dumps(data["prompt"]) + " -}}"
    )
    folder.mkdir(parents=True, exist_ok=True)
    if response_template is not None:
        tokenizer.response_template = response_template
    tokenizer.save_pretrained(str(folder))
    config = {
        "architectures": ["Qwen2ForCausalLM"],
        "model_type": model_type,
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "num_hidden_layers": 1,
        "vocab_size": len(tokenizer),
        "max_position_embeddings": 32768,
        "torch_dtype": "float32",
        "eos_token_id": tokenizer.eos_token_id,
    }
    (folder / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    return folder


def fixture_cases(name: str) -> list[dict[str, Any]]:
    """The family's model outputs an engine can stream whole (no end-of-turn token inside), as
    ``{"id", "prompt", "text", "tools"}``, calls first; tools are the fixture's, else one untyped
    tool per called name (an engine returns calls only to a request that has tools)."""
    data = family_data(name)
    stops = [s for s in data.get("stop", []) if s]
    rows = [
        json.loads(line)
        for line in (CATALOGUE / name / "fixtures.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    rows = [r for r in rows if r["text"] and not any(s in r["text"] for s in stops)]
    rows.sort(key=lambda r: (not r["expected"].get("tool_calls"), r["id"]))
    cases = []
    for row in rows:
        tools = row.get("tools")
        if not tools:
            called = {c["name"] for c in row["expected"].get("tool_calls") or []}
            tools = [
                {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
                for n in sorted(called | {"get_weather"})
            ]
        prompt = row.get("prefix", data["prompt"])
        cases.append({"id": row["id"], "prompt": prompt, "text": row["text"], "tools": tools})
    return cases


def write_comparison(folder: Path, names: list[str]) -> Path:
    """A model folder per family and the cases file ``rtc.compiler.engines.vllm_compare``
    reads; returns the cases file."""
    spec = {
        name: {"tokenizer": str(build_model(name, folder / name)), "cases": fixture_cases(name)}
        for name in names
    }
    path = folder / "cases.json"
    path.write_text(json.dumps(spec, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


if __name__ == "__main__":
    import sys

    from rtc import generated

    # python tests/engine_models.py FOLDER [FAMILY...]: the side-by-side comparison's input.
    target = Path(sys.argv[1])
    print(write_comparison(target, sys.argv[2:] or generated.names()))
