"""Chat templates: rendered in a sandbox, read from a model's files, cut into assistant turns.

``rtc lint`` (round trips), ``rtc match`` and ``rtc infer`` all learn from what a model's chat
template writes; this package is what they share. It needs jinja2 only (no click, no black), so
a serving engine can import it at start-up:

- :mod:`.template`: :class:`ChatTemplate`, rendering as transformers renders, in jinja2's
  sandbox;
- :mod:`.turns`: :func:`render_turn`, the prompt and the assistant turn of a message;
- :mod:`.source`: :func:`read_chat_source`, a chat template and special tokens from files.
"""

from __future__ import annotations

from .source import ChatSource, read_chat_source
from .template import REASONING_KEYS, ChatTemplate, ChatTemplateError
from .turns import USER, Turn, assistant_turn, generation_prompt, render_turn

__all__ = [
    "REASONING_KEYS",
    "USER",
    "ChatSource",
    "ChatTemplate",
    "ChatTemplateError",
    "Turn",
    "assistant_turn",
    "generation_prompt",
    "read_chat_source",
    "render_turn",
]
