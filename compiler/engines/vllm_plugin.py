"""rtc's vLLM plugin: ``vllm serve MODEL --enable-auto-tool-choice --tool-call-parser rtc
--reasoning-parser rtc``.

Installed with rtc, the ``vllm.general_plugins`` entry point ``rtc`` calls :func:`register` in
every vLLM process. It checks that the running vLLM is the one this plugin was written and tested
against (:data:`TESTED`, and the signatures of every vLLM member it uses or overrides,
:data:`INTERFACE`), then registers the reasoning and tool parsers ``rtc`` and ``rtc-<family>``
(one per catalogue family), and makes vLLM combine an rtc pair into one parser object per request
(:func:`compose`; vLLM does the same for its ``hf`` response-template parser).

Another vLLM is never parsed with: the check fails, the error is logged when vLLM loads its
plugins, and the rtc names are registered as parsers that refuse to be built, so a server started
with them stops at start-up with that error (a server that does not name them runs as usual).

Only this module and :mod:`.vllm_parsers` import vLLM; nothing on the production import path of
generated parsers imports either.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from . import family, interface

__all__ = ["INTERFACE", "TESTED", "compose", "interface_problems", "register"]

TESTED = ("0.33.0",)
"""The vLLM releases this plugin was tested with (CI installs exactly these)."""

INTERFACE: dict[str, tuple[str, ...]] = {
    "vllm.parser.abstract_parser:Parser.__init__": (
        "self",
        "tokenizer",
        "tools",
        "args",
        "model_config",
        "kwargs",
    ),
    "vllm.parser.abstract_parser:Parser.parse": (
        "self",
        "model_output",
        "request",
        "enable_auto_tools",
        "model_output_token_ids",
    ),
    "vllm.parser.abstract_parser:Parser.parse_delta": (
        "self",
        "delta_text",
        "delta_token_ids",
        "request",
        "prompt_token_ids",
        "finished",
    ),
    "vllm.parser.abstract_parser:Parser.adjust_request": ("self", "request"),
    "vllm.parser.abstract_parser:Parser.set_prompt_token_ids": ("self", "prompt_token_ids"),
    "vllm.parser.abstract_parser:Parser.is_reasoning_end": ("self", "input_ids"),
    "vllm.parser.abstract_parser:Parser._initialize_history_tool_call_cnt": ("self", "request"),
    "vllm.parser.parser_manager:ParserManager._compose_parser": (
        "tool_parser_name",
        "reasoning_parser_name",
        "enable_auto_tools",
        "model_name",
        "is_harmony",
        "tool_strict_level",
        "tokenizer",
    ),
    "vllm.tool_parsers.abstract_tool_parser:ToolParserManager.register_module": (
        "name",
        "force",
        "module",
    ),
    "vllm.reasoning.abs_reasoning_parsers:ReasoningParserManager.register_module": (
        "name",
        "force",
        "module",
    ),
    "vllm.tool_parsers.abstract_tool_parser:ToolParser.__init__": ("self", "tokenizer", "tools"),
    "vllm.reasoning.abs_reasoning_parsers:ReasoningParser.__init__": (
        "self",
        "tokenizer",
        "args",
        "kwargs",
    ),
    "vllm.entrypoints.serve.utils.api_utils:get_max_tokens": (
        "max_model_len",
        "max_tokens",
        "input_length",
        "default_sampling_params",
        "override_max_tokens",
        "truncate_prompt_tokens",
    ),
    "vllm.renderers.chat_utils.tool_call:make_tool_call_id": ("id_type", "func_name", "idx"),
    # pydantic models: their fields, in order.
    "vllm.entrypoints.generate.base.protocol:DeltaMessage": (
        "role",
        "content",
        "reasoning",
        "tool_calls",
    ),
    "vllm.entrypoints.generate.base.protocol:DeltaToolCall": ("id", "type", "index", "function"),
    "vllm.entrypoints.generate.base.protocol:DeltaFunctionCall": ("name", "arguments"),
    "vllm.entrypoints.generate.base.protocol:FunctionCall": ("id", "name", "arguments"),
}
"""Every vLLM member the plugin calls or overrides, with its parameters (or model fields) as
vLLM 0.33.0 has them. A change in any of them is a vLLM this plugin was not written for."""

logger = logging.getLogger("rtc.engines.vllm")


def interface_problems() -> list[str]:
    """What differs between the running vLLM and the one this plugin was tested with (empty:
    nothing)."""
    import vllm

    return interface.problems("vLLM", getattr(vllm, "__version__", "unknown"), TESTED, INTERFACE)


def _add(name: str, reasoning: type, tool: type) -> None:
    """Register one name's reasoning and tool parser classes with vLLM."""
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    ReasoningParserManager.register_module(name=name, force=True, module=reasoning)
    ToolParserManager.register_module(name=name, force=True, module=tool)


# rtc's classes and the engine's bases for refusing ones (reasoning, tool): see interface.register.
_RTC_CLASSES = (
    "rtc.compiler.engines.vllm_parsers:RtcReasoningParser",
    "rtc.compiler.engines.vllm_parsers:RtcToolParser",
)
_ENGINE_BASES = (
    "vllm.reasoning.abs_reasoning_parsers:ReasoningParser",
    "vllm.tool_parsers.abstract_tool_parser:ToolParser",
)


@functools.cache
def register() -> None:
    """The entry point: register rtc's parsers in this vLLM process (once)."""
    problems = interface_problems()
    if not interface.register("vLLM", TESTED, problems, _add, _RTC_CLASSES, _ENGINE_BASES, logger):
        return
    from vllm.parser.parser_manager import ParserManager

    original = ParserManager._compose_parser.__func__
    ParserManager._compose_parser = classmethod(compose(original))


def _is_rtc(name: str | None) -> bool:
    return name is not None and (name == family.PREFIX or name.startswith(family.PREFIX + "-"))


def compose(original: Callable[..., Any]) -> Callable[..., Any]:
    """vLLM's ``ParserManager._compose_parser``, which makes an rtc pair one parser per request.

    When ``--reasoning-parser`` or ``--tool-call-parser`` names an rtc parser, the parser class
    is an :class:`~.vllm_parsers.RtcParser` for the family chosen now, at start-up (or a
    ``TypeError`` that says why none can be: the server does not start). Any other pair is
    vLLM's own business."""

    def compose_parser(
        cls: Any,
        tool_parser_name: str | None,
        reasoning_parser_name: str | None,
        enable_auto_tools: bool,
        model_name: str | None,
        is_harmony: bool,
        tool_strict_level: str | None,
        tokenizer: Any,
    ) -> Any:
        names = [n for n in (tool_parser_name, reasoning_parser_name) if n]
        if not any(_is_rtc(n) for n in names):
            return original(
                cls,
                tool_parser_name,
                reasoning_parser_name,
                enable_auto_tools,
                model_name,
                is_harmony,
                tool_strict_level,
                tokenizer,
            )
        if len(set(names)) != 1:
            raise TypeError(
                f"--tool-call-parser {tool_parser_name} and --reasoning-parser "
                f"{reasoning_parser_name}: an rtc parser reads reasoning and tool calls together; "
                "name the same rtc parser for both (or only --tool-call-parser)"
            )
        from vllm.tool_parsers.tool_strict_level import ToolStrictLevel

        from .vllm_parsers import RtcParser, choose

        name = names[0]
        reasoning_cls = cls.get_reasoning_parser(reasoning_parser_name)
        tool_cls = cls.get_tool_parser(tool_parser_name, enable_auto_tools, model_name)
        if reasoning_cls is None and tool_cls is None:
            return None
        choice = None
        keep: tuple[str, ...] = ()
        if tokenizer is not None:
            try:
                choice = choose(name, tokenizer, model_name=model_name)
            except family.FamilyError as error:
                raise TypeError(f"rtc: {error}") from error
            from .vllm_parsers import special_tokens

            keep = tuple(family.special_tokens_kept(choice.module, special_tokens(tokenizer)))
        strict = None if tool_strict_level is None else ToolStrictLevel.from_name(tool_strict_level)
        return type(
            "RtcParser",
            (RtcParser,),
            {
                "reasoning_parser_cls": reasoning_cls,
                "tool_parser_cls": tool_cls,
                "tool_strict_level": strict,
                "parser_name": name,
                "choice": choice,
                "keep_special": keep,
            },
        )

    return compose_parser
