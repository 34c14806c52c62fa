"""What every engine plugin does with a ``DeltaStream``, whatever the engine's own types.

A serving engine hands its parser one piece of decoded text at a time and wants one delta back
per piece; a ``DeltaStream`` answers a list of OpenAI ``delta`` dicts (often none, sometimes
several). :func:`merge` folds that list into one dict in the engine's terms, and :class:`Request`
holds what one generation needs across calls: its stream, the ids the engine gave its calls, and
the tokens counted against the length limit. Engine types stay in the engine's module.

Standard library only (and the generated module's ``DeltaStream``, given by the caller).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import Any

from rtc.runtime.openai import REASONING_NAMES

__all__ = ["REASONING_KEY", "Request", "merge", "reasoning_open_after", "tool_dicts"]

REASONING_KEY = "reasoning"
"""The key the plugins ask ``DeltaStream`` to send reasoning under (engines rename it)."""

logger = logging.getLogger("rtc.engines")


def tool_dicts(tools: Iterable[Any] | None) -> list[dict[str, Any]]:
    """The request's tools as OpenAI tool dicts (engines hold them as pydantic models). Of a
    chat tool (``tool.function``) only what the stream reads is taken, its function's name and
    parameters: dumping the model whole costs more than parsing a short answer."""
    out: list[dict[str, Any]] = []
    for tool in tools or ():
        function = getattr(tool, "function", None)
        name = getattr(function, "name", None)
        parameters = getattr(function, "parameters", None)
        if isinstance(name, str) and (parameters is None or isinstance(parameters, dict)):
            entry = (
                {"name": name} if parameters is None else {"name": name, "parameters": parameters}
            )
            out.append({"type": "function", "function": entry})
            continue
        if hasattr(tool, "model_dump"):
            tool = tool.model_dump(exclude_none=True)
        if isinstance(tool, dict):
            out.append(tool)
    return out


def merge(
    deltas: Iterable[dict[str, Any]], *, reasoning_as_content: bool = False
) -> dict[str, Any]:
    """One delta dict holding ``deltas`` in order: text of each key concatenated, tool-call
    entries kept in order, an entry joined to the previous one when it continues the same call
    (its arguments appended). ``reasoning_as_content``: reasoning text is sent as content (an
    engine serving without a reasoning parser)."""
    content: list[str] = []
    reasoning: list[str] = []
    calls: list[dict[str, Any]] = []
    for delta in deltas:
        for key, value in delta.items():
            if key == "content":
                content.append(value)
            elif key == REASONING_KEY:
                (content if reasoning_as_content else reasoning).append(value)
            elif key == "tool_calls":
                for entry in value:
                    last = calls[-1] if calls else None
                    if last is not None and last["index"] == entry["index"] and "id" not in entry:
                        function = last.setdefault("function", {})
                        piece = entry.get("function", {}).get("arguments", "")
                        function["arguments"] = function.get("arguments", "") + piece
                    else:
                        calls.append({**entry, "function": dict(entry.get("function", {}))})
    out: dict[str, Any] = {}
    if content:
        out["content"] = "".join(content)
    if reasoning:
        out[REASONING_KEY] = "".join(reasoning)
    if calls:
        out["tool_calls"] = calls
    return out


def reasoning_open_after(module: ModuleType, prompt: str) -> bool:
    """Whether a generation that follows ``prompt`` starts inside a reasoning region (the prompt
    opened one and did not close it). Read from the parser's ``initial_events``."""
    try:
        events = module.ResponseParser(prompt).initial_events
    except ValueError:
        return False
    open_field: str | None = None
    for event in events:
        if event["type"] == "region_open":
            open_field = event["field"]
        elif event["type"] != "region_chunk":
            open_field = None
    return open_field in REASONING_NAMES


class Request:
    """One generation's ``DeltaStream``, fed by an engine's parser object.

    ``new_id(name)`` makes the engine's id for a call (the stream's own ids are replaced, so that
    ids are the engine's, as its own parsers make them). ``limit``: the output tokens the engine
    allows this generation (``None``: unknown), or a function that says it, called only where
    the answer is needed: at the end, unless the last token is a stop token (most generations
    end with one, and the engine's computation of the limit costs a request's first call some
    12 µs); ``stop_ids``: token ids that end a generation as ``stop`` even at the limit.
    ``log_name`` prefixes the problems logged at the end.
    """

    __slots__ = ("stream", "_ids", "_new_id", "tokens", "last_id", "limit", "stop_ids", "_log")

    def __init__(
        self,
        module: ModuleType,
        prefix: str,
        tools: list[dict[str, Any]],
        new_id: Callable[[str], str],
        *,
        log_name: str,
    ) -> None:
        # The stream's call ids are replaced by the engine's (engine_ids): a counter is enough.
        count = itertools.count()
        self.stream = module.DeltaStream(
            prefix,
            tools=tools,
            reasoning_key=REASONING_KEY,
            id_factory=lambda: f"rtc-{next(count)}",
        )
        self._ids: dict[str, str] = {}
        self._new_id = new_id
        self.tokens = 0
        self.last_id: int | None = None
        self.limit: int | Callable[[], int | None] | None = None
        self.stop_ids: frozenset[int] = frozenset()
        self._log = log_name

    def start(self) -> list[dict[str, Any]]:
        """What the prompt already opened, and defaults (the role is the engine's)."""
        return self.engine_ids([d for d in self.stream.initial_deltas if "role" not in d])

    def feed(self, text: str, token_ids: Sequence[int] = ()) -> list[dict[str, Any]]:
        """The deltas of one piece of decoded text, and its tokens counted."""
        if token_ids:
            self.tokens += len(token_ids)
            self.last_id = token_ids[-1]
        return self.engine_ids(self.stream.feed(text)) if text else []

    def cut_by_length(self) -> bool:
        """The generation ended because it reached its token limit (its last token is not one
        that stops it)."""
        if self.last_id is not None and self.last_id in self.stop_ids:
            return False
        limit = self.limit
        if callable(limit):
            limit = self.limit = limit()
        return limit is not None and self.tokens >= limit

    def finish(self) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The last deltas and the whole message; problems are logged."""
        deltas, message, _ = self.stream.finish("length" if self.cut_by_length() else "stop")
        for problem in self.stream.problems:
            logger.warning(
                "%s: %s in %s: %s", self._log, problem["type"], problem["field"], problem["message"]
            )
        deltas = self.engine_ids(deltas)
        if "tool_calls" in message:
            message["tool_calls"] = [{**c, "id": self._ids[c["id"]]} for c in message["tool_calls"]]
        return deltas, message

    def engine_ids(self, deltas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``deltas`` (the stream's) with each call's id replaced by the engine's (copies: the
        stream's own dicts are left as they are)."""
        out = []
        for delta in deltas:
            calls = delta.get("tool_calls")
            if calls is not None and any("id" in entry for entry in calls):
                delta = {**delta, "tool_calls": [self._engine_id(entry) for entry in calls]}
            out.append(delta)
        return out

    def _engine_id(self, entry: dict[str, Any]) -> dict[str, Any]:
        if "id" not in entry:
            return entry
        engine_id = self._new_id(entry["function"]["name"])
        self._ids[entry["id"]] = engine_id
        return {**entry, "id": engine_id}
