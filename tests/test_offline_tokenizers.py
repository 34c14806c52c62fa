"""transformers tokenizers: rtc's parse_response / get_response_parser give what 5.23.0 gives.

The tokenizer is real and built offline: a character-level ``tokenizers`` model whose decoder
fuses tokens back into text, saved with ``save_pretrained`` and loaded with
``AutoTokenizer.from_pretrained`` (nothing comes from a hub).
"""

from __future__ import annotations

import inspect
import json
import pickle
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from rtc import generated  # noqa: E402
from rtc.compiler.offline import hf_tokenizers  # noqa: E402

SPECIALS = ["<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "</tool_call>"]
TEXTS = [
    "<think>\nhm\n</think>\n\nSure.<tool_call>\n"
    '{"name": "f", "arguments": {"n": "3"}}\n</tool_call><|im_end|>',
    "Plain answer.<|im_end|>",
    "<tool_call>\n{bad\n</tool_call><|im_end|>",
]
PROMPT = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
          "properties": {"n": {"type": "integer"}}}}}]  # fmt: skip


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    chars = sorted({c for text in [*TEXTS, PROMPT, *SPECIALS] for c in text} | {"[UNK]"})
    model = models.WordLevel({c: i for i, c in enumerate(chars)}, unk_token="[UNK]")
    tok = Tokenizer(model)
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    tok.decoder = decoders.Fuse()
    tok.add_special_tokens(SPECIALS)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, clean_up_tokenization_spaces=False)
    fast.response_template = generated.get("qwen3").TEMPLATE
    path = tmp_path_factory.mktemp("tok")
    fast.save_pretrained(path)
    (path / "config.json").write_text(json.dumps({"model_type": "qwen3"}))
    return path


def _load(folder: Path) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder))


def _outcome(call: Any) -> Any:
    try:
        return ("ok", call())
    except Exception as exc:
        return (type(exc), None)


def _same(got: Any, want: Any) -> bool:
    """Equal results, or errors of the same type (rtc's TemplateError is a ValueError)."""
    if isinstance(want[0], type) and isinstance(got[0], type):
        return issubclass(got[0], want[0])
    return got == want


def _parameters(method: Any) -> list[tuple[str, Any, Any]]:
    """Names, kinds and defaults (annotations differ: transformers names numpy and torch)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(method).parameters.values()]


def test_parser_for_a_tokenizer_and_a_folder(folder: Path) -> None:
    tokenizer = _load(folder)
    assert tokenizer.decode(tokenizer.encode(TEXTS[0])) == TEXTS[0]  # the decoder fuses
    module = hf_tokenizers.parser_for(tokenizer)
    assert module.TEMPLATE == generated.get("qwen3").TEMPLATE
    assert hf_tokenizers.parser_for(folder) is module  # compiled once per template
    # no response_template: the catalogue's parser for the model type, as serve falls back
    config = json.loads((folder / "tokenizer_config.json").read_text())
    del config["response_template"]
    bare = folder.parent / "bare"
    bare.mkdir(exist_ok=True)
    for name in ("tokenizer.json", "config.json"):
        (bare / name).write_bytes((folder / name).read_bytes())
    (bare / "tokenizer_config.json").write_text(json.dumps(config))
    assert hf_tokenizers.parser_for(bare) is generated.get("qwen3")
    assert hf_tokenizers.parser_for(_load(bare)) is generated.get("qwen3")
    assert hf_tokenizers.parser_for(bare, model_type="gemma4") is generated.get("gemma4")
    assert hf_tokenizers.parser_for(bare, model_type="no_such") is None


def test_patched_parse_response_answers_like_5_23_0(folder: Path) -> None:
    reference = _load(folder)
    patched = hf_tokenizers.use_rtc(_load(folder))
    ids = [reference.encode(t, add_special_tokens=False) for t in TEXTS]
    prompt_ids = reference.encode(PROMPT, add_special_tokens=False)
    calls = [
        ((TEXTS[0],), {"prefix": PROMPT}),
        ((TEXTS[0],), {"prefix": PROMPT, "tools": TOOLS}),
        ((ids[0],), {"prefix": prompt_ids}),
        ((ids,), {"prefix": prompt_ids}),  # a batch of token ids
        ((TEXTS,), {"prefix": [PROMPT, "", PROMPT]}),
        ((TEXTS[:2],), {"prefix": []}),  # an empty list opts out
        ((TEXTS[:2],), {"prefix": [PROMPT]}),  # wrong number of prefixes: ValueError
        ((TEXTS[2],), {"prefix": PROMPT}),  # malformed call: ValueError
        ((TEXTS[0],), {}),  # no prefix: ValueError
        (([],), {"prefix": ""}),
        ((TEXTS[0], {"fields": {}}), {"prefix": ""}),  # invalid schema
        ((TEXTS[1], generated.get("mistral").TEMPLATE), {"prefix": ""}),
    ]
    for args, kwargs in calls:
        want = _outcome(lambda: reference.parse_response(*args, **kwargs))  # noqa: B023
        got = _outcome(lambda: patched.parse_response(*args, **kwargs))  # noqa: B023
        assert _same(got, want), (args, kwargs, got, want)
    # really answered by rtc, with the same signature, and undone by restore()
    assert patched.parse_response.__func__ is hf_tokenizers._parse_response
    for name in ("parse_response", "get_response_parser"):
        assert _parameters(getattr(patched, name)) == _parameters(getattr(reference, name))
    hf_tokenizers.restore(patched)
    assert patched.parse_response.__func__ is type(patched).parse_response


def test_a_patched_tokenizer_pickles_and_stays_patched(folder: Path) -> None:
    patched = hf_tokenizers.use_rtc(_load(folder), model_type="qwen3")
    copy = pickle.loads(pickle.dumps(patched))
    assert copy.parse_response.__func__ is hf_tokenizers._parse_response
    assert copy.parse_response.__self__ is copy
    assert copy.parse_response(TEXTS[0], prefix=PROMPT) == patched.parse_response(
        TEXTS[0], prefix=PROMPT
    )


def test_patched_get_response_parser_streams_like_5_23_0(folder: Path) -> None:
    reference = _load(folder)
    patched = hf_tokenizers.use_rtc(_load(folder))
    prompt_ids = reference.encode(PROMPT, add_special_tokens=False)
    for prefix in (PROMPT, prompt_ids):
        streams = []
        for tokenizer in (reference, patched):
            parser = tokenizer.get_response_parser(prefix=prefix, tools=TOOLS)
            events = list(parser.initial_events)
            for i in range(0, len(TEXTS[0]), 3):
                events += parser.feed(TEXTS[0][i : i + 3])
            message, tail = parser.finalize()
            streams.append((events + tail, message))
        assert streams[0] == streams[1]
    assert type(patched.get_response_parser(prefix="")).__module__.startswith("rtc_loaded_")
    with pytest.raises(ValueError):
        patched.get_response_parser()  # no prefix, as 5.23.0
    with pytest.raises(ValueError):
        patched.get_response_parser(prefix=[prompt_ids, prompt_ids])  # one prefix only


def test_no_template_raises_unless_a_model_type_is_given(folder: Path) -> None:
    tokenizer = _load(folder)
    tokenizer.response_template = None
    hf_tokenizers.use_rtc(tokenizer)
    with pytest.raises(AttributeError):
        tokenizer.parse_response(TEXTS[1], prefix="")
    hf_tokenizers.use_rtc(tokenizer, model_type="qwen3")
    assert tokenizer.parse_response(TEXTS[1], prefix="") == generated.get("qwen3").parse_response(
        TEXTS[1], prefix=""
    )
