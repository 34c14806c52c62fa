"""SGLang's detectors, answered by rtc's ``DeltaStream`` (imported only by the SGLang plugin).

SGLang builds two objects per request and choice: a ``ReasoningParser`` around the reasoning
detector (``--reasoning-parser``), then a ``FunctionCallParser`` around the tool detector
(``--tool-call-parser``), which is fed only what the reasoning detector returned as normal text.
Nothing of one request reaches both objects, so they cannot share one stream; instead each runs
its own ``DeltaStream`` of the chosen family over the same text, with the same prompt and tools,
and keeps its own part of the answer:

- :class:`RtcReasoningDetector` sends the stream's reasoning, and, when SGLang says a tool
  parser reads its normal text (``tool_call_parser_active``), passes the generated text through
  unchanged for the rtc tool detector to read again. Without a tool parser it sends the
  stream's content (calls are not sent: the request asked for none, or no tool parser runs).
- :class:`RtcToolDetector` sends the stream's content and calls (``ToolCallItem`` per delta, the
  call's index as ``tool_index``); its reasoning is the reasoning detector's, or, with no rtc
  reasoning parser configured, content.

Parsing twice costs a second parse per token; in exchange each role is the same exact
``DeltaStream`` that ``parse_openai`` is. Not streamed, the reasoning detector passes the text
through only when the answer holds calls (otherwise its normal text is the content, which the
tool detector then reads as such), so that an answer without calls is not reported by SGLang as
a call it could not parse.

Both subclass SGLang's response-template detectors, so that SGLang's server treats them as it
treats a template-driven parser: the rendered prompt handed over as ``prefix``, the request's
tools, and ``skip_special_tokens=False``. Every member SGLang's server calls on those classes is
answered here (the plugin checks that SGLang has no others); their template-reading constructors
are not run (SGLang's reader accepts none of the catalogue's templates).
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem
from sglang.srt.parser.reasoning_parser import StreamingParseResult as ReasoningResult
from sglang.srt.parser.response_template import (
    ResponseTemplateReasoningDetector,
    ResponseTemplateToolDetector,
)

from . import family
from .deltas import REASONING_KEY, merge, tool_dicts

logger = logging.getLogger("rtc.engines.sglang")
_CHOICES: dict[tuple[str, int], tuple[Any, family.Choice]] = {}


def choose(parser_name: str, tokenizer: Any) -> family.Choice:
    """The family ``parser_name`` stands for with this tokenizer, chosen once per tokenizer; a
    refusal is a ``RuntimeError`` (SGLang logs a ``ValueError`` from a detector at start-up and
    goes on; the server must stop instead)."""
    key = (parser_name, id(tokenizer))
    known = _CHOICES.get(key)
    if known is not None and known[0] is tokenizer:
        return known[1]
    try:
        choice = family.choose_for_tokenizer(parser_name, tokenizer)
    except family.FamilyError as error:
        raise RuntimeError(f"rtc: {error}") from error
    _CHOICES[key] = (tokenizer, choice)
    logger.info("rtc: %s parses with %s: %s", parser_name, choice.name, choice.reason)
    return choice


def _configured(role: str) -> str | None:
    """The parser name SGLang's server runs with for ``role`` (``reasoning_parser`` or
    ``tool_call_parser``); ``None`` outside a server (the parsers used directly)."""
    from sglang.srt.runtime_context import get_context, get_serving

    if not get_context().is_config_namespace_published("serving"):
        return None
    value = getattr(get_serving(), role, None)
    return value if isinstance(value, str) else ""


def _paired(name: str, role: str) -> bool:
    """Whether the other role runs the same rtc parser (outside a server: assumed). Another
    parser beside an rtc one is refused: rtc reads reasoning and calls together."""
    other = _configured(role)
    if other is None or other == name:
        return True
    if not other:
        return False
    raise RuntimeError(
        f"rtc: --{role.replace('_', '-')} {other} beside the rtc parser {name}: an rtc parser "
        "reads reasoning and tool calls together; name the same rtc parser for both (or only "
        "--tool-call-parser)"
    )


def _literal(module: Any, key: str) -> str:
    from rtc.runtime.openai import REASONING_NAMES

    fields = module.TEMPLATE.get("fields", {})
    for name in REASONING_NAMES:
        value = fields.get(name, {}).get(key) if isinstance(fields.get(name), dict) else None
        if isinstance(value, str):
            return value
    return ""


class _Stream:
    """One generation's ``DeltaStream``, started at its first piece of text."""

    __slots__ = ("module", "prefix", "tools", "stream")

    def __init__(self, module: Any, prefix: str | None, tools: list[dict[str, Any]]) -> None:
        self.module = module
        self.prefix = prefix or ""
        self.tools = tools
        self.stream: Any = None

    def feed(self, text: str) -> list[dict[str, Any]]:
        deltas: list[dict[str, Any]] = []
        if self.stream is None:
            self.stream = self.module.DeltaStream(
                self.prefix, tools=self.tools, reasoning_key=REASONING_KEY
            )
            deltas += [d for d in self.stream.initial_deltas if "role" not in d]
        if text:
            deltas += self.stream.feed(text)
        return deltas

    def finish(self) -> list[dict[str, Any]]:
        deltas = self.feed("")
        # SGLang does not tell its parsers why a generation ended: a call cut off by the length
        # limit is not closed, and the stream's end rejects it (its text is content).
        return deltas + self.stream.finish("stop")[0]

    def whole(self, text: str) -> dict[str, Any]:
        message, _, _ = self.module.parse_openai(
            text, prefix=self.prefix, tools=self.tools, reasoning_key=REASONING_KEY
        )
        return dict(message)


class _Named:
    parser_name: ClassVar[str] = family.PREFIX


class RtcReasoningDetector(_Named, ResponseTemplateReasoningDetector):
    """``--reasoning-parser rtc`` (or ``rtc-<family>``): the stream's reasoning."""

    response_template = None
    thinks_internally = False

    def __init__(
        self,
        stream_reasoning: bool = True,
        tokenizer: Any = None,
        prefix: str | None = "",
        tools: Any = None,
        tool_call_parser_active: bool = False,
        **_ignored: Any,  # force_reasoning, grammar_start...: the template and prompt decide
    ) -> None:
        choice = choose(self.parser_name, tokenizer)
        self._module = choice.module
        self.stream_reasoning = stream_reasoning
        self._pass_through = tool_call_parser_active and _paired(
            self.parser_name, "tool_call_parser"
        )
        self._stream = _Stream(choice.module, prefix, tool_dicts(tools))
        self._held: list[str] = []  # reasoning held back when it is not streamed
        self.think_start_token = _literal(choice.module, "open")
        self.think_end_token = _literal(choice.module, "close")
        self.think_excluded_tokens = None
        self.think_start_self_label = ""
        self.message_start_think_openers: list[str] = []
        self.answer_started = False
        self.response_template = choice.module.TEMPLATE

    # -- parsing -------------------------------------------------------------------------------

    def detect_and_parse(self, text: str) -> ReasoningResult:
        parse = _Stream(self._stream.module, self._stream.prefix, self._stream.tools)
        message = parse.whole(text)
        reasoning = message.get(REASONING_KEY) or ""
        normal = message.get("content") or ""
        if self._pass_through:
            # The tool detector reads what it is given: the content itself when reading it
            # again gives it back unchanged and no call, else the text with its calls.
            again = parse.whole(normal)
            if (
                message.get("tool_calls")
                or again.get("tool_calls")
                or again.get("content") != (normal or None)
            ):
                normal = text
        return ReasoningResult(normal_text=normal, reasoning_text=reasoning)

    def parse_streaming_increment(self, new_text: str) -> ReasoningResult:
        return self._result(self._stream.feed(new_text), new_text, end=False)

    def finish(self) -> ReasoningResult:
        return self._result(self._stream.finish(), "", end=True)

    def _result(self, deltas: list[dict[str, Any]], text: str, *, end: bool) -> ReasoningResult:
        # Most pieces give no delta, or one of one key: folded without merge().
        delta = deltas[0] if len(deltas) == 1 and "tool_calls" not in deltas[0] else merge(deltas)
        reasoning = delta.get(REASONING_KEY, "")
        normal = text if self._pass_through else delta.get("content", "")
        if not self.stream_reasoning:  # sent whole, once the answer goes past it
            self._held.append(reasoning)
            if not (end or "content" in delta or "tool_calls" in delta):
                return ReasoningResult(normal_text=normal)
            reasoning, self._held = "".join(self._held), []
        return ReasoningResult(normal_text=normal, reasoning_text=reasoning)

    # -- what SGLang's server asks a template-driven reasoning detector -----------------------

    def get_think_end_token_ids(self, tokenizer: Any) -> list[int]:
        if not self.think_end_token:
            return []
        return list(tokenizer.encode(self.think_end_token, add_special_tokens=False))

    def get_self_opened_think_start_token_ids(self, tokenizer: Any) -> list[int] | None:
        return None

    def starts_message(self, prefix: str) -> bool:
        return False

    def answer_opener(self, prefix: str) -> str:
        return ""

    def answer_rest_structural_tag(self, prefix: str) -> dict[str, Any] | None:
        return None

    def json_answer_structural_tag(self, json_schema: Any, **kwargs: Any) -> None:
        return None

    def json_output_started(self, text: str) -> bool:
        return False

    def get_answer_frame(self) -> None:
        return None


class RtcToolDetector(_Named, ResponseTemplateToolDetector):
    """``--tool-call-parser rtc`` (or ``rtc-<family>``): the stream's content and calls. rtc
    reads the model's own format and constrains nothing: ``tool_choice`` ``"required"`` or a
    named function, and strict tools, are refused."""

    response_template = None
    constrains_every_turn = False
    strict_arguments = False

    def __init__(
        self,
        tokenizer: Any = None,
        prefix: str | None = "",
        tools: Any = None,
        constrained: bool = False,
        **_ignored: Any,
    ) -> None:
        BaseFormatDetector.__init__(self)
        choice = choose(self.parser_name, tokenizer)
        self.response_template = choice.module.TEMPLATE
        self._stream = _Stream(choice.module, prefix, tool_dicts(tools))
        self._tools_given = tools is not None
        # Reasoning is the rtc reasoning detector's; without one it is content.
        self._reasoning_as_content = not _paired(self.parser_name, "reasoning_parser")
        self._last: tuple[str, dict[str, Any]] | None = None
        self.tool_close_literals: list[str] = []
        self.incomplete_tool_call_indices: set[int] = set()

    def _whole(self, text: str, tools: Any) -> dict[str, Any]:
        if self._last is None or self._last[0] != text:
            if not self._tools_given and tools:
                self._stream.tools = tool_dicts(tools)
            self._last = (text, self._stream.whole(text))
        return self._last[1]

    def has_tool_call(self, text: str) -> bool:
        message = self._whole(text, None)
        return bool(message.get("tool_calls")) or self._text_of(message) != text

    def detect_and_parse(self, text: str, tools: Any) -> StreamingParseResult:
        message = self._whole(text, tools)
        calls = [
            ToolCallItem(
                tool_index=i,
                name=call["function"]["name"],
                parameters=call["function"]["arguments"],
            )
            for i, call in enumerate(message.get("tool_calls") or ())
        ]
        return StreamingParseResult(normal_text=self._text_of(message), calls=calls)

    def parse_streaming_increment(self, new_text: str, tools: Any) -> StreamingParseResult:
        if self._stream.stream is None and not self._tools_given and tools:
            self._stream.tools = tool_dicts(tools)
        return self._result(self._stream.feed(new_text))

    def finish(self, tools: Any) -> StreamingParseResult:
        return self._result(self._stream.finish())

    def _text_of(self, message: dict[str, Any]) -> str:
        text = message.get("content") or ""
        if self._reasoning_as_content:
            text = (message.get(REASONING_KEY) or "") + text
        return text

    def _result(self, deltas: list[dict[str, Any]]) -> StreamingParseResult:
        if not deltas:
            return StreamingParseResult()
        if len(deltas) == 1 and len(deltas[0]) == 1 and "content" in deltas[0]:
            return StreamingParseResult(normal_text=deltas[0]["content"])
        delta = merge(deltas, reasoning_as_content=self._reasoning_as_content)
        calls = [
            ToolCallItem(
                tool_index=entry["index"],
                name=entry.get("function", {}).get("name"),
                parameters=entry.get("function", {}).get("arguments", ""),
            )
            for entry in delta.get("tool_calls", ())
        ]
        return StreamingParseResult(normal_text=delta.get("content", ""), calls=calls)

    # -- what SGLang's server asks a template-driven tool detector -----------------------------

    def supports_structural_tag(self) -> bool:
        return False

    def open_call_closer(self, text: str) -> str | None:
        return None

    def get_structural_tag(self, *args: Any, **kwargs: Any) -> None:
        return None

    def validate_structure_constraint_request(
        self,
        tool_choice: Any,
        parallel_tool_calls: bool,
        strict_requested: bool,
        *,
        tools: Any,
        thinking_mode: bool = False,
    ) -> None:
        if tool_choice != "auto":
            raise ValueError(
                "rtc parses the model's own tool-call format and cannot force a tool call: "
                'tool_choice must be "auto" or "none"'
            )
        if strict_requested:
            raise ValueError(
                "rtc parses the model's own tool-call format: strict tools cannot " "be enforced"
            )
        if not parallel_tool_calls:
            raise ValueError("rtc cannot enforce parallel_tool_calls=false")

    def structure_info(self) -> Any:
        raise NotImplementedError("rtc constrains no output (no structural tags)")
