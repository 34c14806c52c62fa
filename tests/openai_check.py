"""Checks of OpenAI delta streams, shared by the serving tests.

``Client`` accumulates deltas the way a strict client does (every string concatenated, tool-call
entries merged by ``index``) and checks every rule a client relies on as it goes. ``mapped``
turns a reference message into the OpenAI shape a module's ``DeltaStream`` promises, so the two
can be compared. ``normalized`` is a delta list with the parts that may depend on the chunking
folded away (adjacent text pieces of one key joined, ids replaced by the call index).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reference import RTC_TIMEOUT, Step, canon, exc_name, fresh, record_stream, time_limit

ID = re.compile(r"call_[0-9a-f]{24}")
CUT = "split-"
"""How a two-way cut's chunking is labelled (``split-N``: cut at N), which ``check_chunkings``
checks in one ``on_error`` mode."""


class Client:
    """Accumulates a delta stream and asserts the stream's rules on every delta."""

    def __init__(self, ids: re.Pattern[str] | None = ID) -> None:
        self.message: dict[str, Any] = {}
        self.calls: list[dict[str, Any]] = []
        self.ids = ids
        self.current = -1  # index of the call whose pieces may still arrive
        self.count = 0

    def add(self, delta: dict[str, Any]) -> None:
        assert isinstance(delta, dict) and delta, f"empty or non-dict delta {delta!r}"
        if self.count == 0:
            assert delta == {"role": "assistant"}, f"the first delta is {delta!r}"
        else:
            assert "role" not in delta, f"role sent twice: {delta!r}"
        self.count += 1
        for key, value in delta.items():
            if key == "role":
                self.message["role"] = value
            elif key == "tool_calls":
                assert isinstance(value, list) and value, delta
                for entry in value:
                    self._call_entry(entry)
            else:
                assert isinstance(value, str) and value, f"empty or non-text {key}: {delta!r}"
                self.message[key] = self.message.get(key, "") + value

    def _call_entry(self, entry: dict[str, Any]) -> None:
        index = entry["index"]
        assert isinstance(index, int), entry
        if index == len(self.calls):
            # A new call: its first entry names it, once, and comes before any arguments.
            assert index == self.current + 1, f"index {index} after {self.current}"
            assert set(entry) == {"index", "id", "type", "function"}, entry
            assert entry["type"] == "function", entry
            assert isinstance(entry["id"], str), entry
            if self.ids is not None:
                assert self.ids.fullmatch(entry["id"]), entry
            function = entry["function"]
            assert set(function) <= {"name", "arguments"} and isinstance(function["name"], str)
            self.calls.append(
                {
                    "id": entry["id"],
                    "type": "function",
                    "function": {"name": function["name"], "arguments": ""},
                }
            )
            self.current = index
        else:
            # A later piece of the call still being sent: arguments only.
            assert index == self.current and index < len(self.calls), f"stray index {entry}"
            assert set(entry) == {"index", "function"}, f"id/type/name sent twice: {entry}"
            assert set(entry["function"]) == {"arguments"}, entry
        arguments = entry["function"].get("arguments", "")
        assert isinstance(arguments, str), entry
        self.calls[index]["function"]["arguments"] += arguments

    def result(self) -> dict[str, Any]:
        """The accumulated message (tool_calls included when there are calls)."""
        out = {"role": "assistant", "content": None, **self.message}
        if self.calls:
            out["tool_calls"] = self.calls
        return out


def accumulate(deltas: Sequence[dict[str, Any]], ids: re.Pattern[str] | None = ID) -> dict:
    client = Client(ids)
    for delta in deltas:
        client.add(delta)
    return client.result()


def streamed_part(message: dict[str, Any], keys: tuple[str, ...]) -> dict:
    """The keys of ``message`` that the deltas make (the others are fields not streamed)."""
    streamed = {"role", "content", "tool_calls", *keys}
    return {k: v for k, v in message.items() if k in streamed}


def _region_calls(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def mapped(module: Any, reference: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The reference's message in the shape ``DeltaStream`` gives (ids left out)."""
    parser = module.ResponseParser
    roles = dict(zip(parser._names, module.DeltaStream._roles, strict=True))
    defaults = parser.new_message()
    out: dict[str, Any] = {"role": "assistant", "content": None}
    taken = {"role", "content", "tool_calls", *keys}
    others = {}
    for name, value in reference.items():
        role = roles.get(name)
        if name == "role":
            continue
        if role == "content":
            out["content"] = value or None
        elif role == "reasoning":
            if value:
                out.update(dict.fromkeys(keys, value))
        elif role == "tool_calls":
            store = parser._store[parser._names.index(name)]
            default = defaults.get(name)
            # The stream leaves a default of the call field out: only regions make calls.
            if name in defaults and canon(value) == canon(default):
                calls = []
            elif store == 1:  # repeats: one value per region, after the default's items
                skip = len(default) if isinstance(default, list) else 0
                calls = [c for v in value[skip:] for c in _region_calls(v)]
            else:
                calls = _region_calls(value)
            if calls:
                out["tool_calls"] = [
                    {
                        "type": "function",
                        "function": {
                            "name": c["function"]["name"],
                            "arguments": c["function"].get("arguments"),
                        },
                    }
                    for c in calls
                ]
        elif name not in taken:
            others[name] = value
    out.update(others)
    return out


def same_message(ours: dict[str, Any], theirs: dict[str, Any]) -> str | None:
    """Where ``ours`` (a DeltaStream message) and ``theirs`` (``mapped``) differ, or None:
    strings exactly, arguments by ``json.loads`` (a string argument as it is)."""
    ours = dict(ours)
    theirs = dict(theirs)
    our_calls = ours.pop("tool_calls", [])
    their_calls = theirs.pop("tool_calls", [])
    if canon(ours) != canon(theirs):
        return f"message {ours!r} != {theirs!r}"
    if len(our_calls) != len(their_calls):
        return f"calls {our_calls!r} != {their_calls!r}"
    for ours_call, theirs_call in zip(our_calls, their_calls, strict=True):
        name, arguments = ours_call["function"]["name"], ours_call["function"]["arguments"]
        expected = theirs_call["function"]["arguments"]
        if name != theirs_call["function"]["name"]:
            return f"call name {name!r} != {theirs_call!r}"
        if isinstance(expected, str):
            if arguments != expected:
                return f"arguments {arguments!r} != {expected!r}"
        elif expected is None:
            if arguments != "{}":
                return f"arguments {arguments!r} for no value"
        elif canon(json.loads(arguments), aliases=False) != canon(expected, aliases=False):
            return f"arguments {arguments!r} != {expected!r}"
    return None


def normalized(deltas: Sequence[dict[str, Any]]) -> list[Any]:
    """Deltas with adjacent text of the same keys joined and call ids replaced by indexes."""
    out: list[Any] = []
    for delta in deltas:
        if "tool_calls" in delta:
            entries = []
            for entry in delta["tool_calls"]:
                entry = dict(entry)
                if "id" in entry:
                    entry["id"] = entry["index"]
                entries.append(entry)
            out.append(("calls", json.dumps(entries, sort_keys=True)))
            continue
        keys = tuple(sorted(delta))
        text = delta[keys[0]]
        if out and out[-1][0] == "text" and out[-1][1] == keys:
            out[-1] = ("text", keys, out[-1][2] + text)
        else:
            out.append(("text", keys, text))
    return out


# --- running a stream beside the reference ---------------------------------------------------


def counting_ids() -> Any:
    """An ``id_factory`` giving call ids that are equal across runs (call_000…0, …1, …)."""
    count = iter(range(10**9))
    return lambda: f"call_{next(count):024x}"


@dataclass
class Run:
    """What a DeltaStream did with one chunking: every delta, or where it raised."""

    deltas: list[dict[str, Any]] = field(default_factory=list)
    message: dict[str, Any] | None = None
    reason: str | None = None
    problems: list[dict[str, Any]] = field(default_factory=list)
    error: tuple[str, str] | None = None  # (call, exception class name)


def run_stream(
    stream_class: Any, prefix: Any, tools: Any, chunks: Sequence[Any], **options: Any
) -> Run:
    run = Run()
    call = "init"
    try:
        with time_limit(RTC_TIMEOUT):
            stream = stream_class(prefix, tools=fresh(tools), id_factory=counting_ids(), **options)
            run.deltas += stream.initial_deltas
            for i, chunk in enumerate(chunks):
                call = f"feed#{i}"
                run.deltas += stream.feed(chunk)
            call = "finish"
            tail, run.message, run.reason = stream.finish()
            run.deltas += tail
            run.problems = stream.problems
    except Exception as exc:  # noqa: BLE001 - compared with the reference's behaviour
        run.error = (call, exc_name(exc))
        run.problems = getattr(locals().get("stream"), "problems", [])
    return run


def without_fast_path(stream_class: Any) -> Any:
    """The same stream with the parser's fast path off: every chunk goes through the parser's
    general ``feed()`` and its events (the general path the fast path must agree with)."""
    parser = stream_class._parser
    slow = type(
        "Slow" + parser.__name__,
        (parser,),
        {"__slots__": (), "_fasts": (None,) * len(parser._fasts)},
    )
    return type("Slow" + stream_class.__name__, (stream_class,), {"__slots__": (), "_parser": slow})


def _reference_outcome(steps: Sequence[Step]) -> tuple[str, Any]:
    """("hang", call) | ("error", (call, name)) | ("ok", final message)."""
    for step in steps:
        if step.hang:
            return "hang", step.call
    for step in steps:
        if step.error is not None and step.call not in ("feed-after-finalize", "finalize-again"):
            call = "finish" if step.call.startswith("finalize") else step.call
            return "error", (call, step.error)
    final = next(s for s in steps if s.call == "finalize")
    return "ok", final.raw[0]


def check_chunking(
    module: Any,
    ref: Any,
    loaded: Any,
    prefix: Any,
    tools: Any,
    chunks: Sequence[Any],
    keys: tuple[str, ...] = ("reasoning",),
    both_modes: bool = True,
) -> tuple[str | None, Run, Any]:
    """Stream ``chunks`` through ``module.DeltaStream`` (fast path on and off; both
    ``on_error`` modes unless not ``both_modes``) and through the reference; a report of what
    is wrong (or None), our run and the reference's final message (None when it did not give
    one)."""
    options = {"reasoning_key": keys if len(keys) > 1 else keys[0]}
    steps = record_stream(ref, loaded, prefix, tools, chunks)
    outcome, detail = _reference_outcome(steps)
    run = run_stream(module.DeltaStream, prefix, tools, chunks, **options)
    final = detail if outcome == "ok" else None

    def report(problem: str) -> tuple[str, Run, Any]:
        lines = [
            problem,
            f"prefix = {prefix!r}",
            f"chunks = {list(chunks)!r}",
            f"tools = {tools!r}",
        ]
        lines += [f"reference: {outcome} {detail!r}", f"deltas = {run.deltas!r}"]
        lines += [f"message = {run.message!r}", f"problems = {run.problems!r}"]
        return "\n".join(lines), run, final

    slow = run_stream(without_fast_path(module.DeltaStream), prefix, tools, chunks, **options)
    if (slow.deltas, slow.error, slow.problems) != (run.deltas, run.error, run.problems):
        return report(f"the fast path changes the deltas: without it {slow.deltas!r} {slow.error}")
    if run.error is not None:
        if outcome == "hang" or (outcome == "error" and detail == run.error):
            return None, run, final
        return report(f"the stream raised {run.error} where the reference did not")
    try:
        accumulated = accumulate(run.deltas)
    except AssertionError as exc:
        return report(f"a client rule is broken: {exc}")
    if accumulated != streamed_part(run.message, keys):
        return report(f"accumulated deltas {accumulated!r} != the message")
    if any(p["type"] == "internal" for p in run.problems):
        return report("an internal problem")
    expected_reason = "tool_calls" if run.message.get("tool_calls") else "stop"
    if run.reason != expected_reason:
        return report(f"finish_reason {run.reason!r}, expected {expected_reason!r}")
    if outcome == "hang":
        return None, run, final
    if outcome == "error" and not run.problems:
        return report("the reference raised but the stream reports no problem")
    if not run.problems and (difference := same_message(run.message, mapped(module, final, keys))):
        return report(f"differs from the reference: {difference}")
    if not both_modes:
        return None, run, final
    strict = run_stream(module.DeltaStream, prefix, tools, chunks, on_error="raise", **options)
    refused = [p for p in run.problems if p["type"] in ("rejected", "missing")]
    if not refused:
        if strict.error is not None or strict.deltas != run.deltas:
            return report(f'on_error="raise" differs: {strict.error} {strict.deltas!r}')
    elif strict.error is None:
        return report(f'on_error="raise" did not raise for {refused[0]}')
    elif outcome == "error" and strict.error != detail:
        shape = strict.error[1] == "ValueError" and refused[0].get("error") is None
        if not shape:
            return report(f'on_error="raise" raised {strict.error}, the reference {detail}')
    return None, run, final


def check_chunkings(
    module: Any,
    ref: Any,
    loaded: Any,
    prefix: Any,
    tools: Any,
    chunkings: dict[str, Sequence[Any]],
    keys: tuple[str, ...] = ("reasoning",),
) -> str | None:
    """``check_chunking`` for each, then: where the reference's message is the same for every
    chunking, so are the (normalized) deltas.

    ``on_error="raise"`` is checked on every chunking but the two-way cuts (labels
    :data:`CUT` ``N``, a short text cut at every position): whether raising changes a stream is a
    matter of the mode, which the other chunkings (whole, 1 to 8 characters, random cuts)
    show; the cuts are there for the chunk boundaries, and the mode's run was a quarter of
    their cost."""
    seen: dict[Any, tuple[str, list[Any]]] = {}
    answers = set()
    for label, chunks in chunkings.items():
        both = not label.startswith(CUT)
        problem, run, final = check_chunking(
            module, ref, loaded, prefix, tools, chunks, keys, both_modes=both
        )
        if problem:
            return f"[{label}] {problem}"
        # An error is no answer: after one the reference has no streaming semantics to follow.
        answers.add(canon(final, aliases=False) if final is not None else label)
        if run.error is None:
            seen[label] = (json.dumps(run.problems, default=str), normalized(run.deltas))
    deltas = {json.dumps(value[1]) for value in seen.values()}
    # With a field that occurs twice or a rejected region, the deltas follow the reference's
    # regions and delimiters, which can depend on the chunking when its message does not (a
    # zero-width or \\K close, ["END", "E"] matching "E" when streamed and "END" in one piece).
    problems = any(value[0] != "[]" for value in seen.values())
    if len(answers) == 1 and len(deltas) > 1 and not problems:
        lines = [f"{label}: {value!r}" for label, value in seen.items()]
        return "the reference does not depend on the chunking, the deltas do:\n" + "\n".join(lines)
    return None
