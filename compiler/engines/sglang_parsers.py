"""SGLang's detectors, answered by rtc's ``DeltaStream`` (imported only by the SGLang plugin).

SGLang builds two objects per request and choice: a ``ReasoningParser`` around the reasoning
detector (``--reasoning-parser``), then a ``FunctionCallParser`` around the tool detector
(``--tool-call-parser``), which is handed only the normal text the reasoning detector returned,
the very string object (SGLang 0.5.23's ``serving_chat``, streamed and not). No other object of
the request reaches both, so the stream travels with that text:

- :class:`RtcReasoningDetector` runs the request's one ``DeltaStream`` and sends its reasoning.
  Its normal text is the stream's content, as a :class:`Parsed` string that also carries what
  the stream read in that piece (its deltas; not streamed, the whole message); the deltas of the
  stream's end join those of the last piece, which SGLang hands to the tool parser after both
  ends. Without a tool parser, the content alone (calls are not sent: the request asked for none,
  or no tool parser runs).
- :class:`RtcToolDetector` sends the content and calls (``ToolCallItem``, the call's index as
  ``tool_index``) that its text carries. Handed plain text (no rtc reasoning parser ran: none is
  configured, or the request set ``separate_reasoning: false``), it runs its own stream and sends
  the reasoning as content.

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


class Parsed(str):
    """Normal text that carries what rtc's reasoning detector read: ``deltas`` (the stream's
    deltas for this piece, streamed) or ``message`` (the whole message, not streamed)."""

    deltas: list[dict[str, Any]] | None = None
    message: dict[str, Any] | None = None


def _parsed(text: str, *, deltas: Any = None, message: Any = None) -> Parsed:
    out = Parsed(text)
    out.deltas, out.message = deltas, message
    return out


class _Result:
    """What a reasoning detector returns (SGLang's own result class would turn an empty
    :class:`Parsed` into a plain string)."""

    __slots__ = ("normal_text", "reasoning_text")

    def __init__(self, normal_text: str, reasoning_text: str) -> None:
        self.normal_text = normal_text
        self.reasoning_text = reasoning_text


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
        self.stream_reasoning = stream_reasoning
        # Whether an rtc tool detector reads this detector's normal text: SGLang says whether a
        # tool parser does, its configuration which one (checked here whatever SGLang says, so
        # that a server naming another tool parser stops when it first builds this detector).
        paired = _paired(self.parser_name, "tool_call_parser")
        self._tool_parser = tool_call_parser_active and paired
        self._last: Parsed | None = None
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

    def detect_and_parse(self, text: str) -> _Result:
        message = _Stream(self._stream.module, self._stream.prefix, self._stream.tools).whole(text)
        normal: str = message.get("content") or ""
        if self._tool_parser:
            normal = _parsed(normal, message=message)
        return _Result(normal, message.get(REASONING_KEY) or "")

    def parse_streaming_increment(self, new_text: str) -> _Result:
        deltas = self._stream.feed(new_text)
        # Most pieces give no delta, or one of one key: folded without merge().
        delta = deltas[0] if len(deltas) == 1 and "tool_calls" not in deltas[0] else merge(deltas)
        normal: str = delta.get("content", "")
        if self._tool_parser:
            normal = self._last = _parsed(normal, deltas=deltas)
        return self._result(delta, normal, end=False)

    def finish(self) -> _Result:
        deltas = self._stream.finish()
        delta = merge(deltas)
        normal: str = delta.get("content", "")
        last = self._last
        if self._tool_parser and last is not None and last.deltas is not None:
            # SGLang ends the reasoning parser right after it hands it the last piece, and
            # gives that piece's normal text to the tool parser after: the end rides on it.
            last.deltas.extend(deltas)
            normal = ""
        return self._result(delta, normal, end=True)

    def _result(self, delta: dict[str, Any], normal: str, *, end: bool) -> _Result:
        reasoning = delta.get(REASONING_KEY, "")
        if not self.stream_reasoning:  # sent whole, once the answer goes past it
            self._held.append(reasoning)
            if not (end or "content" in delta or "tool_calls" in delta):
                return _Result(normal, "")
            reasoning, self._held = "".join(self._held), []
        return _Result(normal, reasoning)

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
        _paired(self.parser_name, "reasoning_parser")  # refuses another reasoning parser
        # Whether the text comes read by the rtc reasoning detector (decided at the first piece);
        # otherwise this detector runs its own stream and sends reasoning as content.
        self._riding: bool | None = None
        self._own: tuple[str, dict[str, Any]] | None = None  # the last text parsed whole
        self.tool_close_literals: list[str] = []
        self.incomplete_tool_call_indices: set[int] = set()

    def _message(self, text: str, tools: Any) -> tuple[dict[str, Any], bool]:
        """The whole message of ``text``, and whether its reasoning is content here."""
        if isinstance(text, Parsed) and text.message is not None:
            return text.message, False
        if self._own is None or self._own[0] != text:
            if not self._tools_given and tools:
                self._stream.tools = tool_dicts(tools)
            self._own = (text, self._stream.whole(text))
        return self._own[1], True

    @staticmethod
    def _text_of(message: dict[str, Any], reasoning_as_content: bool) -> str:
        text = message.get("content") or ""
        if reasoning_as_content:
            text = (message.get(REASONING_KEY) or "") + text
        return text

    def has_tool_call(self, text: str) -> bool:
        message, own = self._message(text, None)
        return bool(message.get("tool_calls")) or self._text_of(message, own) != text

    def detect_and_parse(self, text: str, tools: Any) -> StreamingParseResult:
        message, own = self._message(text, tools)
        calls = [
            ToolCallItem(
                tool_index=i,
                name=call["function"]["name"],
                parameters=call["function"]["arguments"],
            )
            for i, call in enumerate(message.get("tool_calls") or ())
        ]
        return StreamingParseResult(normal_text=self._text_of(message, own), calls=calls)

    def parse_streaming_increment(self, new_text: str, tools: Any) -> StreamingParseResult:
        deltas = new_text.deltas if isinstance(new_text, Parsed) else None
        if self._riding is None:
            self._riding = deltas is not None
        if self._riding:
            if deltas is None:  # not with SGLang 0.5.23: text its reasoning detector did not read
                logger.error("rtc: %s was handed text that no rtc stream read", self.parser_name)
                return StreamingParseResult(normal_text=new_text)
            return self._result(deltas, reasoning_as_content=False)
        if self._stream.stream is None and not self._tools_given and tools:
            self._stream.tools = tool_dicts(tools)
        return self._result(self._stream.feed(new_text), reasoning_as_content=True)

    def finish(self, tools: Any) -> StreamingParseResult:
        if self._riding:  # the stream's end came with the last piece
            return StreamingParseResult()
        return self._result(self._stream.finish(), reasoning_as_content=True)

    @staticmethod
    def _result(
        deltas: list[dict[str, Any]], *, reasoning_as_content: bool
    ) -> StreamingParseResult:
        if not deltas:
            return StreamingParseResult()
        if len(deltas) == 1 and len(deltas[0]) == 1 and "content" in deltas[0]:
            return StreamingParseResult(normal_text=deltas[0]["content"])
        delta = merge(deltas, reasoning_as_content=reasoning_as_content)
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
