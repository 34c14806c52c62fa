"""The catalogue: committed parsers for known model families, compiled by rtc.

Each ``NAME.py`` in this package is generated from the ``NAME.json`` beside it (``rtc compile --all
generated/`` rewrites them; ``rtc check --all generated/`` fails on drift). Parsers are imported
lazily: importing ``rtc.generated`` imports none of them.

    from rtc.generated import qwen3                  # by name (imports that one module)
    message = qwen3.parse_response(text, prefix=prompt)

    from rtc import generated
    parser = generated.for_model_type(config.model_type)   # None: unknown, or ambiguous

This registry is production code: standard library only.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["for_model_type", "get", "model_types", "names"]

# Catalogue name -> the transformers ``model_type``s it serves by default. An empty tuple means
# "by name only": the family's checkpoints share their model types with checkpoints that speak
# other formats (``llama``, ``mistral``, ``qwen3_moe`` for Qwen3-Coder...), so guessing from the
# model type would pick the wrong parser for some of them.
_MODEL_TYPES: dict[str, tuple[str, ...]] = {
    "apertus": ("apertus",),
    "cohere": ("cohere2",),
    "deepseek_v3": (),
    "deepseek_v31": (),
    "deepseek_v32": (),
    "deepseek_v4": ("deepseek_v4",),
    "ernie": ("ernie4_5", "ernie4_5_moe"),
    "functiongemma": (),
    "gemma4": ("gemma4",),
    "gemma4_rtc": (),
    "gigachat3": (),
    "glm4_moe": ("glm4_moe",),
    "gpt_oss": ("gpt_oss",),
    "granite3": (),
    "granite4": ("granitemoehybrid",),
    "granite_20b_fc": (),
    "hunyuan_a13b": (),
    "hy_v3": (),
    "hyperclovax": (),
    "internlm2": ("internlm2",),
    "jamba": (),
    "kimi_k2": ("kimi_k2",),
    "kimi_k3": (),
    "lfm2_5": ("lfm2",),
    "llama3": (),
    "llama4": (),
    "longcat": (),
    "minimax_m1": (),
    "minimax_m2": ("minimax_m2",),
    "mistral": (),
    "mistral_magistral": (),
    "mistral_v3": (),
    "nemotron3": ("nemotron_h",),
    "nemotron_nano2": (),
    "olmo3": ("olmo3",),
    "phi4_mini": (),
    "pythonic": (),
    "qwen3": (
        "qwen2",
        "qwen2_moe",
        "qwen2_vl",
        "qwen2_5_vl",
        "qwen3",
        "qwen3_moe",
        "qwen3_next",
        "qwen3_vl",
        "qwen3_vl_moe",
    ),
    "qwen3_5": ("qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text"),
    "qwen3_5_rtc": (),
    "qwen3_coder": (),
    "qwen3_rtc": (),
    "r1_distill": (),
    "seed_oss": ("seed_oss",),
    "smollm3": ("smollm3",),
    "step3": (),
    "step3p5": (),
    "xlam": (),
}

_NAMES: tuple[str, ...] = tuple(sorted(_MODEL_TYPES))


# model type -> name; no type is listed twice (tests/test_catalogue.py checks it).
_BY_MODEL_TYPE: dict[str, str] = {
    model_type: name for name in _NAMES for model_type in _MODEL_TYPES[name]
}


def names() -> list[str]:
    """The catalogue's parser names, sorted (``["cohere", "deepseek_v4", ...]``)."""
    return list(_NAMES)


def _check(name: str) -> str:
    if not isinstance(name, str) or name not in _MODEL_TYPES:
        raise KeyError(f"unknown parser {name!r}; known parsers: {', '.join(_NAMES)}")
    return name


def get(name: str) -> ModuleType:
    """The generated parser module ``rtc.generated.NAME`` (imported on first use).

    Raises ``KeyError`` (listing the known names) for a name outside the catalogue.
    """
    return importlib.import_module(f"{__name__}.{_check(name)}")


def model_types(name: str) -> list[str]:
    """The transformers ``model_type``s that ``for_model_type`` maps to parser ``name``.

    Empty for parsers available by name only. Raises ``KeyError`` for an unknown name.
    """
    return list(_MODEL_TYPES[_check(name)])


def for_model_type(model_type: str) -> ModuleType | None:
    """The default parser for a transformers ``model_type`` (``config.model_type``), or ``None``.

    ``None`` when the type is unknown, or when it is shared by checkpoints with different formats
    (``llama``, ``mistral``, ``mistral3``...): pick those parsers by name with ``get``.
    """
    name = _BY_MODEL_TYPE.get(model_type) if isinstance(model_type, str) else None
    return None if name is None else get(name)


def __getattr__(attribute: str) -> ModuleType:
    # `rtc.generated.qwen3` as an attribute, imported lazily (PEP 562).
    if attribute in _MODEL_TYPES:
        return get(attribute)
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES})
