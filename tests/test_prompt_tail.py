"""The end of a prompt decoded alone reads, after the start anchor, as the whole prompt decoded
(``rtc.compiler.engines.prompt_tail``: what the vLLM plugin hands the parser as its prefix).

Real ``tokenizers`` tokenizers are built here offline, one per decoder shape of the catalogue's
models: byte-level BPE (Qwen, Llama 3, DeepSeek, GPT-OSS...), SentencePiece with byte fallback
(Llama 2, Mistral, Gemma: Replace, ByteFallback, Fuse, Strip), Metaspace; prompts mix words,
spaces, newlines, characters of two to four bytes (which byte tokens split) and added tokens,
clean (``<|im_start|>``, ``<｜Assistant｜>``) or not (a byte token's name).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

from rtc.compiler.engines.prompt_tail import TEXTS, TailReading, prompt_text, tail_reading
from rtc.runtime.oneshot import truncate

ADDED = [
    "<|im_start|>",
    "<|im_end|>",
    "<think>",
    "</think>",
    "<start_of_turn>",
    "<end_of_turn>",
    "[INST]",
    "[/INST]",
    "<｜Assistant｜>",  # clean too: it starts with "<"
    "<0x41>",  # not clean: a byte token's name
    " <spaced>",  # not clean: it starts with a space
]
ANCHORS = [
    ("<|im_start|>assistant\n",),
    ("<start_of_turn>model\n", "<end_of_turn>"),
    ("[/INST]",),
    ("<｜Assistant｜>",),
]


class _Tokenizer:
    """What the plugin reads of a transformers fast tokenizer: its backend."""

    def __init__(self, backend: Tokenizer) -> None:
        self._tokenizer = backend


def _byte_level() -> Tokenizer:
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    backend = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    return backend


def _sentencepiece() -> Tokenizer:
    pieces = ["▁", *(chr(c) for c in range(33, 127))]
    pieces += [f"<0x{b:02X}>" for b in range(256)]
    vocab = {piece: i for i, piece in enumerate(pieces)}
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[], byte_fallback=True))
    backend.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    backend.decoder = decoders.Sequence(
        [
            decoders.Replace("▁", " "),
            decoders.ByteFallback(),
            decoders.Fuse(),
            decoders.Strip(" ", 1, 0),
        ]
    )
    return backend


def _metaspace() -> Tokenizer:
    pieces = ["▁", *(chr(c) for c in range(33, 127)), "é", "日", "本", "🙂", "\n"]
    backend = Tokenizer(models.BPE(vocab={p: i for i, p in enumerate(pieces)}, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    backend.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first")
    return backend


def _with_added(backend: Tokenizer) -> Tokenizer:
    backend.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in ADDED])
    return backend


BUILDERS = {"byte_level": _byte_level, "sentencepiece": _sentencepiece, "metaspace": _metaspace}
TOKENIZERS = {name: _with_added(build()) for name, build in BUILDERS.items()}
# One reading per tokenizer for every example, as a served model has: tails decoded for one
# example are read from its cache by the next (TailReading.texts), checked like the others.
READINGS = {name: tail_reading(_Tokenizer(backend)) for name, backend in TOKENIZERS.items()}

PIECES = st.sampled_from(
    ["hello", " world", "\n", "  ", "é", "日本", "🙂", "x", ".", "assistant\n", "model\n", *ADDED]
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    name=st.sampled_from(sorted(TOKENIZERS)),
    anchor=st.sampled_from(ANCHORS),
    before=st.lists(PIECES, max_size=30),
    header=st.sampled_from(["", "<|im_start|>assistant\n", "<start_of_turn>model\n", "[/INST]"]),
    after=st.lists(PIECES, max_size=6),
)
def test_the_tail_truncates_as_the_whole(
    name: str, anchor: tuple[str, ...], before: list[str], header: str, after: list[str]
) -> None:
    backend = TOKENIZERS[name]
    ids = backend.encode("".join(before) + header + "".join(after)).ids
    whole = backend.decode(ids, skip_special_tokens=False)
    text = prompt_text(READINGS[name], anchor, ids)
    if text is not None:
        assert whole.endswith(text)
        assert truncate(anchor, text) == truncate(anchor, whole)


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_a_long_prompt_is_read_from_its_last_turn(name: str) -> None:
    backend = TOKENIZERS[name]
    turn = "<|im_start|>user\nwhat is 日本? 🙂 é<|im_end|>\n"
    prompt = turn * 500 + "<|im_start|>assistant\n<think>\n"
    ids = backend.encode(prompt).ids
    text = prompt_text(tail_reading(_Tokenizer(backend)), ("<|im_start|>assistant\n",), ids)
    assert text is not None and len(text) < 40
    whole = backend.decode(ids, skip_special_tokens=False)
    assert (
        truncate(("<|im_start|>assistant\n",), text)
        == truncate(("<|im_start|>assistant\n",), whole)
        == "<think>\n"
    )


def test_where_the_tail_is_not_shown_to_read_as_the_whole_the_prompt_is_decoded_whole() -> None:
    backend = _with_added(_byte_level())
    ids = backend.encode("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n").ids
    reading = tail_reading(_Tokenizer(backend))
    assert prompt_text(reading, ("<|im_start|>assistant\n",), ids) is not None
    # A pattern anchor, no anchor met within the tries, no reading.
    assert prompt_text(reading, object(), ids) is None
    assert prompt_text(reading, ("<|assistant|>",), ids) is None
    assert prompt_text(None, ("<|im_start|>assistant\n",), ids) is None
    # Decoders outside the known steps: WordPiece, a Replace after the text is joined, CTC,
    # a Strip of something other than spaces, a Replace other than SentencePiece's.
    for decoder in (
        decoders.WordPiece(),
        decoders.Sequence([decoders.Fuse(), decoders.Replace("a", "b")]),
        decoders.CTC(),
        decoders.Sequence([decoders.Fuse(), decoders.Strip("<", 1, 0)]),  # strips a "<"
        decoders.Sequence([decoders.Replace("<", " "), decoders.Fuse()]),  # makes a space
    ):
        backend.decoder = decoder
        assert tail_reading(_Tokenizer(backend)) is None
    assert tail_reading(object()) is None  # a slow tokenizer: no backend


def test_only_clean_added_tokens_are_cut_before() -> None:
    backend = TOKENIZERS["byte_level"]
    reading = tail_reading(_Tokenizer(backend))
    assert reading is not None
    clean = {backend.id_to_token(i) for i in reading.starts}
    assert clean == set(ADDED) - {"<0x41>", " <spaced>"}


def test_a_tail_is_decoded_once_while_kept() -> None:
    backend = TOKENIZERS["byte_level"]
    reading = tail_reading(_Tokenizer(backend))
    assert reading is not None
    calls: list[list[int]] = []

    def decode(ids: list[int], skip_special_tokens: bool = False) -> str:
        calls.append(ids)
        return backend.decode(ids, skip_special_tokens=skip_special_tokens)

    counted = TailReading(decode, reading.starts, {})
    anchor = ("<|im_start|>assistant\n",)
    header = "<|im_start|>assistant\n<think>\n"
    first = backend.encode("<|im_start|>user\nhi<|im_end|>\n" + header).ids
    second = backend.encode("<|im_start|>user\nanother question<|im_end|>\n" + header).ids
    assert prompt_text(counted, anchor, first) == header
    decoded = len(calls)  # two: "<think>\n" has no anchor, then from <|im_start|>
    assert decoded == 2
    assert prompt_text(counted, anchor, second) == header
    assert len(calls) == decoded  # the same tails end the second prompt: read from the cache
    # At most TEXTS tails are kept, the oldest dropped first.
    for n in range(TEXTS + 5):
        ids = backend.encode(f"<|im_start|>assistant\n{n}").ids
        assert prompt_text(counted, anchor, ids) == f"<|im_start|>assistant\n{n}"
    assert len(counted.texts) == TEXTS
    assert tuple(backend.encode(header).ids) not in counted.texts
    assert tuple(backend.encode(f"<|im_start|>assistant\n{TEXTS + 4}").ids) in counted.texts
