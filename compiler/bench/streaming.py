"""Timing the region workloads: token-sized chunks through four sides, growth, where time goes.

For each region workload (``regions``), its generation (the region holding ``region_size``
characters of prose) is cut by ``tokens.token_chunks`` and fed, in one interleaving, to the
module's ``ResponseParser`` (``feed`` of every chunk, then ``finalize``), its ``DeltaStream``
(``feed``, then ``finish``), the reference's parser and the floor (a ``feed`` that only returns
one ``region_chunk`` dict); each parser is built beforehand with the workload's prompt and
tools. The row keeps each side's cost per chunk and the ratios: ``speedup`` (reference /
ResponseParser), ``floor_ratio`` (ResponseParser / floor), ``deltas_over_rtc`` (DeltaStream /
ResponseParser) and ``deltas_speedup`` (reference / DeltaStream).

``growth``: the ResponseParser's cost per chunk with ``growth_sizes[1]`` characters of prose in
the region over its cost with ``growth_sizes[0]``, both measured in one interleaving (a parser
that rescans or recopies what it holds shows well above 1).

``path``: where the parser's time goes, from one run of the workload (after a warm-up run)
through a subclass of the module's parser that counts the chunks whose ``feed`` leaves the
fast path (``CompiledParser.feed``'s straight-through case) for the engine's general path
(``_feed``, the scanning loop): their share of the chunks
(``slow_chunks``) and of the time (``slow_time``; each chunk is timed on its own there, so the
timer's own cost is in both shares), and the mean cost of a slow and of a fast chunk. ``held``
counts the chunks whose ``feed`` opened and closed nothing and emitted less text than it was
given (held back as a possible delimiter start). Nothing in the production code is
instrumented: a template whose parser has no such loop reports no ``path``.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .config import BenchConfig
from .regions import RegionStream
from .sides import FloorParser, Sides
from .timing import CLOCKS, Measured, Op, capped_call, measure, ratio, stream_op
from .tokens import token_chunks

SIDES = ("rtc", "deltas", "reference", "floor")


def region_run(
    sides: Sides,
    stream: RegionStream,
    config: BenchConfig,
    deadline: float,
    struck: set[tuple[str, str]],
) -> dict[str, Any]:
    """The record of one region workload (see the module docstring).

    ``struck`` holds the (side, region) pairs that timed out on a workload of this template
    (this one adds to it): a side that could not stream a region's prose in time is not run on
    its other variant, nor on the growth texts (a quadratic parser would cost minutes there).
    """
    config = replace(config, min_repeats=max(config.min_repeats, config.region_min_repeats))
    text = stream.text(config.region_size)
    chunks = token_chunks(text)
    entry: dict[str, Any] = {
        "name": stream.name,
        "region": stream.region,
        "variant": stream.variant,
        "field": stream.field,
        "source": stream.source,
        "region_chars": config.region_size,
        "chars": len(text),
        "bytes": len(text.encode("utf-8")),
        "chunks": len(chunks),
        "chunk_chars": len(text) / max(len(chunks), 1),
    }
    mismatch = _reference_mismatch(sides, stream, text, config)
    if mismatch:
        entry["mismatch"] = mismatch
    makers = sides.region_makers(stream.prefix, stream.tools, config)
    ops: dict[str, Op] = {
        key: (stream_op(make, chunks), cap)
        for key, (make, cap) in makers.items()
        if (key, stream.region) not in struck
    }
    ops["floor"] = (stream_op(FloorParser, chunks, finalize=False), None)
    timed = measure(ops, config, deadline)
    for key in makers:
        if key not in ops:
            timed[key] = Measured(status=f"skipped: timed out on another {stream.region} stream")
        elif timed[key].status == "timeout":
            struck.add((key, stream.region))
    values: dict[str, float | None] = {}
    for key in SIDES:
        if key in timed:
            entry[key] = timed[key].summary(len(chunks), entry["bytes"], config.statistic)
        values[key] = timed[key].value(config.statistic) if key in timed else None
    entry["speedup"] = ratio(values["reference"], values["rtc"])
    entry["floor_ratio"] = ratio(values["rtc"], values["floor"])
    entry["deltas_over_rtc"] = ratio(values["deltas"], values["rtc"])
    entry["deltas_speedup"] = ratio(values["reference"], values["deltas"])
    entry["path"] = None
    if timed["rtc"].ok:
        # Two untimed runs (a warm-up, then the counted one): capped like a sample each.
        entry["path"], _problem = capped_call(
            lambda: path_profile(sides.module, stream, chunks, CLOCKS[config.clock]),
            2 * config.rtc_timeout,
        )
    small, large = config.growth_sizes
    if not stream.variant and stream.region in config.growth_regions and small != large:
        if timed["rtc"].ok:
            entry["growth"] = _growth(sides, stream, config, deadline)
        else:
            entry["growth"] = {
                "sizes": [small, large],
                "rtc": None,
                "status": f"rtc did not finish the {config.region_size}-char stream",
            }
    return entry


def _reference_mismatch(
    sides: Sides, stream: RegionStream, text: str, config: BenchConfig
) -> str | None:
    """Whether rtc and the reference parse the workload's generation differently (they must
    not; the region itself was checked with rtc when the workload was built)."""
    reference = sides.reference
    if reference is None:
        return None
    ours, problem = capped_call(
        lambda: sides.module.parse_response(text, prefix=stream.prefix, tools=stream.tools),
        config.rtc_timeout,
    )
    theirs, ref_problem = capped_call(
        lambda: reference.parse_response(
            text, sides.loaded, prefix=stream.prefix, tools=stream.tools
        ),
        config.ref_timeout,
    )
    if ref_problem is not None:
        return f"the reference failed: {ref_problem}" if ref_problem != "timeout" else None
    if problem is not None:
        return f"rtc failed: {problem}"
    # Key order is compared too: it is observable, and rtc reproduces it.
    if json.dumps(ours) != json.dumps(theirs):
        return "rtc and the reference return different messages"
    return None


def _growth(
    sides: Sides, stream: RegionStream, config: BenchConfig, deadline: float
) -> dict[str, Any]:
    """ResponseParser's cost per chunk at the larger growth size over the smaller one (each
    text first checked to parse with the prose in the region, as at the workload size)."""
    small, large = config.growth_sizes
    out: dict[str, Any] = {"sizes": [small, large]}

    def parse(text: str, prefix: str, tools: Any) -> Any:
        return sides.module.parse_response(text, prefix=prefix, tools=tools)

    for size in (small, large):
        problem = stream.problem(parse, size)
        if problem is not None:
            out["status"] = f"with {size} chars of prose: {problem}"
            out["rtc"] = None
            return out
    make, cap = sides.region_makers(stream.prefix, stream.tools, config)["rtc"]
    ops: dict[str, Op] = {}
    counts: dict[str, int] = {}
    for label, size in (("small", small), ("large", large)):
        chunks = token_chunks(stream.text(size))
        ops[label] = (stream_op(make, chunks), cap)
        counts[label] = len(chunks)
    timed = measure(ops, config, deadline)
    for label in ("small", "large"):
        out[label] = timed[label].summary(counts[label], 0, config.statistic)
    cost = {k: ratio(timed[k].value(config.statistic), counts[k]) for k in ("small", "large")}
    out["rtc"] = ratio(cost["large"], cost["small"])
    return out


def path_profile(
    module: Any, stream: RegionStream, chunks: list[str], clock: Callable[[], int]
) -> dict[str, Any] | None:
    """Where one run of the workload spends its time (see the module docstring), or None when
    the module's parser has no engine loop to count; ``clock`` times each chunk."""
    base = module.ResponseParser
    if not callable(getattr(base, "_feed", None)):
        return None
    entered = [0]

    class Counting(base):  # type: ignore[misc, valid-type]
        __slots__ = ()

        def _feed(self, text: str) -> list[dict[str, Any]]:
            entered[0] += 1
            return super()._feed(text)

    # A first run warms what the parser caches; the counted run then pauses the garbage
    # collector, as the timed samples do.
    warm = Counting(stream.prefix, tools=stream.tools)
    for chunk in chunks:
        warm.feed(chunk)
    parser = Counting(stream.prefix, tools=stream.tools)
    slow = held = 0
    slow_ns = fast_ns = 0
    enabled = gc.isenabled()
    gc.disable()
    try:
        for chunk in chunks:
            before = entered[0]
            start = clock()
            events = parser.feed(chunk)
            elapsed = clock() - start
            emitted = sum(len(e["text"]) for e in events if e.get("type") == "region_chunk")
            if emitted < len(chunk) and all(e.get("type") == "region_chunk" for e in events):
                held += 1
            if entered[0] > before:
                slow += 1
                slow_ns += elapsed
            else:
                fast_ns += elapsed
    finally:
        if enabled:
            gc.enable()
    total = max(len(chunks), 1)
    return {
        "slow_chunks": slow / total,
        "slow_time": ratio(slow_ns, slow_ns + fast_ns),
        "held_chunks": held / total,
        "slow_us": slow_ns / slow / 1e3 if slow else None,
        "fast_us": fast_ns / (total - slow) / 1e3 if total > slow else None,
    }
