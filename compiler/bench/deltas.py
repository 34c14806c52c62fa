"""OpenAI deltas: what a ``DeltaStream`` costs on top of the parser it drives.

For each workload, streamed in the headline chunk size, three ops are timed in one interleaving:
the module's ``ResponseParser`` (``feed()`` of every chunk, then ``finalize()``), its
``DeltaStream`` (``feed()`` of every chunk, then ``finish()``) and the reference's parser. The
row keeps the three per-chunk costs, ``deltas_over_rtc`` (the target: at most 1.5x, as a median
over the catalogue on the 16 KB workload) and the speedup of the deltas over the reference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cells import cell, num
from .config import BenchConfig
from .texts import TOOLS
from .timing import Op, chunked, ratio, stream_op

SIDES = ("rtc", "deltas", "reference")


class Finishing:
    """A DeltaStream as ``stream_op`` drives a parser: its ``feed``, and ``finish`` as
    ``finalize`` (bound methods, so the timed loop makes the same calls)."""

    __slots__ = ("feed", "finalize")

    def __init__(self, stream: Any) -> None:
        self.feed = stream.feed
        self.finalize = stream.finish


def delta_ops(sides: Any, chunks: list[str], config: BenchConfig) -> dict[str, Op]:
    module, prefix = sides.module, sides.prefix
    ops: dict[str, Op] = {
        "rtc": (stream_op(sides.rtc_make, chunks), config.rtc_timeout),
        "deltas": (
            stream_op(lambda: Finishing(module.DeltaStream(prefix, tools=TOOLS)), chunks),
            config.rtc_timeout,
        ),
    }
    if sides.reference is not None:
        ops["reference"] = (stream_op(sides.ref_make, chunks), config.ref_timeout)
    return ops


def delta_run(
    sides: Any, text: str, nbytes: int, measure: Callable[..., Any], config: BenchConfig
) -> dict[str, Any]:
    """The ``deltas`` row of one workload; ``measure(ops, mode, chars)`` times the ops."""
    chunk = config.headline_chunk
    chunks = chunked(text, chunk)
    timed = measure(delta_ops(sides, chunks, config), f"deltas/{chunk}", len(text))
    run: dict[str, Any] = {"mode": "deltas", "chunk": chunk, "chunks": len(chunks)}
    values = {}
    for key in SIDES:
        if key in timed:
            run[key] = timed[key].summary(len(chunks), nbytes, config.statistic)
        values[key] = timed[key].value(config.statistic) if key in timed else None
    run["deltas_over_rtc"] = ratio(values["deltas"], values["rtc"])
    run["speedup"] = ratio(values["reference"], values["deltas"])
    return run


def delta_lines(record: dict[str, Any]) -> list[str]:
    """The report's lines for the ``deltas`` rows of one template."""
    lines = []
    for entry in record.get("workloads", []):
        for run in entry["runs"]:
            if run["mode"] != "deltas":
                continue
            lines.append(
                f"  OpenAI deltas, {entry['name']} in {run['chunk']}-char chunks: "
                f"ResponseParser {cell(run.get('rtc'), 'us')} µs, DeltaStream "
                f"{cell(run.get('deltas'), 'us')} µs ({num(run.get('deltas_over_rtc'), 'x')} "
                f"rtc), reference {cell(run.get('reference'), 'us')} µs per chunk"
            )
    return lines
