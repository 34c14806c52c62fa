"""Tool calls for the OpenAI delta layer: what the compiler proved about a call field, the
arguments text of a call, and the arguments of a call sent one completed parameter at a time.

Standard library only. The tag pattern of a key/value content parser arrives here already
compiled (by the generated module, with the ``regex`` module, like the content parser compiles
it); this module only calls its ``finditer``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any, NamedTuple

from .engine import FieldInfo
from .loop import STORE_SET
from .openai_text import problem
from .tools import coerce, schema_types

__all__ = [
    "CallDeltas",
    "CallPlan",
    "ParamPieces",
    "arguments_text",
    "calls_in",
    "may_raise_typing",
]


class CallPlan(NamedTuple):
    """What the compiler proved about the calls of one tool-call field.

    ``announce``: a call cannot be rejected once its opening delimiter has matched (its content
    parser, transform and storage cannot raise for any body) and its name is known there, so
    it is sent at its opening. Otherwise every call is sent whole, after its region closed and
    its value was checked.
    ``name`` / ``name_group``: the name, when the transform writes it literally, else the
    named group of the opening delimiter that holds it (a group that takes part in every match).
    ``params``: the compiled tag pattern of an ``xml-inline`` body whose matches are final as
    soon as they are found (see ``compiler/serving.py``): the arguments are then sent one
    completed parameter at a time. ``param_end``: the literal ending every parameter; the body
    is searched again only when it appears.
    """

    announce: bool = False
    name: str | None = None
    name_group: str | None = None
    params: Any = None
    param_end: str = ""
    # The field has a close delimiter: a call the end of the generation closed was cut off (a
    # "truncated" problem).
    closes: bool = False


# json.dumps(value, ensure_ascii=False) builds a JSONEncoder with those arguments on every
# call (only the all-defaults call reuses one): the same encoder, built once, gives the same
# text and the same errors (an encoder keeps no state between calls), for a microsecond less
# per call's arguments and two per streamed parameter.
_JSON = json.JSONEncoder(ensure_ascii=False)
json_text = _JSON.encode
"""``json.dumps(value, ensure_ascii=False)``."""


def arguments_text(arguments: Any) -> str:
    """``function.arguments`` of an OpenAI tool call: JSON text, a string as it is, no value
    as ``{}``."""
    if arguments is None:
        return "{}"
    if isinstance(arguments, str):
        return arguments
    return json_text(arguments)


def calls_in(value: Any) -> list[tuple[str, Any]] | None:
    """``(name, arguments)`` of each call in a closed region's value (a call, or a list of
    them, e.g. from ``transform_each``); None when something in it is not shaped like a call
    (a dict whose ``function`` is a dict with a string ``name``)."""
    items = value if isinstance(value, list) else [value]
    calls = []
    for item in items:
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            return None
        calls.append((function["name"], function.get("arguments")))
    return calls


def may_raise_typing(tools: dict[str, dict[str, Any]], name: str) -> bool:
    """Whether typing this tool's arguments by its schema can raise: ``object`` and ``array``
    parameters are decoded with ``json.loads``, which raises RecursionError on deep nesting."""
    properties = tools.get(name)
    if not properties:
        return False
    for schema in properties.values():
        types = schema_types(schema)
        if "object" in types or "array" in types:
            return True
    return False


class ParamPieces:
    """The arguments of one call, sent one completed parameter at a time.

    Why each piece is final: the compiler only sets ``CallPlan.params`` for tag patterns of the
    shape ``L1 (?P<key>C+) L2 \\s* (?P<value>.*?) \\s* L3`` (literals L1, L2, L3; C cannot match
    the first character of L2; L3 does not begin with whitespace; no value parser, no
    ``merge_duplicates``). For such a pattern every match found in a prefix of the body is also
    a match of the whole body, and no other match of the whole body ends before it
    (``compiler/serving.py`` has the argument). The content parser runs ``finditer`` over the
    whole body, so the parameters found now are exactly the first parameters it will find; tool
    typing converts each value on its own (``rtc.runtime.tools``). A key seen twice is sent
    twice: the reference keeps the last value at the first position, which is what
    ``json.loads`` makes of the concatenated text.
    """

    __slots__ = ("_end", "_params", "_properties", "_scan", "body", "keys", "sent")

    def __init__(self, plan: CallPlan, properties: dict[str, Any] | None) -> None:
        self._params = plan.params
        self._end = plan.param_end
        self._properties = properties or None
        self._scan = 0  # where the next parameter can begin
        self.body = ""
        self.keys: list[str] = []
        self.sent = ""

    def add(self, text: str) -> list[str]:
        """Append body text; the arguments text of each parameter it completes."""
        before = len(self.body)
        self.body += text
        start = max(self._scan, before - len(self._end) + 1)
        if self.body.find(self._end, start) < 0:
            return []
        return self._pieces()

    def rest(self) -> list[str]:
        """At the close: the parameters not sent yet, and the end of the JSON object."""
        pieces = self._pieces()
        end = "}" if self.keys else "{}"
        self.sent += end
        return [*pieces, end]

    def _pieces(self) -> list[str]:
        pieces: list[str] = []
        # Every match ends with the end literal: none ends after its last occurrence, and
        # stopping the search there gives the same matches (the pattern looks neither ahead
        # nor at the end), while a value never closed is not read to the end again from every
        # parameter head (a looping model writing heads: n² for n of body).
        last = self.body.rfind(self._end)
        if last < self._scan:
            return pieces
        for match in self._params.finditer(self.body, self._scan, last + len(self._end)):
            self._scan = match.end()
            key = match.group("key")
            value = match.group("value")
            properties = self._properties
            if properties is not None and key in properties and isinstance(value, str):
                types = schema_types(properties[key])
                if types:
                    value = coerce(value, types)
            lead = ", " if self.keys else "{"
            piece = f"{lead}{json_text(key)}: {json_text(value)}"
            pieces.append(piece)
            self.sent += piece
            self.keys.append(key)
        return pieces


class CallDeltas:
    """The tool calls of one generation: their deltas, ``index`` from 0 without gaps, and
    the calls sent (``sent``). ``field`` is the tool-call field whose region is open (-1:
    none); ``pieces`` its parameters, when they are sent one at a time."""

    __slots__ = (
        "sent",
        "field",
        "pieces",
        "_announced",
        "_plans",
        "_fields",
        "_tools",
        "_ids",
        "_raise",
        "_had",
        "_problems",
        "_content",
    )

    def __init__(
        self,
        plans: tuple[CallPlan | None, ...],
        fields: tuple[FieldInfo, ...],
        tools: dict[str, dict[str, Any]],
        ids: Callable[[], str] | None,
        raise_errors: bool,
        problems: list[dict[str, Any]],
        content: list[str],
    ) -> None:
        self._plans = plans
        self._fields = fields
        self._tools = tools
        self._ids = ids
        self._raise = raise_errors
        self._problems = problems
        self._content = content  # refused regions' text is sent as content
        self._had = [False] * len(fields)
        self.sent: list[dict[str, Any]] = []
        self.field = -1
        self._announced: int | None = None
        self.pieces: ParamPieces | None = None

    def handles(self, i: int) -> bool:
        return self._plans[i] is not None

    @property
    def announced(self) -> int | None:
        """The index of the call sent at its opening whose region is still open."""
        return self._announced

    def open(self, i: int, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self.field = i
        plan = self._plans[i]
        assert plan is not None
        if not plan.announce:
            return  # sent whole once it has closed and its value is a call
        name = plan.name
        if name is None:
            name = event["captures"].get(plan.name_group)
        if not isinstance(name, str) or may_raise_typing(self._tools, name):
            return  # typing by this tool's schema can raise: the call is sent whole
        self._announced = len(self.sent)
        out.append(self._new_call(name, ""))
        if plan.params is not None:
            self.pieces = ParamPieces(plan, self._tools.get(name))

    def close(self, i: int, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        calls = calls_in(event["value"])
        index, pieces = self._announced, self.pieces
        self.reset()
        info = self._fields[i]
        plan = self._plans[i]
        assert plan is not None
        if plan.closes and not event["closed"] and calls is not None:
            self._problems.append(
                problem(
                    "truncated",
                    info.name,
                    "the generation ended inside a call (its close delimiter never came): "
                    "its arguments may be incomplete",
                )
            )
        if self._had[i] and info.store == STORE_SET:
            self._problems.append(
                problem(
                    "repeated",
                    info.name,
                    f"field {info.name!r} occurs again: its calls are all sent (the reference "
                    "keeps only the last region's)",
                )
            )
        self._had[i] = self._had[i] or bool(calls)
        if index is not None:
            call = self.sent[index]["function"]
            if pieces is not None:
                texts = pieces.rest()
                exact = calls is not None and json.loads(pieces.sent) == calls[0][1]
            else:
                texts = [arguments_text(calls[0][1])] if calls else []
                exact = True
            same = calls is not None and len(calls) == 1 and calls[0][0] == call["name"]
            if not (exact and same):
                # Cannot happen (the compiler proved the call cannot differ); reported, not hidden.
                self._problems.append(problem("internal", info.name, "announced call changed"))
            for text in texts:
                if text:
                    call["arguments"] += text
                    out.append({"tool_calls": [{"index": index, "function": {"arguments": text}}]})
            return
        if calls is None:
            if self._raise:
                raise ValueError(
                    f"field {info.name!r}: the value of a tool-call region is not a call (a "
                    "dict whose 'function' is a dict with a string 'name')"
                )
            refused = problem(
                "rejected", info.name, "the value of a tool-call region is not a call"
            )
            self.refuse(event["raw"], refused, out)
            return
        for name, arguments in calls:
            out.append(self._new_call(name, arguments_text(arguments)))

    def reject(self, i: int, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        """A region the reference would refuse (its close raised): its raw text is content."""
        name = self._fields[i].name
        if i == self.field:
            if self._announced is not None:
                # Cannot happen (the compiler proved the call cannot be rejected).
                self._problems.append(problem("internal", name, "announced call rejected"))
            self.reset()
        error = event["error"]
        refused = problem(
            "rejected", name, f"{type(error).__name__}: {error}", error=type(error).__name__
        )
        self.refuse(event["raw"], refused, out)

    def refuse(self, raw: str, refused: dict[str, Any], out: list[dict[str, Any]]) -> None:
        refused["message"] += "; its text was sent as content" if raw else ""
        self._problems.append(refused)
        if raw:
            out.append({"content": raw})
            self._content.append(raw)

    def arguments(self, pieces: list[str]) -> list[dict[str, Any]]:
        """One delta per completed parameter of the announced call."""
        index = self._announced
        assert index is not None
        function = self.sent[index]["function"]
        out = []
        for text in pieces:
            function["arguments"] += text
            out.append({"tool_calls": [{"index": index, "function": {"arguments": text}}]})
        return out

    def _new_call(self, name: str, arguments: str) -> dict[str, Any]:
        index = len(self.sent)
        call_id = self._ids() if self._ids is not None else "call_" + secrets.token_hex(12)
        if not isinstance(call_id, str):
            raise TypeError(f"id_factory() must return a str, got {type(call_id).__name__}")
        function = {"name": name, "arguments": arguments}
        self.sent.append({"id": call_id, "type": "function", "function": dict(function)})
        entry = {"index": index, "id": call_id, "type": "function", "function": function}
        return {"tool_calls": [entry]}

    def reset(self) -> None:
        self.field = -1
        self._announced = None
        self.pieces = None
