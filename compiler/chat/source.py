"""Reading a model's chat template and special tokens from its files.

transformers 5 saves the chat template as ``chat_template.jinja`` beside ``tokenizer_config.json``;
older checkpoints keep it under the config's ``chat_template`` key, as a string or as a list of
named templates (``tool_use`` is taken when present, since the probes render tool calls, else
``default``). The config's special tokens (``bos_token``, ``eos_token``, …, also written out as
``AddedToken`` dicts) are passed to the template as transformers passes them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from rtc.compiler.errors import SourceError
from rtc.compiler.sources import (
    STDIN,
    TOKENIZER_CONFIG,
    display_name,
    read_json_file,
    read_text_file,
)

CHAT_TEMPLATE_FILE = "chat_template.jinja"


@dataclass
class ChatSource:
    """A chat template (jinja2 source), where it came from, and the tokenizer's special tokens."""

    text: str
    name: str
    special_tokens: dict[str, str] = field(default_factory=dict)


def _token_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]  # an AddedToken written out as a dict
    return None


def special_tokens(config: dict[str, Any]) -> dict[str, str]:
    """The ``*_token`` entries of a tokenizer config, as text."""
    out = {}
    for key, value in config.items():
        text = _token_text(value)
        if key.endswith("_token") and text is not None:
            out[key] = text
    return out


def config_chat_template(config: dict[str, Any], name: str) -> str | None:
    """The chat template a tokenizer config holds (None when it has none)."""
    value = config.get("chat_template")
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        named = {
            item.get("name"): item.get("template")
            for item in value
            if isinstance(item, dict) and isinstance(item.get("template"), str)
        }
        return named.get("tool_use") or named.get("default")
    raise SourceError(f"{name}: chat_template must be a string or a list of named templates")


def _config(path: str) -> dict[str, Any]:
    value = read_json_file(path)
    if not isinstance(value, dict):
        raise SourceError(f"{display_name(path)}: expected a JSON object (a tokenizer config)")
    return value


def _from_config(path: str) -> ChatSource:
    config = _config(path)
    tokens = special_tokens(config)
    beside = os.path.join(os.path.dirname(path) or ".", CHAT_TEMPLATE_FILE)
    if os.path.isfile(beside):
        return ChatSource(read_text_file(beside), beside, tokens)
    text = config_chat_template(config, display_name(path))
    if text is None:
        raise SourceError(f"{display_name(path)}: no chat_template key and no {CHAT_TEMPLATE_FILE}")
    return ChatSource(text, f"{display_name(path)} (chat_template)", tokens)


def read_chat_source(source: str) -> ChatSource:
    """The chat template named by ``source``: a ``tokenizer_config.json`` (or any JSON object
    with a ``chat_template`` key), a chat template file (its special tokens from a
    ``tokenizer_config.json`` beside it, if there is one), a folder holding either, or ``-``
    (stdin: a chat template, or a tokenizer config as JSON)."""
    if source == STDIN:
        text = read_text_file(source)
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            found = config_chat_template(value, "<stdin>")
            if found is None:
                raise SourceError("<stdin>: a JSON object without a chat_template key")
            return ChatSource(found, "<stdin> (chat_template)", special_tokens(value))
        return ChatSource(text, "<stdin>")
    if os.path.isdir(source):
        config = os.path.join(source, TOKENIZER_CONFIG)
        if os.path.isfile(config):
            return _from_config(config)
        jinja = os.path.join(source, CHAT_TEMPLATE_FILE)
        if os.path.isfile(jinja):
            return ChatSource(read_text_file(jinja), jinja)
        raise SourceError(
            f"{source}: folder has neither {CHAT_TEMPLATE_FILE} nor {TOKENIZER_CONFIG}"
        )
    if source.endswith(".json"):
        return _from_config(source)
    text = read_text_file(source)
    config = os.path.join(os.path.dirname(source) or ".", TOKENIZER_CONFIG)
    tokens = special_tokens(_config(config)) if os.path.isfile(config) else {}
    return ChatSource(text, display_name(source), tokens)
