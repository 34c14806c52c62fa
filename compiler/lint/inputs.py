"""What ``rtc lint`` reads: a response template and, where the source has one, a chat template.

A SOURCE is a template JSON file, a ``tokenizer_config.json`` (its ``response_template``), a
folder holding one, or ``-``. The chat template comes from ``chat_template.jinja`` in the folder
(or beside the ``tokenizer_config.json``), as transformers 5 saves it, else from the config's
``chat_template`` key (read as :mod:`rtc.compiler.chat.source` reads it), or from
``--chat-template FILE``. The config's special tokens (``bos_token``, ``eos_token``, …) are
passed to the chat template as transformers passes them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from rtc.compiler.chat.source import CHAT_TEMPLATE_FILE, config_chat_template, special_tokens
from rtc.compiler.sources import (
    STDIN,
    TOKENIZER_CONFIG,
    display_name,
    read_json_file,
    read_template,
    read_text_file,
)


@dataclass
class LintInput:
    template: dict[str, Any]
    name: str
    chat_template: str | None = None
    chat_template_name: str | None = None
    special_tokens: dict[str, str] = field(default_factory=dict)


def read_input(source: str, chat_template: str | None = None) -> LintInput:
    """The template named by ``source`` and the chat template that goes with it, if any."""
    template, name = read_template(source)
    result = LintInput(template, name)
    config_path = None
    if source != STDIN and os.path.isdir(source):
        config_path = os.path.join(source, TOKENIZER_CONFIG)
    elif source != STDIN and os.path.basename(source) == TOKENIZER_CONFIG:
        config_path = source
    if config_path is not None:
        config = read_json_file(config_path)
        result.special_tokens = special_tokens(config)
        beside = os.path.join(os.path.dirname(config_path) or ".", CHAT_TEMPLATE_FILE)
        if os.path.isfile(beside):
            result.chat_template = read_text_file(beside)
            result.chat_template_name = beside
        else:
            result.chat_template = config_chat_template(config, display_name(config_path))
            if result.chat_template is not None:
                result.chat_template_name = f"{display_name(config_path)} (chat_template)"
    if chat_template is not None:
        result.chat_template = read_text_file(chat_template)
        result.chat_template_name = display_name(chat_template)
    return result
