"""The implementations compared: rtc's module, transformers' interpreter, the floor."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .config import BenchConfig
from .deltas import Finishing
from .texts import TOOLS
from .timing import Op, oneshot_op, stream_op


@dataclass
class Reference:
    """transformers' interpreter, when installed."""

    version: str
    parse_response: Callable[..., Any]
    parser: Callable[..., Any]
    load_template: Callable[[Any], Any]


def load_reference() -> Reference | None:
    try:
        import transformers
        from transformers.utils.chat_parsing import ResponseParser, parse_response
        from transformers.utils.chat_parsing.response_templates import load_response_template
    except Exception:  # absent or broken: benchmark rtc alone
        return None
    return Reference(
        version=str(getattr(transformers, "__version__", "?")),
        parse_response=parse_response,
        parser=ResponseParser,
        load_template=load_response_template,
    )


class FloorParser:
    """The cheapest ``feed()`` a streaming parser can have: one event dict in a new list."""

    __slots__ = ()

    def feed(self, text: str) -> list[dict[str, Any]]:
        return [{"type": "region_chunk", "field": "content", "text": text, "dirty": False}]


@dataclass
class Sides:
    """rtc's module and the reference (None when absent), set up for one template.

    ``prefix`` is what one-shot parsing and streaming parsers get (the template's start anchor);
    every call gets the bench's tools, as a server passes the request's tools. A new way of
    running a workload (a batch, OpenAI deltas) adds its ops here, one entry per side, so that
    each side is called the same way.
    """

    module: ModuleType
    reference: Reference | None
    template: dict[str, Any]
    loaded: Any
    """The reference's preloaded template (None without a reference)."""
    prefix: str

    def rtc_parse(self, text: str, prefix: str | None = None) -> Callable[[], Any]:
        module = self.module
        prefix = self.prefix if prefix is None else prefix
        return lambda: module.parse_response(text, prefix=prefix, tools=TOOLS)

    def ref_parse(
        self, text: str, preloaded: bool = True, prefix: str | None = None
    ) -> Callable[[], Any]:
        reference = self.reference
        prefix = self.prefix if prefix is None else prefix
        assert reference is not None
        # From the dict is how the reference's parse_response is documented to be called (it
        # then validates and compiles the template on every call); preloaded is its best case.
        spec = self.loaded if preloaded else self.template
        return lambda: reference.parse_response(text, spec, prefix=prefix, tools=TOOLS)

    def rtc_make(self) -> Any:
        return self.module.ResponseParser(self.prefix, tools=TOOLS)

    def ref_make(self) -> Any:
        assert self.reference is not None
        return self.reference.parser(self.loaded, self.prefix, tools=TOOLS)

    def makers(self, config: BenchConfig) -> dict[str, tuple[Callable[[], Any], float | None]]:
        """Each side's streaming parser factory and its cap on one sample."""
        makers: dict[str, tuple[Callable[[], Any], float | None]] = {
            "rtc": (self.rtc_make, config.rtc_timeout)
        }
        if self.reference is not None:
            makers["reference"] = (self.ref_make, config.ref_timeout)
        return makers

    def region_makers(
        self, prefix: str, tools: Any, config: BenchConfig
    ) -> dict[str, tuple[Callable[[], Any], float | None]]:
        """Streaming factories for a region workload, with its own prompt and tools: the
        module's ``ResponseParser`` ("rtc"), its ``DeltaStream`` ("deltas", ``finish`` called as
        ``finalize``) and the reference's parser; each with its cap on one sample."""
        module, reference, loaded = self.module, self.reference, self.loaded
        makers: dict[str, tuple[Callable[[], Any], float | None]] = {
            "rtc": (lambda: module.ResponseParser(prefix, tools=tools), config.rtc_timeout),
            "deltas": (
                lambda: Finishing(module.DeltaStream(prefix, tools=tools)),
                config.rtc_timeout,
            ),
        }
        if reference is not None:
            makers["reference"] = (
                lambda: reference.parser(loaded, prefix, tools=tools),
                config.ref_timeout,
            )
        return makers

    def oneshot_ops(
        self, text: str, config: BenchConfig, prefix: str | None = None
    ) -> dict[str, Op]:
        """``parse_response`` of ``text`` (with ``prefix``, default the start anchor); the
        reference from the dict and preloaded."""
        ops: dict[str, Op] = {"rtc": (oneshot_op(self.rtc_parse(text, prefix)), config.rtc_timeout)}
        if self.reference is not None:
            ops["reference"] = (
                oneshot_op(self.ref_parse(text, False, prefix)),
                config.ref_timeout,
            )
            ops["reference_loaded"] = (
                oneshot_op(self.ref_parse(text, True, prefix)),
                config.ref_timeout,
            )
        return ops

    def stream_ops(self, chunks: list[str], config: BenchConfig) -> dict[str, Op]:
        """``feed()`` of every chunk then ``finalize()``; the floor only feeds."""
        ops: dict[str, Op] = {
            "rtc": (stream_op(self.rtc_make, chunks), config.rtc_timeout),
            "floor": (stream_op(FloorParser, chunks, finalize=False), None),
        }
        if self.reference is not None:
            ops["reference"] = (stream_op(self.ref_make, chunks), config.ref_timeout)
        return ops

    def construction_ops(self, prompt: str, config: BenchConfig) -> dict[str, Op]:
        """``ResponseParser(prompt)``; the reference from the dict and preloaded."""
        module, reference = self.module, self.reference
        ops: dict[str, Op] = {
            "rtc": (
                oneshot_op(lambda: module.ResponseParser(prompt, tools=TOOLS)),
                config.rtc_timeout,
            )
        }
        if reference is not None:
            template, loaded = self.template, self.loaded
            ops["reference_dict"] = (
                oneshot_op(lambda: reference.parser(template, prompt, tools=TOOLS)),
                config.ref_timeout,
            )
            ops["reference_loaded"] = (
                oneshot_op(lambda: reference.parser(loaded, prompt, tools=TOOLS)),
                config.ref_timeout,
            )
        return ops
