"""The compiled parser, run as the lint's probe.

Every example a finding shows is produced here, by the same generated module ``rtc compile``
writes (``rtc.compiler.load``), which answers exactly what transformers 5.23.0 answers. Results
are JSON values: the message dict, or ``{"exception": TYPE, "message": TEXT}``. Runs are cached
by their inputs, so checks that share probe texts pay for each once.

Each run has a time limit (on the main thread, where a signal can interrupt the ``regex``
engine): a template whose patterns backtrack catastrophically must not hang the lint. After the
first run over the limit the probe refuses all further runs (:class:`ProbeTimeout`), so the
lint's total time stays bounded too.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from rtc.compiler.codegen import load
from rtc.compiler.deadline import Timeout, time_limit

RUN_SECONDS = 2.0
"""Wall-clock limit of one probe run (one shot or streamed)."""

ONE_SHOT = "one-shot"
STREAMED = "streamed"
HOLDBACK = "holdback"
OPENAI = "openai"


class ProbeTimeout(Exception):
    """A probe run exceeded :data:`RUN_SECONDS`; ``text`` is the input it was given."""

    def __init__(self, prefix: str, text: str) -> None:
        super().__init__(f"the parser did not finish within {RUN_SECONDS:g} s")
        self.prefix = prefix
        self.text = text


@dataclass(frozen=True)
class Run:
    """How an example's result is produced: ``mode`` on ``text`` (the example's text when None).

    ``one-shot`` is ``parse_response``; ``streamed`` feeds ``chunk`` characters at a time and
    finalizes; ``holdback`` streams one character at a time and counts what was emitted before
    ``finalize()``; ``openai`` is the OpenAI message a server sends (``parse_openai``, reasoning
    under ``reasoning_content``, call ids ``call_0``, ``call_1``, …).
    """

    label: str
    mode: str
    text: str | None = None
    chunk: int = 1


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data (non-finite floats spelled as strings, keys as strings)."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def raised(exc: BaseException) -> dict[str, str]:
    return {"exception": type(exc).__name__, "message": str(exc)}


def is_raised(result: Any) -> bool:
    return isinstance(result, dict) and set(result) == {"exception", "message"}


class Probe:
    """One template's compiled parser, with cached, time-limited runs."""

    def __init__(self, template: dict[str, Any], tools: list[dict[str, Any]] | None) -> None:
        self.module: ModuleType = load(template)
        self.tools = tools
        self._cache: dict[tuple[str, str, str, int, bool], Any] = {}
        self.timed_out: ProbeTimeout | None = None

    def result(self, prefix: str, text: str, run: Run) -> Any:
        """The JSON result of ``run`` on ``text`` (or on ``run.text``)."""
        return self.run(prefix, run.text if run.text is not None else text, run.mode, run.chunk)

    def run(self, prefix: str, text: str, mode: str, chunk: int = 1, tools: bool = True) -> Any:
        key = (prefix, text, mode, chunk, tools)
        if key in self._cache:
            return self._cache[key]
        if self.timed_out is not None:
            raise self.timed_out
        tool_list = self.tools if tools else None
        try:
            with time_limit(RUN_SECONDS):
                if mode == ONE_SHOT:
                    result = self._one_shot(prefix, text, tool_list)
                elif mode == STREAMED:
                    result = self._streamed(prefix, text, tool_list, chunk)
                elif mode == OPENAI:
                    result = self._openai(prefix, text, tool_list)
                else:
                    result = self._holdback(prefix, text, tool_list)
        except Timeout:
            self.timed_out = ProbeTimeout(prefix, text)
            raise self.timed_out from None
        self._cache[key] = result
        return result

    def one_shot(self, prefix: str, text: str) -> Any:
        return self.run(prefix, text, ONE_SHOT)

    def streamed(self, prefix: str, text: str, chunk: int = 1) -> Any:
        return self.run(prefix, text, STREAMED, chunk)

    def _one_shot(self, prefix: str, text: str, tools: Any) -> Any:
        try:
            return jsonable(self.module.parse_response(text, prefix=prefix, tools=tools))
        except Exception as exc:  # the parser's answer, whatever it raises
            return raised(exc)

    def _openai(self, prefix: str, text: str, tools: Any) -> Any:
        ids = (f"call_{n}" for n in itertools.count())
        try:
            message, _, _ = self.module.parse_openai(
                text,
                prefix=prefix,
                tools=tools,
                reasoning_key="reasoning_content",
                id_factory=lambda: next(ids),
            )
            return jsonable(message)
        except Exception as exc:
            return raised(exc)

    def _streamed(self, prefix: str, text: str, tools: Any, chunk: int) -> Any:
        try:
            parser = self.module.ResponseParser(prefix, tools=tools)
            for start in range(0, len(text), chunk):
                parser.feed(text[start : start + chunk])
            message, _ = parser.finalize()
            return jsonable(message)
        except Exception as exc:
            return raised(exc)

    def _holdback(self, prefix: str, text: str, tools: Any) -> Any:
        """Characters fed one at a time, and how many reached a region before ``finalize()``."""
        emitted = 0
        try:
            parser = self.module.ResponseParser(prefix, tools=tools)
            for ch in text:
                for event in parser.feed(ch):
                    if event["type"] == "region_chunk":
                        emitted += len(event["text"])
            parser.finalize()
        except Exception as exc:
            return raised(exc)
        return {"characters fed": len(text), "characters emitted before finalize": emitted}

    @property
    def whole_buffer(self) -> bool:
        """Whether the parser keeps its whole buffer (a pattern may look behind arbitrarily)."""
        return self.module.ResponseParser._context is None


def same(a: Any, b: Any) -> bool:
    """Whether two results are the same (as JSON: key order ignored, types kept)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
