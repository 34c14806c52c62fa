"""The prompt as a parser reads it, without decoding all of it.

An engine hands the parser the prompt's token ids; the parser reads only the prompt's text after
the last match of its template's start anchor (``rtc.runtime.oneshot.truncate``): for a chat
model, the assistant turn's header and what follows it. Decoding every token of the prompt to
find it costs in proportion to the prompt: about 2 ms for a 10,000-token prompt on the
development machine, per request, as much as rtc spends on a few hundred streamed tokens. So
the text is decoded from a token near the end instead, and the whole prompt only where that
cannot be shown to give the same text after the anchor.

Why a tail gives the same text. With a fast tokenizer whose decoder is built only from the
steps in :data:`LOCAL_STEPS` (and, once a step has joined the text into one piece, only steps
that change single characters or its ends), decoding maps each token to text on its own, except
at the very start of what is decoded (Metaspace drops the first token's leading space, Strip
after Fuse strips the start of the whole text) and across a run of byte tokens (ByteLevel and
ByteFallback join the bytes of neighbouring tokens before reading them as UTF-8, so a character
may span tokens). Cut the ids just before an added token whose text starts with a printable ASCII
character other than a space (a "clean" token: ``<|im_start|>``, ``<start_of_turn>``,
``[INST]``, ``<｜Assistant｜>``): no such step changes that token's text at the start (it has no
leading space or ``▁``; a Strip must strip spaces), and no character spans the cut (its first
byte is ASCII, never part of a multi-byte character; ByteLevel reads a token it cannot map as
the token's own UTF-8; a Replace may only turn ``▁`` into a space, as SentencePiece's do). So
the text decoded from there is exactly the end of the whole prompt's text. The start anchor is
a tuple of literals no two occurrences of which overlap (``truncate``): if one of them occurs in
that end, the last match of the anchor in the whole text is in it (an occurrence reaching back
over the cut would overlap any occurrence after the cut), and both texts are truncated to the
same text. Where no literal occurs in the end, the cut moves back to the previous clean token,
a few times; then the whole prompt is decoded. Other decoders, slow tokenizers and pattern
anchors always decode the whole prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

__all__ = ["LOCAL_STEPS", "TEXTS", "TailReading", "prompt_text", "tail_reading"]

LOCAL_STEPS = frozenset(
    {"ByteLevel", "Metaspace", "ByteFallback", "Fuse", "Strip", "Replace", "BPEDecoder"}
)
"""Decoder steps that read each token on its own, but for the start of the text and runs of byte
tokens (see the module's docstring). WordPiece (its clean-up joins a space to the punctuation
after it), CTC (it drops a token equal to the one before) and anything unknown are left out."""
JOINING = frozenset({"ByteLevel", "Fuse"})
"""Steps whose output is one piece of text: after one, a step reads the whole text, so only
steps that change single characters or the ends of the text may follow (:data:`AFTER_JOINING`);
a Replace there could match across the cut."""
AFTER_JOINING = frozenset({"Strip", "Metaspace"})

TRIES = 4
"""Clean tokens tried from the end before the whole prompt is decoded."""
SCAN = 2048
"""Tokens looked through from the end for a clean token (a prompt with none decodes whole)."""
TEXTS = 64
"""Decoded tails a :class:`TailReading` keeps (a tail holds at most :data:`SCAN` tokens)."""


class TailReading(NamedTuple):
    """How to read the end of a prompt for one tokenizer: its fast decoder, and the ids of its
    clean added tokens (where the text may be cut)."""

    decode: Any  # the fast tokenizer's decode(ids, skip_special_tokens=False)
    starts: frozenset[int]
    texts: dict[tuple[int, ...], str]
    """Tails decoded lately, by their ids (at most :data:`TEXTS`, the oldest dropped first):
    decoding is a function of the ids alone, and most requests to one model end their prompt
    with the same tail (the assistant turn's header, ``<think>`` and the like), which a request
    then reads without decoding. A request pays the decoder's call otherwise: about 40 µs per
    request in the serving path measured (qwen3_5's tokenizer, a tail of five tokens)."""


def tail_reading(tokenizer: Any) -> TailReading | None:
    """``tokenizer``'s :class:`TailReading`, or None where a tail is not known to decode as the
    end of the whole (no fast backend, or a decoder step outside :data:`LOCAL_STEPS`)."""
    backend = getattr(tokenizer, "_tokenizer", None)
    if backend is None or not hasattr(backend, "decode"):
        return None
    decoder = getattr(backend, "decoder", None)
    if decoder is None or not _local(json.loads(decoder.__getstate__())):
        return None
    added = backend.get_added_tokens_decoder()
    starts = frozenset(i for i, token in added.items() if _clean(token.content))
    if not starts:
        return None
    return TailReading(backend.decode, starts, {})


def _local(decoder: Any) -> bool:
    steps = _steps(decoder)
    if not steps:
        return False
    types = [step["type"] for step in steps]
    if not set(types) <= LOCAL_STEPS:
        return False
    # Strip removes its character from a start: only spaces (a clean token starts with none);
    # a Replace could make a clean token's first character a space: only SentencePiece's.
    for step in steps:
        if step["type"] == "Strip" and step.get("content") != " ":
            return False
        if step["type"] == "Replace" and (
            step.get("pattern") != {"String": "▁"} or step.get("content") != " "
        ):
            return False
    joined = next((i for i, kind in enumerate(types) if kind in JOINING), None)
    return joined is None or set(types[joined + 1 :]) <= AFTER_JOINING


def _steps(step: Any) -> list[dict[str, Any]] | None:
    """A decoder's steps in order (a Sequence flattened); None for a shape not known."""
    if not isinstance(step, dict) or not isinstance(step.get("type"), str):
        return None
    if step["type"] != "Sequence":
        return [step]
    out: list[dict[str, Any]] = []
    for inner in step.get("decoders") or ():
        found = _steps(inner)
        if found is None:
            return None
        out += found
    return out


_BYTE_TOKEN = re.compile(r"<0x[0-9A-Fa-f]{2}>")


def _clean(content: Any) -> bool:
    """Text that starts with a printable ASCII character other than a space, and is not a byte
    token (ByteFallback reads ``<0x41>`` as a byte)."""
    return (
        isinstance(content, str)
        and "!" <= content[:1] <= "~"
        and not _BYTE_TOKEN.fullmatch(content)
    )


def prompt_text(reading: TailReading | None, anchor: Any, ids: Sequence[int]) -> str | None:
    """Text of the end of the prompt ``ids`` that ``truncate(anchor, ...)`` reads as it reads
    the whole prompt's text; None where that is not shown (then decode the whole prompt)."""
    if reading is None or anchor.__class__ is not tuple or not anchor:
        return None
    starts = reading.starts
    cut = len(ids)
    stop = max(0, cut - SCAN)
    for _ in range(TRIES):
        cut -= 1
        while cut >= stop and ids[cut] not in starts:
            cut -= 1
        if cut < stop:
            return None
        text = _decoded(reading, tuple(ids[cut:]))
        for literal in anchor:
            if literal in text:
                return text
    return None


def _decoded(reading: TailReading, tail: tuple[int, ...]) -> str:
    """The text of the ids ``tail``, decoded once while :attr:`TailReading.texts` keeps it."""
    texts = reading.texts
    text = texts.get(tail)
    if text is None:
        text = reading.decode(list(tail), skip_special_tokens=False)
        if len(texts) >= TEXTS:
            del texts[next(iter(texts))]
        texts[tail] = text
    return text
