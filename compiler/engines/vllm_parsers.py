"""vLLM's parser objects, answered by rtc's ``DeltaStream`` (imported only by the vLLM plugin).

vLLM holds one :class:`vllm.parser.Parser` per request and calls it for both roles: ``parse_delta``
once per decoded piece while streaming, ``parse`` once for a whole generation. :class:`RtcParser`
is that object: one ``DeltaStream`` of the chosen family per request, created at the first call,
its deltas folded into one ``DeltaMessage`` per call. The split classes :class:`RtcReasoningParser`
and :class:`RtcToolParser` are what ``--reasoning-parser`` and ``--tool-call-parser`` name; vLLM
builds them beside the parser (and alone, to ask where reasoning ends), and
``vllm_plugin.compose`` turns a pair of them into an :class:`RtcParser` subclass.

What a request gets: tool calls with the ids vLLM's own parsers give (``make_tool_call_id``, so
Kimi's ``functions.NAME:N`` where vLLM uses them; its random ones are made here, of the same
shape, at less cost); ``finish_reason`` and indexes as vLLM's serving
layer sets them; special tokens kept in the decoded text when the template's delimiters are
special tokens of the served tokenizer (``skip_special_tokens=False``); a generation that reached
its token limit ends as ``DeltaStream.finish("length")`` (a call cut off there is not a call).
Nothing of one request is shared with another but the module and the tokenizer.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import cache
from typing import Any, ClassVar

from vllm.entrypoints.generate.base.protocol import (
    DeltaMessage,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.entrypoints.serve.utils.api_utils import get_max_tokens
from vllm.exceptions import VLLMValidationError
from vllm.logger import init_logger
from vllm.parser.abstract_parser import Parser
from vllm.reasoning.abs_reasoning_parsers import ReasoningParser
from vllm.renderers.chat_utils.tool_call import make_tool_call_id
from vllm.tool_parsers.abstract_tool_parser import ToolParser

from . import family
from .deltas import REASONING_KEY, Request, merge, reasoning_open_after, tool_dicts
from .prompt_tail import prompt_text, tail_reading

logger = init_logger("rtc.engines.vllm")


def _decode(tokenizer: Any, token_ids: Sequence[int]) -> str:
    """The text of ``token_ids`` with every special token written out (the parser reads the
    prompt as the model saw it). A fast tokenizer's own decoder is called directly: what
    transformers' ``decode`` adds (checking and converting its argument, optional clean-up of
    spaces, off here as vLLM's parsers have it) costs more than the decoding of a prompt."""
    backend = getattr(tokenizer, "_tokenizer", None)
    if backend is not None and hasattr(backend, "decode"):
        return backend.decode(list(token_ids), skip_special_tokens=False)
    return tokenizer.decode(
        list(token_ids), skip_special_tokens=False, clean_up_tokenization_spaces=False
    )


def special_tokens(tokenizer: Any) -> list[str]:
    """The tokens a decode with ``skip_special_tokens`` drops: the added tokens marked special."""
    tokens = set(getattr(tokenizer, "all_special_tokens", ()) or ())
    decoder = getattr(tokenizer, "added_tokens_decoder", None) or {}
    tokens.update(t.content for t in decoder.values() if getattr(t, "special", False))
    return sorted(tokens)


def _model_type(tokenizer: Any, model_config: Any, model_name: str | None) -> str | None:
    for config in (
        getattr(model_config, "hf_config", None),
        getattr(model_config, "hf_text_config", None),
    ):
        model_type = getattr(config, "model_type", None)
        if isinstance(model_type, str):
            return model_type
    for name in (
        getattr(model_config, "model", None),
        model_name,
        getattr(tokenizer, "name_or_path", None),
    ):
        model_type = _model_type_on_disk(name) if isinstance(name, str) else None
        if model_type is not None:
            return model_type
    return None


@cache
def _model_type_on_disk(name: str | None) -> str | None:
    """The ``model_type`` of the model the tokenizer was loaded from: its folder's
    ``config.json``, or the copy in the Hugging Face cache (never fetched)."""
    import json
    import os

    if not name:
        return None
    path = os.path.join(name, "config.json")
    if not os.path.isfile(path):
        try:
            from huggingface_hub import try_to_load_from_cache

            found = try_to_load_from_cache(name, "config.json")
        except Exception:  # not a repository id, or no cache
            found = None
        if not isinstance(found, str):
            return None
        path = found
    try:
        with open(path, encoding="utf-8") as stream:
            model_type = json.load(stream).get("model_type")
    except (OSError, ValueError, AttributeError):
        return None
    return model_type if isinstance(model_type, str) else None


_CHOICES: dict[tuple[str, int], tuple[Any, family.Choice]] = {}


def choose(
    parser_name: str, tokenizer: Any, model_config: Any = None, model_name: str | None = None
) -> family.Choice:
    """The family ``parser_name`` stands for with this tokenizer: chosen once per tokenizer (at
    start-up, when vLLM checks its parsers), and the reason logged then."""
    key = (parser_name, id(tokenizer))
    known = _CHOICES.get(key)
    if known is not None and known[0] is tokenizer:
        return known[1]
    model_type = _model_type(tokenizer, model_config, model_name)
    choice = family.choose_for_tokenizer(parser_name, tokenizer, model_type=model_type)
    _CHOICES[key] = (tokenizer, choice)
    logger.info("rtc: %s parses with %s: %s", parser_name, choice.name, choice.reason)
    return choice


def _reasoning_field(module: Any) -> dict[str, Any] | None:
    fields = module.TEMPLATE.get("fields", {})
    for name in family_reasoning_names():
        if isinstance(fields.get(name), dict):
            return fields[name]
    return None


def family_reasoning_names() -> tuple[str, ...]:
    from rtc.runtime.openai import REASONING_NAMES

    return REASONING_NAMES


class _Model:
    """What every request to one served model shares, read once (at its first request): what
    vLLM's serving layer reads once at start-up to limit a request's output tokens, and the
    tokens that end a generation as ``stop``, and how its tokenizer decodes a prompt's end
    alone (``prompt_tail``). Reading the generation configuration opens the model's files:
    milliseconds, too much for every request."""

    __slots__ = ("max_model_len", "defaults", "override", "stop_ids", "tail")

    def __init__(self, tokenizer: Any, config: Any) -> None:
        self.max_model_len: int | None = None
        self.defaults: dict[str, Any] = {}
        self.override: int | None = None
        if config is not None:
            self.max_model_len = config.max_model_len
            self.defaults = config.get_diff_sampling_param()
            if config.generation_config not in ("auto", "vllm"):
                self.override = self.defaults.get("max_tokens")
            else:
                overrides = getattr(config, "override_generation_config", None) or {}
                self.override = overrides.get("max_new_tokens")
        # The tokenizer's eos, and the generation config's eos ids (as vLLM adds them).
        eos = getattr(tokenizer, "eos_token_id", None)
        found = {eos} if isinstance(eos, int) else set()
        generation = config.try_get_generation_config() if config is not None else {}
        more = (generation or {}).get("eos_token_id")
        found.update([more] if isinstance(more, int) else more or ())
        self.stop_ids = frozenset(found)
        # How the end of a prompt is decoded alone (prompt_tail: the whole prompt otherwise).
        self.tail = tail_reading(tokenizer)


_MODELS: dict[tuple[int, int], tuple[Any, Any, _Model]] = {}
"""By tokenizer and model configuration (kept alive with them): what requests to them share."""


def _model(tokenizer: Any, config: Any) -> _Model:
    key = (id(tokenizer), id(config))
    known = _MODELS.get(key)
    if known is None:
        known = _MODELS[key] = (tokenizer, config, _Model(tokenizer, config))
    return known[2]


class _Named:
    """A split parser class registered under one rtc name (``rtc`` or ``rtc-<family>``)."""

    parser_name: ClassVar[str] = family.PREFIX


class RtcReasoningParser(_Named, ReasoningParser):
    """``--reasoning-parser rtc``: where reasoning ends, for vLLM's reasoning-aware features
    (structured outputs after reasoning, the thinking budget). Parsing itself is
    :class:`RtcParser`'s."""

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self._choice = choose(self.parser_name, tokenizer, kwargs.get("model_config"))

    def _literal(self, key: str) -> str | None:
        field = _reasoning_field(self._choice.module)
        value = field.get(key) if field else None
        return value if isinstance(value, str) else None

    @property
    def reasoning_start_str(self) -> str | None:
        return self._literal("open")

    @property
    def reasoning_end_str(self) -> str | None:
        return self._literal("close")

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        return not reasoning_open_after(
            self._choice.module, _decode(self.model_tokenizer, input_ids)
        )

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        return input_ids

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        message, _, _ = self._choice.module.parse_openai(
            model_output, prefix="", reasoning_key=REASONING_KEY
        )
        return message.get(REASONING_KEY), message.get("content")

    def extract_reasoning_streaming(self, *args: Any, **kwargs: Any) -> DeltaMessage | None:
        raise NotImplementedError("rtc parses the stream in RtcParser (--reasoning-parser rtc)")


class RtcToolParser(_Named, ToolParser):
    """``--tool-call-parser rtc``: what the serving layer asks of a tool parser by itself; the
    calls are :class:`RtcParser`'s. rtc reads the model's own format, so vLLM must not force
    JSON output for ``required`` or named tool choices."""

    supports_required_and_named = False

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None, **kwargs: Any) -> None:
        super().__init__(tokenizer, tools)
        self._choice = choose(self.parser_name, tokenizer, kwargs.get("model_config"))

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        message, _, _ = self._choice.module.parse_openai(
            model_output, prefix="", tools=tool_dicts(request.tools), reasoning_key=REASONING_KEY
        )
        calls = [
            ToolCall(id=call["id"], function=FunctionCall(**call["function"]))
            for call in message.get("tool_calls", ())
        ]
        return ExtractedToolCallInformation(
            tools_called=bool(calls), tool_calls=calls, content=message.get("content")
        )

    def extract_tool_calls_streaming(self, *args: Any, **kwargs: Any) -> DeltaMessage | None:
        raise NotImplementedError("rtc parses the stream in RtcParser (--tool-call-parser rtc)")


RANDOM_ID = re.compile("chatcmpl-tool-[0-9a-f]{16}")
"""The shape of vLLM's random call ids (0.33.0: 64 bits of a ``uuid4``, in hexadecimal)."""


@cache
def _random_ids(id_type: str) -> bool:
    """Whether vLLM's call ids of ``id_type`` are random ones of :data:`RANDOM_ID`'s shape,
    which :func:`_random_id` then makes instead (asked once per type, of two ids that must
    differ: an id made of the call's name or index, Kimi's ``functions.NAME:N``, is not)."""
    ids = [make_tool_call_id(id_type=id_type, func_name="f", idx=0) for _ in range(2)]
    return ids[0] != ids[1] and all(RANDOM_ID.fullmatch(i) for i in ids)


def _random_id() -> str:
    """A random call id of vLLM's shape. ``make_tool_call_id`` builds a ``UUID`` object for
    each (measured in the serving path: about 30 µs of a call's first chunk, most of it the
    cold ``uuid`` code; this, under 1 µs). From ``os.urandom``, as ``uuid4`` takes its bits:
    not the ``random`` module, which a server may seed (identically seeded servers would
    repeat their ids)."""
    return "chatcmpl-tool-" + os.urandom(8).hex()


def _delta_message(delta: dict[str, Any]) -> DeltaMessage | None:
    """``delta`` as vLLM's message, validated in one call (its calls given as dicts: a model
    given to another model is validated again, and vLLM's check for extra fields runs at each
    level). A delta's keys are the message's own fields (``content``, ``reasoning``,
    ``tool_calls``) and a call's entry holds only the keys that have a value (``index``, and
    ``id``, ``type`` and ``function`` for a call's first entry), so the message sets exactly
    those: a field without a value is left out of the chunk vLLM sends, not sent as null, as
    OpenAI sends a call's argument pieces and as vLLM's own parsers build theirs."""
    if not delta:
        return None
    return DeltaMessage(**delta)


class RtcParser(Parser):
    """One request's parser for both roles. Subclasses made by the plugin set the split classes,
    the chosen family (:attr:`choice`) and :attr:`keep_special` (the special tokens the template
    needs to see)."""

    parser_name: ClassVar[str] = family.PREFIX
    choice: ClassVar[family.Choice | None] = None  # None: chosen with the first tokenizer seen
    keep_special: ClassVar[tuple[str, ...]] = ()
    always_adjust_request = True

    def __init__(
        self, tokenizer: Any, tools: list[Any] | None = None, *args: Any, **kwargs: Any
    ) -> None:
        super().__init__(tokenizer, tools, *args, **kwargs)
        choice = self.choice
        if choice is None:
            choice = choose(self.parser_name, tokenizer, kwargs.get("model_config"))
            cls = type(self)
            cls.choice = choice
            cls.keep_special = tuple(
                family.special_tokens_kept(choice.module, special_tokens(tokenizer))
            )
        self._module = choice.module
        self._model_config = kwargs.get("model_config")
        self._tools = tool_dicts(tools)
        self._prompt_ids: list[int] | None = None
        self._prefix = ""
        self._request: Request | None = None
        self._plain_key = "content"

    # -- vLLM's questions ---------------------------------------------------------------------

    def adjust_request(self, request: Any) -> Any:
        """Keep the template's special-token delimiters in the decoded text; refuse what rtc
        cannot guarantee (it reads what the model writes, it does not constrain it)."""
        if request.tools and request.tool_choice not in (None, "auto", "none"):
            raise VLLMValidationError(
                "rtc parses the model's own tool-call format and cannot force a tool call: "
                'tool_choice must be "auto" or "none"',
                parameter="tool_choice",
            )
        if self.keep_special:
            request.skip_special_tokens = False
            if hasattr(request, "spaces_between_special_tokens"):
                request.spaces_between_special_tokens = False
        return request

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        ids = list(prompt_token_ids)
        if ids != self._prompt_ids:
            self._prompt_ids = ids
            # The prompt's end where it reads as the whole (a prompt of thousands of tokens
            # costs milliseconds to decode whole): see prompt_tail.
            tail = _model(self.model_tokenizer, self._model_config).tail
            text = prompt_text(tail, self._module.ResponseParser._anchor, ids)
            self._prefix = _decode(self.model_tokenizer, ids) if text is None else text
            self._request = None

    def is_reasoning_end(self, input_ids: list[int]) -> bool:
        if self._reasoning_parser is None:
            return True
        return self._reasoning_parser.is_reasoning_end(input_ids)

    # -- parsing -------------------------------------------------------------------------------

    def parse(
        self,
        model_output: str,
        request: Any,
        enable_auto_tools: bool = False,
        model_output_token_ids: Sequence[int] = (),
    ) -> tuple[str | None, str | None, list[FunctionCall] | None]:
        self._initialize_history_tool_call_cnt(request)
        state = self._new_request(request)
        deltas = state.start() + state.feed(model_output, list(model_output_token_ids))
        # What the deltas accumulate to (the stream's message, folded as a stream is).
        delta = self._fold([*deltas, *state.finish()[0]], request)
        calls = [
            FunctionCall(id=entry["id"], **entry["function"])
            for entry in delta.get("tool_calls", ())
        ]
        return delta.get(REASONING_KEY), delta.get("content"), calls or None

    def parse_delta(
        self,
        delta_text: str,
        delta_token_ids: list[int],
        request: Any,
        prompt_token_ids: list[int] | None = None,
        *,
        finished: bool,
    ) -> DeltaMessage | None:
        state = self._request
        if state is not None and not finished:
            # The usual call, once per token: the stream's deltas, and most often none or one
            # piece of text, sent as it is (the general fold below gives the same).
            if delta_token_ids:
                state.tokens += len(delta_token_ids)
                state.last_id = delta_token_ids[-1]
            deltas = state.stream.feed(delta_text) if delta_text else None
            if not deltas:
                return None
            if len(deltas) == 1:
                delta = deltas[0]
                # One piece, sent as the fold of it would be (a copy of it): text under the
                # key this request shows it as, or content; or a piece of one call's
                # arguments, which has no id for the engine to replace.
                if len(delta) == 1 and (
                    self._plain_key in delta
                    or "content" in delta
                    or (
                        (calls := delta.get("tool_calls")) is not None
                        and len(calls) == 1
                        and "id" not in calls[0]
                    )
                ):
                    return _delta_message(delta)
            return _delta_message(self._fold(state.engine_ids(deltas), request))
        self._initialize_history_tool_call_cnt(request)
        if self._prompt_ids is None and prompt_token_ids is not None:
            self.set_prompt_token_ids(prompt_token_ids)
        deltas = []
        if state is None:
            state = self._request = self._new_request(request)
            deltas += state.start()
        deltas += state.feed(delta_text, delta_token_ids)
        if finished:
            deltas += state.finish()[0]
        return _delta_message(self._fold(deltas, request))

    # -- helpers -------------------------------------------------------------------------------

    def _fold(self, deltas: list[dict[str, Any]], request: Any) -> dict[str, Any]:
        delta = merge(deltas, reasoning_as_content=self._reasoning_parser is None)
        if not request.include_reasoning:
            delta.pop(REASONING_KEY, None)
        return delta

    def _new_request(self, request: Any) -> Request:
        # A reasoning piece alone is sent as it is when this request shows reasoning as
        # reasoning; otherwise it goes through the fold (as content, or left out).
        reasoning_plain = self._reasoning_parser is not None and request.include_reasoning
        self._plain_key = REASONING_KEY if reasoning_plain else "content"
        state = Request(
            self._module,
            self._prefix,
            self._tools,
            self._new_tool_call_id,
            log_name=f"rtc ({self._module.__name__}, {getattr(request, 'request_id', 'request')})",
        )
        prompt_length = None if self._prompt_ids is None else len(self._prompt_ids)
        state.limit = lambda: self._token_limit(request, prompt_length)
        state.stop_ids = self._stop_ids(request)
        return state

    def _new_tool_call_id(self, name: str) -> str:
        stream_state = self._stream_state
        id_type = stream_state.tool_call_id_type
        if _random_ids(id_type):
            tool_call_id = _random_id()
        else:
            tool_call_id = make_tool_call_id(
                id_type=id_type, func_name=name, idx=stream_state.history_tool_call_cnt
            )
        stream_state.history_tool_call_cnt += 1
        return tool_call_id

    def _token_limit(self, request: Any, prompt_length: int | None) -> int | None:
        """The output tokens vLLM's serving layer allows this request (as it computes them), or
        ``None`` when the prompt (``prompt_length`` tokens) or the model's configuration is
        unknown."""
        model = _model(self.model_tokenizer, self._model_config)
        if model.max_model_len is None or prompt_length is None:
            return None
        # Read from a pydantic request's field values: its deprecated ``max_tokens`` attribute
        # warns when read (a warning, and its cost, per request).
        fields = getattr(request, "__dict__", None) or {}
        if "max_completion_tokens" not in fields and "max_tokens" not in fields:
            fields = {
                "max_completion_tokens": getattr(request, "max_completion_tokens", None),
                "max_tokens": getattr(request, "max_tokens", None),
            }
        requested = fields.get("max_completion_tokens")
        if requested is None:
            requested = fields.get("max_tokens")
        try:
            return get_max_tokens(
                model.max_model_len,
                requested,
                prompt_length,
                model.defaults,
                model.override,
                truncate_prompt_tokens=getattr(request, "truncate_prompt_tokens", None),
            )
        except ValueError:  # the prompt is longer than the model allows: vLLM rejects it
            return None

    def _stop_ids(self, request: Any) -> frozenset[int]:
        """The tokens that end a generation as ``stop`` even at the limit: the model's (see
        :class:`_Model`) and the request's stop tokens."""
        model_ids = _model(self.model_tokenizer, self._model_config).stop_ids
        ids = getattr(request, "stop_token_ids", None)
        if getattr(request, "ignore_eos", False):
            return frozenset(ids or ())
        return model_ids.union(ids) if ids else model_ids
