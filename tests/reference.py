"""Run the reference (transformers 5.23.0) and rtc side by side and record what they do.

A *trace* is everything a caller of a parser can observe, in a comparable form: the load outcome,
``initial_events``, the events of every ``feed()``, finalize's message and events, and for a call
that raises, the exception type. Values are recorded as ``(type, value)`` trees (so ``1``, ``1.0``
and ``True`` differ and ``nan`` equals ``nan``), dict key order included, and with the aliasing of
dicts and lists inside one call's result (the reference shares objects, e.g. a transform that
references ``{content}`` twice).

Every call runs under a timer: the reference loops forever on some templates (quirk Q5), and rtc,
which declares a ``ValueError`` there instead, must terminate.
"""

from __future__ import annotations

import copy
import gc
import json
import math
import random
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from types import FrameType
from typing import Any

REF_TIMEOUT = 1.0
"""Seconds one reference call may take before it counts as a hang."""
RTC_TIMEOUT = 5.0
"""Seconds one rtc call may take before the test fails."""


class _Timeout(BaseException):
    """Raised by the timer; a BaseException so that no ``except Exception`` can swallow it."""


_armed = False
_installed = False  # time_limit's handler is in place


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    if _armed:
        raise _Timeout


class time_limit:  # noqa: N801 - used as a function: `with time_limit(seconds):`
    """Raise ``_Timeout`` inside the block once ``seconds`` of wall time have passed.

    The timer keeps firing every 50 ms after that: an exception raised while a garbage-collector
    callback runs is only printed and dropped by Python, so one signal is not always enough.

    The suites arm this around about a million reference calls, so it is kept cheap: the
    handler is installed on first use and stays (it does nothing while no block is armed;
    swapping it in and out was two ``signal.signal`` calls), and it is a class rather than a
    generator-based context manager: ~3 µs a call instead of ~17 µs.
    """

    __slots__ = ("seconds", "collecting")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.collecting = False

    def __enter__(self) -> None:
        global _armed, _installed
        if not _installed:
            signal.signal(signal.SIGALRM, _on_alarm)
            _installed = True
        self.collecting = gc.isenabled()
        gc.disable()  # fewer callbacks to lose the exception in; nothing the parsers need
        _armed = True
        signal.setitimer(signal.ITIMER_REAL, self.seconds, 0.05)

    def __exit__(self, *exc: object) -> None:
        global _armed
        _armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        if self.collecting:
            gc.enable()


# --- comparable values ------------------------------------------------------------------------


_CONTAINERS = (dict, list)


def canon(value: Any, seen: dict[int, int] | None = None, *, aliases: bool = True) -> Any:
    """A hashable ``(type, value)`` tree of ``value``: types, key order, NaN and aliasing kept.

    ``seen`` maps ``id()`` of the dicts and lists met so far in the same snapshot to their order of
    first appearance; a later appearance of the same object is recorded as ``("alias", n)``
    (unless ``aliases`` is false: then shared objects are written out in full, as JSON would).

    Walks with an explicit stack, not by recursion: where an interpreter's json parses thousands
    of levels (CPython 3.13 parses 3,000), parsers return values nested deeper than Python's
    recursion limit, and they must be compared like any other.
    """
    if seen is None:
        seen = {}
    # Each frame: the container's type name, whether it is a dict, an iterator over its children
    # (a dict's keys and values alternate) and the canonical forms of the children done so far.
    root: list[Any] = []
    stack: list[tuple[str, bool, Iterator[Any], list[Any]]] = [("", False, iter((value,)), root)]
    while stack:
        kind, is_dict, children, done = stack[-1]
        for child in children:
            if isinstance(child, _CONTAINERS):
                if aliases and id(child) in seen:
                    done.append(("alias", seen[id(child)]))
                    continue
                seen[id(child)] = len(seen)
                if isinstance(child, dict):
                    items = chain.from_iterable(child.items())
                    stack.append((type(child).__name__, True, items, []))
                else:
                    stack.append((type(child).__name__, False, iter(child), []))
                break
            if isinstance(child, tuple):
                stack.append(("tuple", False, iter(child), []))
                break
            done.append(("str", child) if type(child) is str else _canon_scalar(child))
        else:  # every child done: close this container into its parent
            stack.pop()
            if stack:
                items = tuple(zip(done[::2], done[1::2], strict=True)) if is_dict else tuple(done)
                stack[-1][3].append((kind, items))
    return root[0]


def _canon_scalar(value: Any) -> Any:
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    if value is None or isinstance(value, bool | int | str):
        return (type(value).__name__, value)
    return (type(value).__name__, repr(value))


def fresh(value: Any) -> Any:
    """A deep copy of ``value`` (a parser must not see what another parser did to its tools):
    JSON-shaped values (dicts with string keys, lists, scalars: every catalogue and generated
    tool list) copied directly, anything else (or a value nested in itself) by
    ``copy.deepcopy``. Every streamed check copies the tools once per parser built: for the
    largest catalogue tool list ``deepcopy`` takes ~110 µs, this ~27 µs."""
    try:
        return _plain_copy(value)
    except (_NotPlain, RecursionError):
        return copy.deepcopy(value)


class _NotPlain(Exception):
    pass


def _plain_copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            out[key] = _plain_copy(item)
        return out
    if kind is list:
        return [_plain_copy(item) for item in value]
    if value is None or kind in _SCALARS:
        return value
    raise _NotPlain


_SCALARS = frozenset((str, int, float, bool))


def exc_name(exc: BaseException) -> str:
    """The name an exception is compared by: its class name (``regex.error`` spelled so)."""
    cls = type(exc)
    if cls.__module__.split(".")[0] == "regex":
        return f"regex.{cls.__qualname__}"
    return cls.__qualname__


def load_family(exc: BaseException) -> str:
    """How a load-time exception is compared: ValueError / TypeError family, else its name."""
    if isinstance(exc, ValueError):
        return "ValueError"
    if isinstance(exc, TypeError):
        return "TypeError"
    return exc_name(exc)


# --- engines ----------------------------------------------------------------------------------


class Engine:
    """How to drive one implementation: the reference or an rtc-generated module."""

    timeout: float

    def load(self, template: Any) -> Any:
        raise NotImplementedError

    def parser(self, loaded: Any, prefix: Any, tools: Any) -> Any:
        raise NotImplementedError

    def parse(self, loaded: Any, text: Any, prefix: Any, tools: Any) -> Any:
        raise NotImplementedError


class Reference(Engine):
    """transformers 5.23.0 ``transformers.utils.chat_parsing``."""

    def __init__(self, timeout: float = REF_TIMEOUT) -> None:
        self.timeout = timeout
        from transformers.utils import chat_parsing
        from transformers.utils.chat_parsing import response_templates

        self._mod = chat_parsing
        self._load = response_templates.load_response_template

    def load(self, template: Any) -> Any:
        return self._load(copy.deepcopy(template))

    def parser(self, loaded: Any, prefix: Any, tools: Any) -> Any:
        return self._mod.ResponseParser(loaded, prefix, tools=tools)

    def parse(self, loaded: Any, text: Any, prefix: Any, tools: Any) -> Any:
        return self._mod.parse_response(text, loaded, prefix=prefix, tools=tools)


class Rtc(Engine):
    """A module compiled by ``rtc.compiler.load``.

    ``long_searches``: run every search the way long texts are searched (by the rarest
    character of a literal, jumping between occurrences of a pattern's literal prefix, each
    pass of the loop remembering its searches), so short random texts exercise that code too.
    """

    def __init__(
        self, load: Callable[[Any], Any], timeout: float = RTC_TIMEOUT, long_searches: bool = False
    ) -> None:
        self.timeout = timeout
        self._compile = load
        self.long_searches = long_searches

    def load(self, template: Any) -> Any:
        return self._compile(copy.deepcopy(template))

    def parser(self, loaded: Any, prefix: Any, tools: Any) -> Any:
        return loaded.ResponseParser(prefix, tools=tools)

    def parse(self, loaded: Any, text: Any, prefix: Any, tools: Any) -> Any:
        if not self.long_searches:
            return loaded.parse_response(text, prefix=prefix, tools=tools)
        with _long_searches(loaded):
            return loaded.parse_response(text, prefix=prefix, tools=tools)


@contextmanager
def _long_searches(loaded: Any) -> Iterator[None]:
    """Every span counts as long (``LONG_SPAN = 0``) in this module and in the runtime (the
    loop then remembers the searches of every pass: ``rtc.runtime.ahead``)."""
    from rtc.runtime import engine, loop, matching

    modules = [m for m in (loaded, matching, loop, engine) if hasattr(m, "LONG_SPAN")]
    saved = [m.LONG_SPAN for m in modules]
    for m in modules:
        m.LONG_SPAN = 0
    try:
        yield
    finally:
        for m, value in zip(modules, saved, strict=True):
            m.LONG_SPAN = value


def rtc_load() -> Callable[[Any], Any] | None:
    """``rtc.compiler.load``, or ``None`` if the compiler does not provide it."""
    try:
        import rtc.compiler as compiler
    except ImportError:
        return None
    return getattr(compiler, "load", None)


# --- recording --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One observed call: its canonical result, or the exception it raised, or a hang."""

    call: str
    result: Any = None
    error: str | None = None
    value_error: bool = False
    """Whether ``error`` is a ValueError subclass (what rtc raises where the reference hangs)."""
    hang: bool = False
    raw: Any = field(default=None, compare=False, repr=False)
    """The returned object itself (not compared; for checks against JSON data)."""

    def describe(self) -> str:
        if self.hang:
            return f"{self.call}: HANG"
        if self.error is not None:
            return f"{self.call}: raises {self.error}"
        return f"{self.call}: {uncanon(self.result)!r}"


def uncanon(tree: Any) -> Any:
    """Readable form of a canonical tree (for failure messages)."""
    if not isinstance(tree, tuple) or len(tree) != 2:
        return tree
    kind, value = tree
    if kind == "dict":
        return {uncanon(k): uncanon(v) for k, v in value}
    if kind in ("list", "tuple"):
        return [uncanon(v) for v in value]
    if kind == "float":
        return float(value)
    if kind == "alias":
        return f"<alias of #{value}>"
    return value


def _run(engine: Engine, call: str, fn: Callable[[], Any]) -> Step:
    """Run ``fn`` under the engine's timer; the step records its canonical result or failure."""
    try:
        with time_limit(engine.timeout):
            result = fn()
    except _Timeout:
        return Step(call, hang=True)
    except Exception as exc:  # noqa: BLE001 - every exception is an observable outcome
        return Step(call, error=exc_name(exc), value_error=isinstance(exc, ValueError))
    return Step(call, result=canon(result), raw=result)


def load(engine: Engine, template: Any) -> tuple[str, Any]:
    """``("ok", loaded)`` or ``(family, None)`` (``"hang"`` if loading never returns)."""
    try:
        with time_limit(engine.timeout):
            return "ok", engine.load(template)
    except _Timeout:
        return "hang", None
    except Exception as exc:  # noqa: BLE001
        return load_family(exc), None


def record_stream(
    engine: Engine, loaded: Any, prefix: Any, tools: Any, chunks: Sequence[Any]
) -> list[Step]:
    """Construct a parser, feed ``chunks`` one by one, finalize, then poke it once more.

    Calls go on after an exception (nothing is rolled back, so later calls are observable too); a
    failed finalize is retried once; after a successful finalize one more ``feed`` must raise. The
    recording stops at a hang, or when the constructor fails.
    """
    steps: list[Step] = []
    holder: list[Any] = []

    def construct() -> list[dict]:
        holder.append(engine.parser(loaded, prefix, fresh(tools)))
        return holder[0].initial_events

    step = _run(engine, "init", construct)
    steps.append(step)
    if not holder or step.hang:
        return steps
    parser = holder[0]
    for i, chunk in enumerate(chunks):
        step = _run(engine, f"feed#{i}", lambda chunk=chunk: parser.feed(chunk))
        steps.append(step)
        if step.hang:
            return steps
    for attempt in ("finalize", "finalize-again"):
        step = _run(engine, attempt, parser.finalize)
        steps.append(step)
        if step.hang:
            return steps
        if step.error is None:
            steps.append(_run(engine, "feed-after-finalize", lambda: parser.feed("x")))
            break
    return steps


def record_oneshot(engine: Engine, loaded: Any, text: Any, prefix: Any, tools: Any) -> Step:
    """``parse_response(text, prefix=..., tools=...)`` as one step."""
    return _run(engine, "parse_response", lambda: engine.parse(loaded, text, prefix, tools))


def fixed_chunkings(text: str, seed: str, randoms: int = 3) -> dict[str, list[str]]:
    """The chunkings every case is streamed with: whole, 1 and 3 characters, random cuts."""
    out = {
        "whole": [text],
        "1-char": list(text),
        "3-char": [text[i : i + 3] for i in range(0, len(text), 3)],
    }
    for k in range(randoms):
        rng = random.Random(f"{seed}/{k}")
        cuts, at = [], 0
        while at < len(text):
            size = rng.choice((0, 1, 1, 2, 3, 5, 8, 13, 40))  # 0: an empty feed
            cuts.append(text[at : at + size])
            at += size
        out[f"random-{k}"] = cuts
    return out


# --- comparing ---------------------------------------------------------------------------------


def diff_steps(ref: Sequence[Step], got: Sequence[Step]) -> str | None:
    """``None`` when ``got`` (rtc) behaves like ``ref`` (the reference), else what differs first.

    Where the reference hangs, rtc must terminate at that call, returning or raising a ValueError
    (the declared deviation); the calls after it are not compared.
    """
    for i, want in enumerate(ref):
        if i >= len(got):
            return f"rtc stopped before {want.call}"
        have = got[i]
        if have.call != want.call:
            return f"call #{i}: reference made {want.call}, rtc made {have.call}"
        if have.hang:
            return f"{have.call}: rtc does not terminate (reference: {want.describe()})"
        if want.hang:
            if have.error is not None and not have.value_error:
                return f"{have.call}: reference hangs, rtc raises {have.error} (not a ValueError)"
            later = [s.call for s in got[i + 1 :] if s.hang]
            return f"rtc does not terminate in {later}" if later else None
        if (want.error, want.result) != (have.error, have.result):
            return f"{want.call}:\n  reference {want.describe()}\n  rtc       {have.describe()}"
    if len(got) > len(ref):
        return f"rtc made extra calls: {[s.call for s in got[len(ref):]]}"
    return None


class Comparison:
    """One template loaded by the reference and by rtc, and the checks that compare them.

    Each check returns ``None`` when rtc behaves like the reference, else a report with a
    reproducer (template, prefix, tools, chunks) and both traces.
    """

    def __init__(self, ref: Engine, rtc: Engine, template: Any) -> None:
        self.ref, self.rtc, self.template = ref, rtc, template
        self.ref_state, self.ref_loaded = load(ref, template)
        self.rtc_state, self.rtc_loaded = load(rtc, template)

    @property
    def accepted(self) -> bool:
        """Whether both loaded the template (and so parsing can be compared)."""
        return self.ref_state == "ok" and self.rtc_state == "ok"

    def load_problem(self) -> str | None:
        if self.ref_state == self.rtc_state:
            return None
        if self.ref_state == "hang" and self.rtc_state in ("ok", "ValueError"):
            return None
        return f"load: reference {self.ref_state}, rtc {self.rtc_state}\n{self._template()}"

    def oneshot_problem(self, text: Any, prefix: Any, tools: Any) -> str | None:
        want = record_oneshot(self.ref, self.ref_loaded, text, prefix, tools)
        got = record_oneshot(self.rtc, self.rtc_loaded, text, prefix, tools)
        if not (problem := diff_steps([want], [got])) and isinstance(self.rtc, Rtc):
            # The same parse again, with every search done the way long texts are searched.
            self.rtc.long_searches = True
            try:
                got = record_oneshot(self.rtc, self.rtc_loaded, text, prefix, tools)
            finally:
                self.rtc.long_searches = False
            if problem := diff_steps([want], [got]):
                problem = f"with long-text searches: {problem}"
        if not problem:
            return None
        return self._report(problem, f"prefix = {prefix!r}\ntext = {text!r}", tools, [want], [got])

    def stream_problem(self, prefix: Any, tools: Any, chunks: Sequence[Any]) -> str | None:
        want = record_stream(self.ref, self.ref_loaded, prefix, tools, chunks)
        got = record_stream(self.rtc, self.rtc_loaded, prefix, tools, chunks)
        if not (problem := diff_steps(want, got)) and isinstance(self.rtc, Rtc):
            # The same stream again, every span searched as a long one (remembered in a pass).
            with _long_searches(self.rtc_loaded):
                got = record_stream(self.rtc, self.rtc_loaded, prefix, tools, chunks)
            if problem := diff_steps(want, got):
                problem = f"with long-text searches: {problem}"
        if not problem:
            return None
        return self._report(problem, f"prefix = {prefix!r}\nchunks = {chunks!r}", tools, want, got)

    def _template(self) -> str:
        return f"template = {json.dumps(self.template, ensure_ascii=False, default=repr)}"

    def _report(
        self, problem: str, inputs: str, tools: Any, want: Sequence[Step], got: Sequence[Step]
    ) -> str:
        return "\n".join(
            [
                problem,
                self._template(),
                inputs,
                f"tools = {tools!r}",
                "reference:",
                *("  " + s.describe() for s in want),
                "rtc:",
                *("  " + s.describe() for s in got),
            ]
        )
