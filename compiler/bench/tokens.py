"""Cutting a text into the chunks a server streams: one detokenized BPE token at a time.

A serving engine hands the parser the text of each new token. BPE tokenizers of chat models first
split text into pieces (a word with its leading space, up to three digits, a run of punctuation,
a run of newlines, other whitespace) and then into tokens within each piece: a common English word
is one token, a long or rare word several, a Chinese character usually one. ``token_chunks``
follows that shape without a vocabulary: pieces of at most 8 characters are one chunk, longer
ones are cut into 3- to 6-character parts, and runs of Han characters into 1- or 2-character
parts, the cut points drawn from a seeded generator, so the chunks of a text are always the same.
Joined, the chunks are the text.
"""

from __future__ import annotations

import random

import regex

MAX_CHUNK = 8
"""The longest chunk: longer pieces are cut, as BPE cuts long words into several tokens."""

_PIECES = regex.compile(
    r" ?\p{Han}+"  # Chinese: cut into 1-2 character tokens below
    r"| ?\p{L}[\p{L}\p{M}]*"  # a word with its leading space
    r"| ?\p{N}{1,3}"  # numbers: at most three digits a token
    r"| ?[^\s\p{L}\p{N}]+"  # a run of punctuation, symbols or emoji
    r"|\n+"  # a run of newlines
    r"|[^\S\n]+"  # other whitespace
)
_HAN = regex.compile(r"\p{Han}")


def token_chunks(text: str, seed: int = 0) -> list[str]:
    """``text`` as a deterministic list of token-sized chunks (1 to ``MAX_CHUNK`` characters)."""
    rng = random.Random(seed)
    chunks: list[str] = []
    for piece in _PIECES.findall(text):
        if _HAN.search(piece):
            low, high = 1, 2
        elif len(piece) > MAX_CHUNK:
            low, high = 3, 6
        else:
            chunks.append(piece)
            continue
        start = 0
        while start < len(piece):
            # A leading space rides with the first part, as in the tokenizer's piece.
            size = rng.randint(low, high) + (1 if start == 0 and piece[0] == " " else 0)
            chunks.append(piece[start : start + size])
            start += size
    return chunks
