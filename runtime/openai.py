"""OpenAI-compatible chat-completion deltas, derived from the events of a compiled parser.

Every generated module defines ``DeltaStream``, a subclass of :class:`OpenAIDeltaStream` that
names the module's ``ResponseParser`` and what the compiler proved about its fields (which field
is content, reasoning or tool calls; whether a field's text is stripped; how early a call can be
sent). The stream drives the parser through its serving contract (``rtc.runtime.engine``:
``serving=``, ``feed_text``, ``region``, ``cut``, ``missing``) and turns what it commits into
``choices[0].delta`` dicts:

- text of a ``content`` field goes to ``content``; text of a ``reasoning_content``, ``thinking``
  or ``reasoning`` field to the reasoning key(s); only committed text (what the parser has
  emitted) is sent. A stripped field drops its leading whitespace and holds trailing whitespace
  until more text follows, so the text sent for an occurrence is exactly its final value;
  ``join`` separators are sent before later occurrences (``openai_text``);
- tool calls get ``index`` 0, 1, ... in the order they are sent; the first entry of a call carries
  ``id``, ``type`` and ``function.name``, once. A call is sent whole after its region closed and
  its value was checked, unless the compiler proved that it cannot be rejected after its opening
  (``CallPlan.announce``): then it is sent at its opening, and its arguments follow at its close
  or, for key/value bodies, one completed parameter at a time (``openai_calls``);
- other fields are not streamed; ``finish()`` returns them in the message.

Standard library only (the compiled patterns it is handed come from the generated module).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from .engine import CompiledParser, Serving
from .oneshot import feed_whole
from .openai_calls import CallDeltas, CallPlan
from .openai_text import TextDeltas, problem

__all__ = ["REASONING_NAMES", "CallPlan", "OpenAIDeltaStream"]

REASONING_NAMES = ("reasoning_content", "thinking", "reasoning")
"""Field names whose text goes to the reasoning key(s)."""

_RESERVED = frozenset({"role", "content", "tool_calls"})


def _keys_of(cls: type[OpenAIDeltaStream], reasoning_key: Any) -> tuple[Any, ...]:
    """``(keys, delta keys by field, keys the message takes from the deltas only, fields the
    stream sends)`` of a stream class asked for ``reasoning_key``: worked out once per class
    and key where the key is a name or a tuple of names (a server makes a stream per request,
    with the same key each time); a bad key raises, and is never kept."""
    if reasoning_key.__class__ is str or (
        reasoning_key.__class__ is tuple and all(k.__class__ is str for k in reasoning_key)
    ):
        # (A class is hashable; typeshed's Hashable protocol does not say so of type[...].)
        return _kept_keys(cls, reasoning_key)  # type: ignore[arg-type]
    return _work_out_keys(cls, reasoning_key)


def _work_out_keys(cls: type[OpenAIDeltaStream], reasoning_key: Any) -> tuple[Any, ...]:
    keys = (reasoning_key,) if isinstance(reasoning_key, str) else tuple(reasoning_key)
    if not keys or any(not isinstance(k, str) or not k or k in _RESERVED for k in keys):
        raise ValueError(
            "reasoning_key must be a key name or a tuple of them, other than "
            f"role, content and tool_calls; got {reasoning_key!r}"
        )
    if len(set(keys)) != len(keys):
        raise ValueError(f"reasoning_key names a key twice: {reasoning_key!r}")
    reasoning = keys[0] if len(keys) == 1 else keys
    delta_keys = tuple(
        reasoning if role == "reasoning" else role if role == "content" else None
        for role in cls._roles
    )
    fields = cls._parser.fields
    return (
        keys,
        delta_keys,
        _RESERVED.union(keys),  # keys of the OpenAI message, from the deltas only
        frozenset(f.name for f, role in zip(fields, cls._roles, strict=True) if role),
    )


_kept_keys = functools.lru_cache(maxsize=256)(_work_out_keys)


class OpenAIDeltaStream:
    """OpenAI ``delta`` dicts for one generation: ``initial_deltas``, then ``feed()`` each
    chunk, then ``finish()``. ``problems`` lists what the stream could not express exactly."""

    # Filled in by the generated subclass.
    _parser: ClassVar[type[CompiledParser]]
    _roles: ClassVar[tuple[str | None, ...]]  # by field index: "content", "reasoning",
    # "tool_calls" or None (not streamed)
    _strip: ClassVar[tuple[bool, ...]]  # by field index: streamed text is stripped
    _calls: ClassVar[tuple[CallPlan | None, ...]]  # by field index: tool-call fields

    __slots__ = (
        "initial_deltas",
        "problems",
        "_p",
        "_texts",
        "_tool_calls",
        "_reasoning_keys",
        "_taken",
        "_own",
        "_finished",
    )

    def __init__(
        self,
        prefix: str | None = None,
        *,
        tools: Sequence[Any] | None = None,
        reasoning_key: str | Sequence[str] = "reasoning",
        id_factory: Callable[[], str] | None = None,
        on_error: str = "content",
    ) -> None:
        keys, delta_keys, self._taken, self._own = _keys_of(type(self), reasoning_key)
        if on_error not in ("content", "raise"):
            raise ValueError(f'on_error must be "content" or "raise", got {on_error!r}')
        parser = self._parser
        recover = on_error != "raise"
        p = self._p = parser(prefix, tools=tools, serving=Serving(recover=recover))
        self.problems: list[dict[str, Any]] = []
        self._reasoning_keys = keys
        fields = parser.fields
        self._texts = TextDeltas(fields, self._roles, delta_keys, self._strip, self.problems)
        self._tool_calls = CallDeltas(
            self._calls,
            fields,
            p.tools,
            id_factory,
            not recover,
            self.problems,
            self._texts.content,
        )
        self._finished = False
        self.initial_deltas: list[dict[str, Any]] = [{"role": "assistant"}]
        self._texts.defaults(parser.new_message(), self.initial_deltas)
        self.initial_deltas += self._deltas(p.initial_events)

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
        if text and not feed_whole(stream._p, text):
            stream.feed(text)
        _, message, reason = stream.finish()
        return message, reason, stream.problems

    # -- feeding -----------------------------------------------------------------------------

    def feed(self, chunk: str) -> list[dict[str, Any]]:
        """The deltas of the text this chunk commits, in source order."""
        p = self._p
        text = p.feed_text(chunk)
        if text is None:
            return self._deltas(p.feed_declined(chunk))
        if not text:
            return []
        texts = self._texts
        cur = p.region
        if cur == texts.cur:
            if texts.plain and not text[-1].isspace():
                return [{texts.key: text}]
            return texts.add(text)
        calls = self._tool_calls
        if calls.pieces is not None and cur == calls.field:
            return calls.arguments(calls.pieces.add(text))
        return []  # a region that is not streamed

    def finish(self, reason: str = "stop") -> tuple[list[dict[str, Any]], dict[str, Any], str]:
        """End of the generation: ``(deltas, message, finish_reason)``. ``reason``: ``"stop"``,
        or ``"length"`` when the generation hit its token limit."""
        if reason not in ("stop", "length"):
            raise ValueError(f'finish reason must be "stop" or "length", got {reason!r}')
        if self._finished:
            raise RuntimeError("DeltaStream already finished")
        p = self._p
        calls = self._tool_calls
        deltas: list[dict[str, Any]] = []
        if reason == "length" and calls.field >= 0 and p.region == calls.field:
            field = p.fields[calls.field].name
            if calls.announced is None:
                # A call that never closed is not a call: its text goes to content.
                raw = p.cut()
                calls.reset()
                cut = problem("length", field, "a call was cut off by the length limit")
                calls.refuse(raw, cut, deltas)
            else:
                # Announced at its opening: it ends with the parameters that were complete.
                self.problems.append(
                    problem(
                        "length",
                        field,
                        f"call {calls.announced} was cut off by the length limit: its "
                        "arguments are the parameters that were complete",
                    )
                )
        out, events = p.finalize()
        deltas += self._deltas(events, at_end=reason == "length")
        for name in p.missing:
            self.problems.append(
                problem("missing", name, f"required field {name!r} is missing from the output")
            )
        self._finished = True
        if reason == "length":
            finish_reason = "length"
        else:
            finish_reason = "tool_calls" if calls.sent else "stop"
        return deltas, self._message(out), finish_reason

    # -- events to deltas --------------------------------------------------------------------

    def _deltas(self, events: list[dict[str, Any]], at_end: bool = False) -> list[dict[str, Any]]:
        texts = self._texts
        calls = self._tool_calls
        index = self._parser.field_index
        out: list[dict[str, Any]] = []
        for event in events:
            kind = event["type"]
            i = index[event["field"]]
            if kind == "region_chunk":
                if i == texts.cur:
                    out += texts.add(event["text"])
                elif calls.pieces is not None and i == calls.field:
                    out += calls.arguments(calls.pieces.add(event["text"]))
            elif kind == "region_open":
                if texts.streams(i):
                    texts.open(i, out)
                elif calls.handles(i):
                    calls.open(i, event, out)
            elif kind == "region_close":
                if i == texts.cur:
                    texts.close(i, event["value"])
                elif calls.handles(i):
                    if at_end:
                        # Cut off by the length limit, already reported as such.
                        event = {**event, "closed": True}
                    calls.close(i, event, out)
            else:
                calls.reject(i, event, out)
        return out

    # -- the message -------------------------------------------------------------------------

    def _message(self, out: dict[str, Any]) -> dict[str, Any]:
        """What the deltas accumulate to, plus the fields that are not streamed."""
        texts = self._texts
        message: dict[str, Any] = {"role": "assistant", "content": "".join(texts.content) or None}
        reasoning = "".join(texts.reasoning)
        if reasoning:
            message.update(dict.fromkeys(self._reasoning_keys, reasoning))
        if self._tool_calls.sent:
            message["tool_calls"] = [
                {**call, "function": dict(call["function"])} for call in self._tool_calls.sent
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
