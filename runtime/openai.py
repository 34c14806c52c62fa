"""OpenAI-compatible chat-completion deltas, derived from the events of a compiled parser.

Every generated module defines ``DeltaStream``, a subclass of :class:`OpenAIDeltaStream` that
names the module's ``ResponseParser`` and what the compiler proved about its fields (which field
is content, reasoning or tool calls; whether a field's text is stripped; how early a call can be
sent; the parser's own fast-path test per region). The stream feeds the parser and turns its
events into ``choices[0].delta`` dicts:

- text of a ``content`` field goes to ``content``; text of a ``reasoning_content``, ``thinking``
  or ``reasoning`` field to the reasoning key(s); only committed text (what the parser has
  emitted) is sent. A stripped field drops its leading whitespace and holds trailing whitespace
  until more text follows, so the text sent for an occurrence is exactly its final value;
  ``join`` separators are sent before later occurrences;
- tool calls get ``index`` 0, 1, ... in the order they are sent; the first entry of a call carries
  ``id``, ``type`` and ``function.name``, once. A call is sent whole after its region closed and
  its value was checked, unless the compiler proved that it cannot be rejected after its opening
  (``CallPlan.announce``): then it is sent at its opening, and its arguments follow at its close
  or, for key/value bodies, one completed parameter at a time;
- other fields are not streamed; ``finish()`` returns them in the message.

Standard library only (the compiled patterns it is handed come from the generated module).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from .engine import CompiledParser
from .openai_calls import CallDeltas, CallPlan, ParamPieces, problem
from .openai_parser import tracked_parser
from .openai_text import TextDeltas

__all__ = ["REASONING_NAMES", "CallPlan", "OpenAIDeltaStream"]

REASONING_NAMES = ("reasoning_content", "thinking", "reasoning")
"""Field names whose text goes to the reasoning key(s)."""

_RESERVED = frozenset({"role", "content", "tool_calls"})


def _is_clear(probe: Any, chunk: str) -> bool:
    """The parser's fast-path test (see ``ResponseParser.feed``): no character of ``chunk`` can
    begin a delimiter watched in the region. ``probe``: one character, a frozenset of them, a
    compiled pattern of what can begin a delimiter (None, no fast path, is tested by the
    caller)."""
    if probe.__class__ is frozenset:
        return probe.isdisjoint(chunk)
    return probe.search(chunk) is None


def _fused_feed(keep: int) -> Callable[[Any, str], list[dict[str, Any]]]:
    """``feed()`` for a parser whose fast path keeps no consumed text (``keep`` 0), its last
    character (1) or all of it (-1). ``keep`` is a closure cell, not an attribute: this is the
    hottest code of the stream, run once per token."""

    def feed(self: Any, chunk: str) -> list[dict[str, Any]]:
        """The deltas of the text this chunk commits, in source order."""
        p = self._p
        if chunk.__class__ is str and chunk and (p._pos == len(p._buf) if keep else not p._buf):
            # Fused fast path: exactly the parser's own (same condition, same test, same state
            # change: the chunk joins the current region's body, the buffer keeps what the
            # patterns may look back at), without building its event.
            cur = p._cur
            text = cur == self._tcur
            if text:
                probe = self._tprobe
            elif cur < 0 or p._opened:
                probe = self._clear[cur + 1]
            else:
                probe = None  # the implicit region's first text opens it: the parser's path
            if probe is not None and (
                probe not in chunk if probe.__class__ is str else _is_clear(probe, chunk)
            ):
                if keep == 1:
                    p._buf = chunk[-1]
                    p._pos = 1
                elif keep:
                    p._buf += chunk
                    p._pos = len(p._buf)
                if text:
                    p._parts.append(chunk)
                    if self._tplain and not chunk[-1].isspace():
                        return [{self._tkey: chunk}]
                    return self._text(chunk)
                if cur < 0:
                    return []  # the null sink drops text
                p._parts.append(chunk)
                pieces = self._pieces
                if pieces is not None and cur == self._call_field:
                    return self._arguments(pieces.add(chunk))
                return []  # a region that is not streamed
        return self._deltas(p.feed(chunk))

    return feed


class OpenAIDeltaStream(TextDeltas, CallDeltas):
    """OpenAI ``delta`` dicts for one generation: ``initial_deltas``, then ``feed()`` each
    chunk, then ``finish()``. ``problems`` lists what the stream could not express exactly."""

    # Filled in by the generated subclass.
    _parser: ClassVar[type[CompiledParser]]
    _roles: ClassVar[tuple[str | None, ...]]  # by field index: "content", "reasoning",
    # "tool_calls" or None (not streamed)
    _strip: ClassVar[tuple[bool, ...]]  # by field index: streamed text is stripped
    _calls: ClassVar[tuple[CallPlan | None, ...]]  # by field index: tool-call fields
    _clear: ClassVar[tuple[Any, ...]]  # by field index + 1: the parser's fast-path test
    # Derived once per subclass.
    _tracked: ClassVar[type[Any]]
    _index: ClassVar[dict[str, int]]
    _own: ClassVar[frozenset[str]]

    __slots__ = (
        "initial_deltas",
        "problems",
        "_p",
        "_keys",
        "_reasoning_keys",
        "_taken",
        "_ids",
        "_raise",
        "_tcur",
        "_tkey",
        "_tstrip",
        "_tstarted",
        "_theld",
        "_tplain",
        "_tprobe",
        "_content",
        "_reasoning",
        "_had",
        "_joined",
        "_last_text_field",
        "_sent_calls",
        "_call_field",
        "_announced",
        "_pieces",
        "_finished",
    )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        parser = cls._parser
        names = parser._names
        cls._tracked = tracked_parser(
            parser, frozenset(i for i, plan in enumerate(cls._calls) if plan is not None)
        )
        cls._index = {name: i for i, name in enumerate(names)}
        cls._own = frozenset(name for name, role in zip(names, cls._roles, strict=True) if role)
        # How the parser's fast path keeps consumed text: not at all (0), its last character
        # (1), or all of it (-1); the fused fast path of feed() does the same.
        keep = {0: 0, 1: 1, None: -1}.get(parser._context, 0)
        if parser._context not in (0, 1, None):
            cls._clear = (None,) * (len(names) + 1)  # no fused fast path
        cls.feed = _fused_feed(keep)  # type: ignore[method-assign]

    def __init__(
        self,
        prefix: str | None = None,
        *,
        tools: Sequence[Any] | None = None,
        reasoning_key: str | Sequence[str] = "reasoning",
        id_factory: Callable[[], str] | None = None,
        on_error: str = "content",
    ) -> None:
        keys = (reasoning_key,) if isinstance(reasoning_key, str) else tuple(reasoning_key)
        if not keys or any(not isinstance(k, str) or not k or k in _RESERVED for k in keys):
            raise ValueError(
                "reasoning_key must be a key name or a tuple of them, other than "
                f"role, content and tool_calls; got {reasoning_key!r}"
            )
        if len(set(keys)) != len(keys):
            raise ValueError(f"reasoning_key names a key twice: {reasoning_key!r}")
        if on_error not in ("content", "raise"):
            raise ValueError(f'on_error must be "content" or "raise", got {on_error!r}')
        self._raise = on_error == "raise"
        self._ids = id_factory
        self._p: Any = self._tracked(prefix, tools=tools, recover=not self._raise)
        self.problems: list[dict[str, Any]] = []
        self._reasoning_keys = keys
        reasoning = keys[0] if len(keys) == 1 else keys
        self._keys = tuple(
            reasoning if role == "reasoning" else role if role == "content" else None
            for role in self._roles
        )
        self._taken = _RESERVED.union(keys)  # keys of the OpenAI message, from the deltas only
        self._tcur = -2  # the streamed text field whose occurrence is current (-2: none)
        self._tkey: Any = None
        self._tprobe: Any = None
        self._tstrip = self._tstarted = self._tplain = False
        self._theld = ""
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._had = [False] * len(self._roles)  # a text field already has non-empty text
        self._joined: set[int] = set()  # join fields with a previous value (a separator is due)
        self._last_text_field: dict[str, int] = {}
        self._sent_calls: list[dict[str, Any]] = []
        self._call_field = -1
        self._announced: int | None = None
        self._pieces: ParamPieces | None = None
        self._finished = False
        self.initial_deltas: list[dict[str, Any]] = [{"role": "assistant"}]
        self._defaults(self.initial_deltas)
        self.initial_deltas += self._deltas(self._p.initial_events)

    @classmethod
    def parse(
        cls,
        text: str | None,
        *,
        prefix: str | None = None,
        tools: Sequence[Any] | None = None,
        reasoning_key: str | Sequence[str] = "reasoning",
        id_factory: Callable[[], str] | None = None,
        on_error: str = "content",
    ) -> tuple[dict[str, Any], str, list[dict[str, Any]]]:
        """``(message, finish_reason, problems)`` of a whole generation: what a stream fed
        ``text`` in one chunk accumulates (a module's ``parse_openai``)."""
        stream = cls(
            prefix,
            tools=tools,
            reasoning_key=reasoning_key,
            id_factory=id_factory,
            on_error=on_error,
        )
        if text:
            stream.feed(text)
        _, message, reason = stream.finish()
        return message, reason, stream.problems

    # -- feeding -----------------------------------------------------------------------------

    feed = _fused_feed(0)  # replaced per subclass (see __init_subclass__)

    def finish(self, reason: str = "stop") -> tuple[list[dict[str, Any]], dict[str, Any], str]:
        """End of the generation: ``(deltas, message, finish_reason)``. ``reason``: ``"stop"``,
        or ``"length"`` when the generation hit its token limit."""
        if reason not in ("stop", "length"):
            raise ValueError(f'finish reason must be "stop" or "length", got {reason!r}')
        if self._finished:
            raise RuntimeError("DeltaStream already finished")
        p = self._p
        deltas: list[dict[str, Any]] = []
        if reason == "length" and p._opened and p._cur >= 0 and p._cur == self._call_field:
            field = p._names[p._cur]
            if self._announced is None:
                # A call that never closed is not a call: its text goes to content.
                raw = p.cut()
                self._reset_call()
                cut = problem("length", field, "a call was cut off by the length limit")
                self._refuse(raw, cut, deltas)
            else:
                # Announced at its opening: it ends with the parameters that were complete.
                self.problems.append(
                    problem(
                        "length",
                        field,
                        f"call {self._announced} was cut off by the length limit: its arguments "
                        "are the parameters that were complete",
                    )
                )
        out, events = p.finalize()
        deltas += self._deltas(events)
        for name in p.missing:
            self.problems.append(
                problem("missing", name, f"required field {name!r} is missing from the output")
            )
        self._finished = True
        if reason == "length":
            finish_reason = "length"
        else:
            finish_reason = "tool_calls" if self._sent_calls else "stop"
        return deltas, self._message(out), finish_reason

    # -- events to deltas --------------------------------------------------------------------

    def _deltas(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if len(events) == 1:
            # The usual case: one more piece of the text occurrence being streamed.
            event = events[0]
            if "text" in event and self._index[event["field"]] == self._tcur:
                return self._text(event["text"])
        out: list[dict[str, Any]] = []
        for event in events:
            kind = event["type"]
            i = self._index[event["field"]]
            if kind == "region_chunk":
                if i == self._tcur:
                    out += self._text(event["text"])
                elif self._pieces is not None and i == self._call_field:
                    out += self._arguments(self._pieces.add(event["text"]))
            elif kind == "region_open":
                if self._keys[i] is not None:
                    self._open_text(i, out)
                elif self._calls[i] is not None:
                    self._open_call(i, event, out)
            elif kind == "region_close":
                if i == self._tcur:
                    self._close_text(i, event["value"])
                elif self._calls[i] is not None:
                    self._close_call(i, event, out)
            else:
                self._reject(i, event, out)
        return out

    # -- the message -------------------------------------------------------------------------

    def _message(self, out: dict[str, Any]) -> dict[str, Any]:
        """What the deltas accumulate to, plus the fields that are not streamed."""
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self._content) or None}
        reasoning = "".join(self._reasoning)
        if reasoning:
            message.update(dict.fromkeys(self._reasoning_keys, reasoning))
        if self._sent_calls:
            message["tool_calls"] = [
                {**call, "function": dict(call["function"])} for call in self._sent_calls
            ]
        for name, value in out.items():
            if name == "role" or name in self._own:
                continue
            if name in self._taken:
                self.problems.append(
                    problem(
                        "not_returned",
                        name,
                        f"{name!r} is not returned: the OpenAI message uses that key",
                    )
                )
                continue
            message[name] = value
        return message
