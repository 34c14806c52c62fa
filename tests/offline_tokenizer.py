"""Real transformers tokenizers built offline, for tests that need one (no hub, no network).

A tiny word-level ``tokenizers`` model that knows the given special tokens, wrapped by transformers
and, when asked, saved with ``save_pretrained`` and loaded back with ``AutoTokenizer`` as a user's
model folder would be.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def build_tokenizer(
    chat_template: str | None = None,
    special_tokens: dict[str, str] | None = None,
    folder: Path | None = None,
    **init_kwargs: Any,
) -> Any:
    """A transformers tokenizer with ``chat_template`` and ``special_tokens`` (e.g. ``bos_token``).

    With ``folder``, the tokenizer is saved there and the one returned is loaded back from it.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    special_tokens = dict(special_tokens or {})
    vocab = {"<unk>": 0}
    for token in special_tokens.values():
        vocab.setdefault(token, len(vocab))
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    backend.decoder = decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token="<unk>", **special_tokens, **init_kwargs
    )
    if chat_template is not None:
        tokenizer.chat_template = chat_template
    if folder is None:
        return tokenizer
    tokenizer.save_pretrained(str(folder))
    return AutoTokenizer.from_pretrained(str(folder))
