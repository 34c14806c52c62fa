"""rtc's SGLang plugin: ``python -m sglang.launch_server --model-path MODEL --tool-call-parser rtc
--reasoning-parser rtc``.

Installed with rtc, the ``sglang.srt.plugins`` entry point ``rtc`` calls :func:`register` in
every SGLang process, before the server reads its arguments. It checks that the running SGLang is
the one this plugin was written and tested against (:data:`TESTED`; the signatures of every
SGLang member it calls or overrides, :data:`INTERFACE`; and the public members of the detector
classes it subclasses, :data:`MEMBERS`, since SGLang's server may call any of them), then adds
the detectors ``rtc`` and ``rtc-<family>`` (one per catalogue family) to SGLang's registries,
``FunctionCallParser.ToolCallParserEnum`` and ``ReasoningParser.DetectorMap``.

Another SGLang is never parsed with: the check fails, the error is logged, and the rtc names are
registered as detectors that refuse to be built with that error, so a server started with them
stops at start-up (a server that does not name them runs as usual).

Only this module and :mod:`.sglang_parsers` import SGLang; nothing on the production import path
of generated parsers imports either.
"""

from __future__ import annotations

import functools
import logging

from . import interface

__all__ = ["INTERFACE", "MEMBERS", "TESTED", "interface_problems", "register"]

TESTED = ("0.5.23",)
"""The SGLang releases this plugin was tested with (CI installs exactly these)."""

_FCP = "sglang.srt.function_call.function_call_parser:FunctionCallParser"
_RP = "sglang.srt.parser.reasoning_parser:ReasoningParser"
_RT = "sglang.srt.parser.response_template"
_BASE = "sglang.srt.function_call.base_format_detector:BaseFormatDetector"

INTERFACE: dict[str, tuple[str, ...]] = {
    # How the server builds and calls the parsers around rtc's detectors.
    f"{_FCP}.__init__": (
        "self",
        "tools",
        "tool_call_parser",
        "tokenizer",
        "tool_choice",
        "prefix",
        "constrained",
    ),
    f"{_FCP}.has_tool_call": ("self", "text"),
    f"{_FCP}.parse_non_stream": ("self", "full_text", "preserve_incomplete"),
    f"{_FCP}.parse_stream_chunk": ("self", "chunk_text"),
    f"{_FCP}.parse_stream_end": ("self",),
    f"{_FCP}.get_structure_constraint": (
        "self",
        "tool_choice",
        "parallel_tool_calls",
        "thinking_mode",
    ),
    f"{_RP}.__init__": (
        "self",
        "model_type",
        "stream_reasoning",
        "force_reasoning",
        "request",
        "tokenizer",
        "tool_call_parser_active",
        "prefix",
    ),
    f"{_RP}.parse_non_stream": ("self", "full_text"),
    f"{_RP}.parse_stream_chunk": ("self", "chunk_text"),
    f"{_RP}.parse_stream_end": ("self",),
    # The detector methods rtc overrides, as SGLang calls them.
    f"{_BASE}.__init__": ("self",),
    f"{_BASE}.detect_and_parse": ("self", "text", "tools"),
    f"{_BASE}.parse_streaming_increment": ("self", "new_text", "tools"),
    f"{_BASE}.has_tool_call": ("self", "text"),
    f"{_BASE}.finish": ("self", "tools"),
    f"{_RT}:ResponseTemplateToolDetector.__init__": (
        "self",
        "tokenizer",
        "response_template",
        "prefix",
        "tools",
        "constrained",
    ),
    f"{_RT}:ResponseTemplateToolDetector.validate_structure_constraint_request": (
        "self",
        "tool_choice",
        "parallel_tool_calls",
        "strict_requested",
        "tools",
        "thinking_mode",
    ),
    f"{_RT}:ResponseTemplateReasoningDetector.__init__": (
        "self",
        "stream_reasoning",
        "tokenizer",
        "response_template",
        "prefix",
        "force_nonempty_content",
        "grammar_start",
        "tools",
        "constrained",
        "_kwargs",
    ),
    f"{_RT}:ResponseTemplateReasoningDetector.detect_and_parse": ("self", "text"),
    f"{_RT}:ResponseTemplateReasoningDetector.parse_streaming_increment": ("self", "new_text"),
    f"{_RT}:ResponseTemplateReasoningDetector.finish": ("self",),
    # What the detectors return (pydantic models: their fields, in order).
    "sglang.srt.function_call.core_types:ToolCallItem": ("tool_index", "name", "parameters"),
    "sglang.srt.function_call.core_types:StreamingParseResult": ("normal_text", "calls"),
}
"""Every SGLang member the plugin calls or overrides, with its parameters (or model fields) as
SGLang 0.5.23 has them. A change in any of them is an SGLang this plugin was not written for."""

MEMBERS: dict[str, tuple[str, ...]] = {
    f"{_RT}:ResponseTemplateToolDetector": (
        "constrains_every_turn",
        "detect_and_parse",
        "finish",
        "get_auto_tool_call_structural_tag",
        "get_required_tool_parser",
        "get_structural_tag",
        "get_structural_tag_name",
        "has_tool_call",
        "open_call_closer",
        "parse_base_json",
        "parse_streaming_increment",
        "parses_required_natively",
        "parses_without_tools",
        "response_template",
        "strict_arguments",
        "structure_info",
        "supports_structural_tag",
        "validate_structure_constraint_request",
    ),
    f"{_RT}:ResponseTemplateReasoningDetector": (
        "answer_opener",
        "answer_rest_structural_tag",
        "detect_and_parse",
        "finish",
        "get_answer_frame",
        "get_self_opened_think_start_token_ids",
        "get_think_end_token_ids",
        "json_answer_structural_tag",
        "json_output_started",
        "parse_streaming_increment",
        "reasoning_default",
        "response_template",
        "starts_message",
        "strict_arguments",
        "thinks_internally",
    ),
}
"""The public members of the detector classes rtc's detectors subclass (SGLang's server may call
any of them): a member added in another SGLang would reach SGLang's template reader, which rtc's
detectors do not set up."""

logger = logging.getLogger("rtc.engines.sglang")


def interface_problems() -> list[str]:
    """What differs between the running SGLang and the one this plugin was tested with (empty:
    nothing)."""
    import sglang

    return interface.problems(
        "SGLang", getattr(sglang, "__version__", "unknown"), TESTED, INTERFACE, MEMBERS
    )


def _add(name: str, reasoning: type, tool: type) -> None:
    """Add one name's reasoning and tool detector classes to SGLang's registries."""
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    FunctionCallParser.ToolCallParserEnum[name] = tool
    ReasoningParser.DetectorMap[name] = reasoning


# rtc's classes and the engine's bases for refusing ones (reasoning, tool): see interface.register.
_RTC_CLASSES = (
    "rtc.compiler.engines.sglang_parsers:RtcReasoningDetector",
    "rtc.compiler.engines.sglang_parsers:RtcToolDetector",
)
_ENGINE_BASES = (
    "sglang.srt.parser.reasoning_parser:BaseReasoningFormatDetector",
    "sglang.srt.function_call.base_format_detector:BaseFormatDetector",
)


@functools.cache
def register() -> None:
    """The entry point: add rtc's detectors to this SGLang process's registries (once)."""
    problems = interface_problems()
    interface.register("SGLang", TESTED, problems, _add, _RTC_CLASSES, _ENGINE_BASES, logger)
