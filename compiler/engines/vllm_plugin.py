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

__all__ = ["INTERFACE", "SPEC", "TESTED", "compose", "interface_problems", "register"]

SPEC = interface.EngineInterface.load("vllm_interface.json")
"""The vLLM this plugin was written for (``vllm_interface.json``)."""
TESTED = SPEC.tested
"""The vLLM releases this plugin was tested with (CI installs exactly these)."""
INTERFACE = SPEC.parameters
"""Every vLLM member the plugin calls or overrides, with its parameters (or model fields) as the
tested release has them. A change in any of them is a vLLM this plugin was not written for."""

logger = logging.getLogger("rtc.engines.vllm")


def interface_problems() -> list[str]:
    """What differs between the running vLLM and the one this plugin was tested with (empty:
    nothing)."""
    import vllm

    return interface.problems(SPEC, getattr(vllm, "__version__", "unknown"))


def _add(name: str, reasoning: type, tool: type) -> None:
    """Register one name's reasoning and tool parser classes with vLLM."""
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    ReasoningParserManager.register_module(name=name, force=True, module=reasoning)
    ToolParserManager.register_module(name=name, force=True, module=tool)


@functools.cache
def register() -> None:
    """The entry point: register rtc's parsers in this vLLM process (once)."""
    if not interface.register(SPEC, interface_problems(), _add, logger):
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
