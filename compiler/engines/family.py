"""Which rtc parser serves a model: the family a serving engine's ``rtc`` parser name stands for.

A serving engine names its parser once, at start-up (``--tool-call-parser rtc`` or
``rtc-<family>``); :func:`choose` turns that name and what the engine knows about the model (its
tokenizer, its ``model_type``, its chat template) into a generated parser module, or refuses with
one :class:`FamilyError` line that says what to do instead. In order:

1. ``RTC_PARSER`` (environment): a module name or a ``.py`` file written by ``rtc compile``, for
   a server without the compiler extra whose tokenizer ships its own template (pre-compiled);
2. ``rtc-<family>``: that catalogue family, nothing guessed;
3. the tokenizer's own ``response_template``: the catalogue module when the template is a
   catalogue template byte for byte (same ``TEMPLATE_SHA256``), else compiled in memory
   (``rtc.compiler.load``: the compiler extra; without it, a start-up error says what to install
   or to pre-compile);
4. the model's ``model_type``: evidence first (:func:`chat_template_evidence`: which catalogue
   families read back what the served chat template writes), else the catalogue's own map
   (``rtc.generated.for_model_type``: only types that one format serves). Where the catalogue
   keeps an rtc-maintained sibling of an official template (``gemma4`` → ``gemma4_rtc``,
   ``qwen3`` → ``qwen3_rtc``, ``qwen3_5`` → ``qwen3_5_rtc``), the sibling is chosen: it reads
   more of what the models really write (README, Serving engines). No confident answer:
   :class:`FamilyError` naming the ``rtc-<family>`` choices.

Imports only the standard library and rtc (the compiler only when a template must be compiled).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from rtc import generated

from ..regex_syntax import parse
from ..regex_syntax.literal import literal_runs

__all__ = [
    "PARSER_ENV",
    "Choice",
    "Evidence",
    "FamilyError",
    "chat_template_evidence",
    "choose",
    "choose_for_tokenizer",
    "parser_names",
    "special_tokens_kept",
    "template_sha256",
]

PREFIX = "rtc"
"""The parser name that chooses by the model; ``rtc-<family>`` names one family."""

PARSER_ENV = "RTC_PARSER"
"""Environment variable naming a pre-compiled parser (a module name or a ``.py`` file)."""

SIBLING_SUFFIX = "_rtc"
"""An rtc-maintained sibling of an official template is named ``<official>_rtc``."""


class FamilyError(ValueError):
    """No parser can be chosen for the served model: one line saying why and what to do."""


@dataclass(frozen=True)
class Choice:
    """The parser chosen for a model, and why (a sentence for the server's log)."""

    module: ModuleType
    name: str  # the catalogue family, or what the template was read from
    reason: str


@dataclass(frozen=True)
class Evidence:
    """What the served chat template says about the catalogue: the families whose parsers read
    back every probe the chat template renders (``best``), and a sentence of how it was found."""

    best: tuple[str, ...]
    how: str


EvidenceSource = Callable[[str, dict[str, str]], "Evidence | None"]
"""``(chat_template, special_tokens) -> Evidence``, or ``None`` when nothing can be said."""


def parser_names() -> list[str]:
    """Every parser name rtc registers in a serving engine: ``rtc`` and ``rtc-<family>``."""
    return [PREFIX, *(f"{PREFIX}-{name}" for name in generated.names())]


def template_sha256(template: dict[str, Any]) -> str:
    """The ``TEMPLATE_SHA256`` a generated module of ``template`` carries."""
    text = json.dumps(template, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


_CATALOGUE: dict[str, str] = {}
_COMPILED: dict[str, ModuleType] = {}
_LOCK = threading.Lock()


def _sorted_json(template: dict[str, Any]) -> str:
    return json.dumps(template, ensure_ascii=True, separators=(",", ":"), sort_keys=True)


def _catalogue_family(template: dict[str, Any]) -> str | None:
    """The catalogue family whose template equals ``template``, its keys in any order (read from
    the templates shipped beside the modules, so that no parser module is imported to find
    out). transformers writes ``tokenizer_config.json`` with sorted keys, so a checkpoint never
    holds the catalogue's bytes; what key order changes, the order of the keys of a one-shot
    message, is not part of an OpenAI answer."""
    with _LOCK:
        if not _CATALOGUE:
            folder = Path(generated.__file__).parent
            for name in generated.names():
                text = (folder / f"{name}.json").read_text(encoding="utf-8")
                _CATALOGUE[_sorted_json(json.loads(text))] = name
    return _CATALOGUE.get(_sorted_json(template))


def _family_choices() -> str:
    return ", ".join(f"{PREFIX}-{name}" for name in generated.names())


def _preferred(name: str) -> str:
    sibling = name + SIBLING_SUFFIX
    return sibling if sibling in generated.names() else name


def _from_env(value: str) -> Choice:
    try:
        if value.endswith(".py"):
            spec = importlib.util.spec_from_file_location(Path(value).stem, value)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {value}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(value)
    except (ImportError, OSError, SyntaxError) as error:
        raise FamilyError(f"{PARSER_ENV}={value}: cannot import the parser: {error}") from error
    if not hasattr(module, "DeltaStream"):
        raise FamilyError(
            f"{PARSER_ENV}={value}: not a parser written by `rtc compile` (no DeltaStream)"
        )
    return Choice(module, value, f"{PARSER_ENV}={value}")


def _compiled(template: dict[str, Any]) -> Choice:
    sha = template_sha256(template)
    family = _catalogue_family(template)
    if family is not None:
        return Choice(
            generated.get(family),
            family,
            f"the tokenizer's response_template is the catalogue's {family} template",
        )
    with _LOCK:
        module = _COMPILED.get(sha)
    if module is None:
        try:
            from rtc.compiler import load

            module = load(template)
        except ImportError as error:
            raise FamilyError(
                "the tokenizer ships its own response_template, and compiling it needs rtc's "
                f"compiler extra ({error.name or error} is missing): pip install 'rtc[compiler]', "
                f"or compile it beforehand (rtc compile tokenizer_config.json -o parser.py) and "
                f"set {PARSER_ENV}=parser.py"
            ) from error
        except ValueError as error:  # TemplateError: the template does not load in transformers
            raise FamilyError(f"the tokenizer's response_template is invalid: {error}") from error
        with _LOCK:
            _COMPILED.setdefault(sha, module)
    return Choice(module, "response_template", "the tokenizer's own response_template, compiled")


def chat_template_evidence(chat_template: str, special_tokens: dict[str, str]) -> Evidence | None:
    """Which catalogue families read back what ``chat_template`` writes (``rtc match``): its
    probe conversations rendered with the served chat template, parsed back by every catalogue
    parser; ``best`` holds the families that give back every probe as written. None when the
    chat template cannot be rendered (then :func:`choose` falls back to the ``model_type``)."""
    from rtc.compiler.chat import ChatTemplateError
    from rtc.compiler.match import match

    try:
        found = match(chat_template, special_tokens)
    except ChatTemplateError:
        return None
    if not found.rendered:
        return None
    top = found.ranking[0] if found.ranking else None
    probes = f"{top.passed}/{top.total} probes" if top is not None else "no probe"
    return Evidence(tuple(found.best), f"rtc match: {probes} read back as written")


def _by_evidence(
    model_type: str | None,
    default: str | None,
    chat_template: str | None,
    special_tokens: dict[str, str],
    evidence: EvidenceSource,
) -> tuple[str, str] | None:
    """``(family, reason)`` when the served chat template settles it, else ``None``."""
    if not chat_template:
        return None
    found = evidence(chat_template, special_tokens)
    if found is None or not found.best:
        return None
    best = found.best
    bases = {name.removesuffix(SIBLING_SUFFIX) for name in best}

    def pick(base: str) -> str:  # the rtc-maintained sibling when it reads back as well
        return base + SIBLING_SUFFIX if base + SIBLING_SUFFIX in best else base

    if default is not None and default in bases:
        reason = f"model_type {model_type!r} and the chat template agree ({found.how})"
        return pick(default), reason
    if len(bases) == 1:
        return pick(bases.pop()), f"the chat template reads back through it alone ({found.how})"
    served = f"model_type {model_type!r}" if model_type else "an unknown model_type"
    raise FamilyError(
        f"{served}: the chat template reads back equally well through {', '.join(best)} "
        f"({found.how}): "
        f"name one with --tool-call-parser/--reasoning-parser "
        f"{' or '.join(PREFIX + '-' + name for name in best)}"
    )


def choose(
    parser_name: str,
    *,
    response_template: dict[str, Any] | None = None,
    model_type: str | None = None,
    chat_template: str | None = None,
    special_tokens: dict[str, str] | None = None,
    evidence: EvidenceSource = chat_template_evidence,
) -> Choice:
    """The parser a serving engine's ``parser_name`` (``rtc`` or ``rtc-<family>``) stands for.

    Raises :class:`FamilyError` (one line: why, and the names or installs that would work).
    """
    if parser_name != PREFIX:
        family = parser_name.removeprefix(PREFIX + "-")
        if not parser_name.startswith(PREFIX + "-") or family not in generated.names():
            raise FamilyError(f"unknown rtc parser {parser_name!r}; known: {_family_choices()}")
        return Choice(generated.get(family), family, f"named: {parser_name}")
    env = os.environ.get(PARSER_ENV)
    if env:
        return _from_env(env)
    if response_template is not None:
        if not isinstance(response_template, dict):
            raise FamilyError("the tokenizer's response_template is not a JSON object")
        return _compiled(response_template)
    default_module = generated.for_model_type(model_type) if model_type else None
    default = default_module.__name__.rpartition(".")[2] if default_module else None
    settled = _by_evidence(model_type, default, chat_template, special_tokens or {}, evidence)
    if settled is not None:
        family, reason = settled
        return Choice(generated.get(family), family, reason)
    if default is not None:
        family = _preferred(default)
        reason = f"model_type {model_type!r} is served by the catalogue's {default} format"
        if family != default:
            reason += f"; its rtc-maintained sibling {family} reads more real output"
        return Choice(generated.get(family), family, reason)
    what = f"model_type {model_type!r}" if model_type else "an unknown model_type"
    raise FamilyError(
        f"rtc cannot tell which format this model writes ({what}, no response_template in the "
        f"tokenizer, no evidence from its chat template): name the family with "
        f"--tool-call-parser and --reasoning-parser, one of {_family_choices()}"
    )


def special_tokens_kept(module: ModuleType, special_tokens: Sequence[str]) -> list[str]:
    """The tokenizer's special tokens that the parser's template needs to see: those written
    in a delimiter (a literal, or a run of characters a pattern matches as written:
    ``regex_syntax.literal.literal_runs``). A serving engine must not skip them when it
    decodes the generation."""
    texts: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            texts.append(value)
            texts.extend(literal_runs(parse(value)))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(module.TEMPLATE)
    return [token for token in special_tokens if token and any(token in t for t in texts)]


def _model_type_on_disk(name: str | None) -> str | None:
    """The ``model_type`` in the ``config.json`` of the folder a tokenizer was loaded from."""
    if not name:
        return None
    try:
        with open(os.path.join(name, "config.json"), encoding="utf-8") as stream:
            model_type = json.load(stream).get("model_type")
    except (OSError, ValueError, AttributeError):
        return None
    return model_type if isinstance(model_type, str) else None


def choose_for_tokenizer(
    parser_name: str, tokenizer: Any, *, model_type: str | None = None
) -> Choice:
    """:func:`choose` with what a served (transformers) tokenizer tells: its own
    ``response_template``, its chat template and bos/eos tokens, and, when the engine does not
    give ``model_type``, the ``config.json`` beside the tokenizer's files."""
    template = getattr(tokenizer, "response_template", None)
    if template is None:
        template = (getattr(tokenizer, "init_kwargs", None) or {}).get("response_template")
    specials = {
        name: value
        for name in ("bos_token", "eos_token")
        if isinstance(value := getattr(tokenizer, name, None), str)
    }
    if model_type is None:
        model_type = _model_type_on_disk(getattr(tokenizer, "name_or_path", None))
    return choose(
        parser_name,
        response_template=template,
        model_type=model_type,
        chat_template=getattr(tokenizer, "chat_template", None),
        special_tokens=specials,
    )
