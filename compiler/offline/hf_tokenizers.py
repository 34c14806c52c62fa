"""transformers tokenizers: their ``response_template`` compiled by rtc.

    from rtc.compiler.offline import hf_tokenizers

    parser = hf_tokenizers.parser_for(tokenizer)           # or a model folder
    message = parser.parse_response(text, prefix=prompt)

    hf_tokenizers.use_rtc(tokenizer)                       # patch this tokenizer object
    tokenizer.parse_response(token_ids, prefix=prompt_ids) # now answered by rtc

:func:`parser_for` resolves a parser the way ``transformers serve`` (5.23.0) resolves a template:
the tokenizer's own ``response_template`` first, else a default chosen by the model's
``model_type`` — serve keeps a small table of fallbacks, rtc uses its catalogue
(``rtc.generated.for_model_type``, whose qwen3, qwen3_5 and gemma4 templates are serve's, byte
for byte). A template is compiled in memory once per content (cached by its canonical JSON, the
text ``TEMPLATE_SHA256`` hashes).

:func:`use_rtc` replaces ``parse_response`` and ``get_response_parser`` on one tokenizer object
(not on its class) with functions of the same signature that give what 5.23.0 gives — texts,
token ids (decoded with the tokenizer's own ``decode``), batches, prefixes broadcast or one per
item, the same exception types in the same order — but parse with compiled parsers. A schema
that is not a dict (an already loaded transformers ``ResponseTemplate``) is handed to the
original method. transformers itself is never imported here.
"""

from __future__ import annotations

import inspect
import json
import os
import threading
import types
from pathlib import Path
from typing import Any

_COMPILED: dict[str, types.ModuleType] = {}
_LOCK = threading.Lock()
_MODEL_TYPE = "_rtc_model_type"
"""Set on a tokenizer by :func:`use_rtc`: the catalogue fallback's model type (or ``None``)."""


def compiled(template: dict[str, Any]) -> types.ModuleType:
    """The rtc parser module for ``template``, compiled once per template content."""
    key = json.dumps(template, ensure_ascii=True, separators=(",", ":"))
    module = _COMPILED.get(key)
    if module is None:
        from rtc.compiler import load

        module = load(template)  # validates; raises TemplateError like the reference's load
        with _LOCK:
            _COMPILED[key] = module
    return module


def _read_json(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as stream:
            return json.load(stream)
    except FileNotFoundError:
        return None


def parser_for(tokenizer: Any, *, model_type: str | None = None) -> types.ModuleType | None:
    """The parser for a tokenizer (or a model folder), or ``None`` when there is none.

    Resolution: the ``response_template`` of the tokenizer (or of the folder's
    ``tokenizer_config.json``), else the catalogue parser for ``model_type`` (given, or read
    from the folder's ``config.json``; for a tokenizer, from ``config.json`` in the folder it
    was loaded from, when there is one).
    """
    folder: Path | None = None
    if isinstance(tokenizer, (str, os.PathLike)):
        folder = Path(tokenizer)
        config = _read_json(folder / "tokenizer_config.json")
        template = config.get("response_template") if isinstance(config, dict) else None
    else:
        template = getattr(tokenizer, "response_template", None)
        name = getattr(tokenizer, "name_or_path", None)
        if isinstance(name, str) and name and os.path.isdir(name):
            folder = Path(name)
    if template is not None:
        return compiled(template)
    if model_type is None and folder is not None:
        config = _read_json(folder / "config.json")
        model_type = config.get("model_type") if isinstance(config, dict) else None
    if model_type is None:
        return None
    from rtc import generated

    return generated.for_model_type(model_type)


def _fallback(tokenizer: Any, model_type: str | None, what: str) -> types.ModuleType:
    module = parser_for(tokenizer, model_type=model_type) if model_type is not None else None
    if module is None:
        raise AttributeError(f"This tokenizer has no `response_template` {what}")
    return module


def _texts(tokenizer: Any, value: Any) -> tuple[list[Any], bool]:
    """The texts of a response: one (a string or one sequence of ids) or a batch."""
    if isinstance(value, str):
        return [value], False
    if isinstance(value, (list, tuple)) and (not value or isinstance(value[0], str)):
        return list(value), True
    decoded = tokenizer.decode(value)
    return ([decoded], False) if isinstance(decoded, str) else (decoded, True)


def _prefixes(tokenizer: Any, prefix: Any, count: int) -> list[Any]:
    if isinstance(prefix, (list, tuple)) and not prefix:
        return [""] * count  # an empty list is the explicit opt-out
    texts, batched = _texts(tokenizer, prefix)
    if not batched:
        return texts * count
    if len(texts) != count:
        raise ValueError(
            f"{count} response(s) but {len(texts)} prefix(es): pass one prefix for all "
            "responses, or one per response"
        )
    return texts


def _parse_response(
    self: Any,
    response: Any,
    schema: Any = None,  # a dict is rtc's to parse; anything else goes to transformers
    *,
    prefix: Any = None,
    tools: list[Any] | None = None,
) -> Any:
    """``PreTrainedTokenizerBase.parse_response`` of transformers 5.23.0, parsed by rtc."""
    model_type = getattr(self, _MODEL_TYPE, None)
    if schema is None:
        schema = getattr(self, "response_template", None)
    if schema is not None and not isinstance(schema, dict):
        return type(self).parse_response(self, response, schema, prefix=prefix, tools=tools)
    if schema is None:
        module = _fallback(self, model_type, "for parsing chat responses")
    if prefix is None:
        raise ValueError(
            "parse_response needs prefix= (the prompt before the generation: chat templates "
            'often pre-write part of the answer); pass "" or [] to opt out'
        )
    texts, batched = _texts(self, response)
    prefixes = _prefixes(self, prefix, len(texts))
    if texts and schema is not None:
        module = compiled(schema)  # after the argument checks, as the reference loads it
    parsed = [
        module.parse_response(t, prefix=p, tools=tools)
        for t, p in zip(texts, prefixes, strict=True)
    ]
    return parsed if batched else parsed[0]


def _get_response_parser(
    self: Any,
    response_template: Any = None,  # a dict is rtc's to compile; anything else, transformers'
    *,
    prefix: Any = None,
    tools: list[Any] | None = None,
) -> Any:
    """``PreTrainedTokenizerBase.get_response_parser`` of 5.23.0, returning rtc's parser."""
    model_type = getattr(self, _MODEL_TYPE, None)
    template = response_template
    if template is None:
        template = getattr(self, "response_template", None)
    if template is not None and not isinstance(template, dict):
        return type(self).get_response_parser(self, response_template, prefix=prefix, tools=tools)
    if template is None:
        module = _fallback(self, model_type, "to build a response parser from")
    if prefix is not None and not isinstance(prefix, str):
        prefix = self.decode(prefix)
        if not isinstance(prefix, str):
            raise ValueError("get_response_parser takes one prefix (a string or one id sequence)")
    if template is not None:
        module = compiled(template)
    return module.ResponseParser(prefix, tools=tools)


_METHODS = {"parse_response": _parse_response, "get_response_parser": _get_response_parser}


class _RtcMethod:
    """One tokenizer's ``parse_response`` or ``get_response_parser``, answered by rtc.

    A callable rather than a bound method so that a patched tokenizer pickles (``datasets``
    with ``num_proc``, spawned workers) and comes back patched: it pickles as the tokenizer and
    the method's name. ``inspect.signature`` shows the method's own signature.
    """

    __slots__ = ("__self__", "name")

    def __init__(self, tokenizer: Any, name: str) -> None:
        self.__self__ = tokenizer
        self.name = name

    @property
    def __func__(self) -> Any:
        return _METHODS[self.name]

    @property
    def __signature__(self) -> inspect.Signature:
        signature = inspect.signature(self.__func__)
        return signature.replace(parameters=list(signature.parameters.values())[1:])

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.__func__.__doc__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__func__(self.__self__, *args, **kwargs)

    def __reduce__(self) -> tuple[Any, tuple[Any, str]]:
        return _RtcMethod, (self.__self__, self.name)

    def __repr__(self) -> str:
        return f"<rtc {self.name} of {type(self.__self__).__name__}>"


def use_rtc(tokenizer: Any, *, model_type: str | None = None) -> Any:
    """Make this tokenizer's ``parse_response`` / ``get_response_parser`` use rtc; returns it.

    ``model_type``: when the tokenizer has no ``response_template``, use the catalogue parser
    for this model type (as ``transformers serve`` falls back) instead of raising
    ``AttributeError``. Only this object is patched (not its class); the patch survives
    pickling. :func:`restore` undoes it.
    """
    setattr(tokenizer, _MODEL_TYPE, model_type)
    for name in _METHODS:
        setattr(tokenizer, name, _RtcMethod(tokenizer, name))
    return tokenizer


def restore(tokenizer: Any) -> Any:
    """Undo :func:`use_rtc` on this tokenizer object."""
    for name in (*_METHODS, _MODEL_TYPE):
        vars(tokenizer).pop(name, None)
    return tokenizer
