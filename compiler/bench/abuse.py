"""Abuse runs: a very long generation and floods of partial delimiters; and (``looping``)
every fragment of the template repeated as a looping model writes it.

A parser whose per-character cost grows with the text shows ratios well above 1 (the looping
runs: growths well above 4 for four times the text).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from .config import BenchConfig, Progress, size_label
from .looping import looping_runs
from .sides import Sides
from .texts import prose
from .timing import CLOCKS, capped_call, chunked, ratio
from .workloads import Composer, TemplatePlan, region_parts


def abuse_runs(
    plan: TemplatePlan, sides: Sides, config: BenchConfig, say: Progress, name: str
) -> dict[str, Any]:
    """The abuse workloads; the garbage collector stays on here, as in a long-running server
    (a parser whose live objects grow with the text would pay for it in collections)."""
    looping = looping_runs(sides, config, say, name)
    region = plan.reasoning or plan.content
    if region is None or region.problem or plan.anchor is None:
        return {"skipped": "no text field with derivable delimiters", "looping": looping}
    makers = {key: make for key, (make, _cap) in sides.makers(config).items()}
    cap = config.abuse_run.timeout
    clock = CLOCKS[config.clock]

    def text_in_region(body: str) -> str:
        # The region is left open: finalize() closes it, and is timed on its own, so that
        # building the value of an 8 MB region is not counted as a cost of the last chunks.
        composer = Composer()
        composer.add(*region_parts(region, body, with_close=False))
        return composer.build()

    # A long generation: prose repeated (generating 8 MB of fresh prose would dominate the run).
    block = prose(65536, seed=7)
    body = (block * (config.abuse_run.size // len(block) + 1))[: config.abuse_run.size]
    big = text_in_region(body)
    out: dict[str, Any] = {
        "region": region.name,
        "body_size": config.abuse_run.size,
        "size": len(big),
        "chunk": config.abuse_run.chunk,
        "segment": config.abuse_run.segment,
    }

    say(
        f"{name}: abuse {size_label(config.abuse_run.size)} in {config.abuse_run.chunk}-char chunks"
    )
    chunks = chunked(big, config.abuse_run.chunk)
    stream: dict[str, Any] = {}
    for key, make in makers.items():
        result, problem = capped_call(partial(_segmented_feed, make, chunks, 8, clock), cap)
        if problem:
            stream[key] = {"status": problem}
            continue
        first, times, sizes, final = result
        total = first + sum(times)
        stream[key] = {
            "status": "ok",
            "us_per_chunk": total / len(chunks) / 1e3,
            "mb_s": len(big.encode("utf-8")) / total * 1e3,
            "first_chunk_us": first / 1e3,
            "finalize_us": final / 1e3,
            "last_over_first": ratio(times[-1] / sizes[-1], times[0] / sizes[0]),
        }
    out["stream"] = stream

    say(f"{name}: abuse 1-char chunks (first and last {size_label(config.abuse_run.segment)})")
    chars: dict[str, Any] = {}
    start_last = max(0, len(big) - config.abuse_run.segment)
    for key, make in makers.items():
        entry: dict[str, Any] = {}
        for label, start in (("first", 0), ("last", start_last)):
            result, problem = capped_call(
                partial(
                    _char_feed,
                    make,
                    big,
                    start,
                    config.abuse_run.segment,
                    config.abuse_run.chunk,
                    config.abuse_run.char_budget,
                    clock,
                ),
                cap + config.abuse_run.char_budget,
            )
            if problem:
                entry[label] = {"status": problem}
                continue
            per_char, fed = result
            entry[label] = {"status": "ok", "ns_per_char": per_char, "chars": fed}
        ok = all(entry.get(k, {}).get("status") == "ok" for k in ("first", "last"))
        entry["last_over_first"] = (
            ratio(entry["last"]["ns_per_char"], entry["first"]["ns_per_char"]) if ok else None
        )
        chars[key] = entry
    out["chars"] = chars

    # A flood of partial delimiters: the first character of the delimiter that ends the region
    # (`<` for tag-shaped templates), repeated; each one could start a delimiter.
    closer = region.close.candidates[0] if region.close is not None else ""
    flood_char = (closer or "<")[0]
    out["flood_char"] = flood_char
    flood: dict[str, Any] = {}
    for key, make in makers.items():
        entry = {}
        for label, size in (("small", config.abuse_run.small), ("big", config.abuse_run.size)):
            say(f"{name}: abuse {size_label(size)} of {flood_char!r} ({key})")
            pieces = chunked(text_in_region(flood_char * size), config.abuse_run.chunk)
            result, problem = capped_call(partial(_segmented_feed, make, pieces, 1, clock), cap)
            if problem:
                entry[label] = {"status": problem}
                continue
            first, times, sizes, final = result
            entry[label] = {
                "status": "ok",
                "ns_per_char": times[0] / max(sizes[0], 1),
                "first_chunk_us": first / 1e3,
                "finalize_us": final / 1e3,
            }
        ok = all(entry[k].get("status") == "ok" for k in ("small", "big"))
        entry["big_over_small"] = (
            ratio(entry["big"]["ns_per_char"], entry["small"]["ns_per_char"]) if ok else None
        )
        flood[key] = entry
    out["flood"] = flood
    out["flood_sizes"] = [config.abuse_run.small, config.abuse_run.size]
    out["looping"] = looping
    return out


def _segmented_feed(
    make: Callable[[], Any], chunks: list[str], parts: int, clock: Callable[[], int]
) -> tuple[float, list[float], list[int], float]:
    """Feed ``chunks`` into one parser: the first chunk's nanoseconds, then ``parts`` equal
    segments of the rest (nanoseconds, characters), then finalize's nanoseconds.

    The first chunk is timed apart: a one-time cost there (a first scan, a cache) is not a
    per-character cost, and would otherwise make the first segment look slower than the last.
    """
    parser = make()
    feed = parser.feed
    start = clock()
    feed(chunks[0])
    first = clock() - start
    rest = chunks[1:]
    size = max(1, -(-len(rest) // parts))
    times: list[float] = []
    sizes: list[int] = []
    for index in range(0, len(rest), size):
        segment = rest[index : index + size]
        start = clock()
        for chunk in segment:
            feed(chunk)
        times.append(clock() - start)
        sizes.append(sum(len(chunk) for chunk in segment))
    if not times:
        times, sizes = [0.0], [0]
    start = clock()
    parser.finalize()
    return first, times, sizes, clock() - start


def _char_feed(
    make: Callable[[], Any],
    text: str,
    start: int,
    length: int,
    fast: int,
    budget: float,
    clock: Callable[[], int],
) -> tuple[float, int]:
    """Nanoseconds per character of feeding ``text[start:start+length]`` one character at a
    time, after feeding everything before ``start`` in ``fast``-character chunks (untimed); stops
    early once ``budget`` seconds of feeding have been timed."""
    parser = make()
    feed = parser.feed
    for i in range(0, start, fast):
        feed(text[i : min(i + fast, start)])
    segment = text[start : start + length]
    fed = 0
    elapsed = 0
    while fed < len(segment) and elapsed < budget * 1e9:
        block = segment[fed : fed + 256]
        begin = clock()
        for char in block:
            feed(char)
        elapsed += clock() - begin
        fed += len(block)
    return elapsed / max(fed, 1), fed
