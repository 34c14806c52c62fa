"""Measuring: time caps, samples, interleaved repeats, and the ops that are timed.

Measurements interleave the implementations round by round in one process, pause the garbage
collector inside a sample only, and cap every sample with a wall-clock timer.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rtc.compiler.deadline import Timeout as _Timeout
from rtc.compiler.deadline import time_limit

from .config import BenchConfig

Prepare = Callable[[int], Callable[[], object]]
"""``prepare(n)`` does the untimed setup of n ops and returns the closure that runs them."""
Op = tuple[Prepare, float | None]
"""What ``measure`` times: the op, and the cap on one sample (seconds; None: uncapped)."""


@dataclass
class Measured:
    status: str = "ok"
    samples_ns: list[float] = field(default_factory=list)
    """Nanoseconds per op, one value per sample."""
    number: int = 1

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.samples_ns)

    def value(self, statistic: str) -> float | None:
        """Nanoseconds per op by ``statistic`` ("min" or "median"), None unless ok."""
        if not self.ok:
            return None
        return min(self.samples_ns) if statistic == "min" else statistics.median(self.samples_ns)

    def summary(self, units: int, nbytes: int, statistic: str) -> dict[str, Any]:
        """``units`` divides an op (chunks per stream); ``nbytes`` is the text an op handles.

        ``us`` (per unit), ``op_us`` and ``mb_s`` follow ``statistic``."""
        if not self.ok:
            return {"status": self.status}
        best = min(self.samples_ns) if statistic == "min" else statistics.median(self.samples_ns)
        return {
            "status": "ok",
            "us": best / units / 1e3,
            "min_us": min(self.samples_ns) / units / 1e3,
            "median_us": statistics.median(self.samples_ns) / units / 1e3,
            "op_us": best / 1e3,
            "mb_s": nbytes / best * 1e3 if nbytes else None,
            "samples": len(self.samples_ns),
            "number": self.number,
        }


CLOCKS: dict[str, Callable[[], int]] = {"wall": time.perf_counter_ns, "cpu": time.thread_time_ns}


def _run_sample(
    prepare: Prepare, number: int, cap: float | None, clock: Callable[[], int]
) -> float:
    run = prepare(number)
    enabled = gc.isenabled()
    gc.disable()
    try:
        with time_limit(cap):
            start = clock()
            run()
            stop = clock()
    finally:
        if enabled:
            gc.enable()
    return (stop - start) / number


def describe_failure(exc: BaseException) -> str:
    if isinstance(exc, _Timeout):
        return "timeout"
    text = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
    return "error: " + (text if len(text) <= 100 else text[:97] + "...")


def measure(ops: dict[str, Op], config: BenchConfig, deadline: float) -> dict[str, Measured]:
    """Time every op, interleaved round by round, until the repeat rules or the budget stop it.

    The first (untimed) call of each op warms it up and calibrates how many ops one sample runs;
    an op that already took more than half the hard cap keeps that call as its only sample (a
    quadratic reference at 128 KB would otherwise eat the budget of the whole run).
    """
    results = {name: Measured() for name in ops}
    clock = CLOCKS[config.clock]
    active: list[str] = []
    for name, (prepare, cap) in ops.items():
        if time.monotonic() > deadline:
            results[name].status = "skipped: template time budget exhausted"
            continue
        try:
            first = _run_sample(prepare, 1, cap, clock)
        except (Exception, _Timeout) as exc:  # a timeout and any parser error are results
            results[name].status = describe_failure(exc)
            continue
        if first >= config.hard_cap * 1e9 / 2:
            results[name].samples_ns.append(first)
            continue
        results[name].number = max(
            1, min(10**6, math.ceil(config.min_sample * 1e9 / max(first, 1)))
        )
        active.append(name)
    start = time.monotonic()
    rounds = 0
    while active:
        for name in list(active):
            prepare, cap = ops[name]
            try:
                results[name].samples_ns.append(
                    _run_sample(prepare, results[name].number, cap, clock)
                )
            except (Exception, _Timeout) as exc:  # as above
                results[name].status = describe_failure(exc)
                active.remove(name)
        rounds += 1
        now = time.monotonic()
        elapsed = now - start
        if (
            rounds >= config.max_repeats
            or (rounds >= config.min_repeats and elapsed >= config.budget)
            or elapsed >= config.hard_cap
            or now > deadline
        ):
            break
    return results


def capped_call(fn: Callable[[], Any], cap: float | None) -> tuple[Any, str | None]:
    try:
        with time_limit(cap):
            return fn(), None
    except (Exception, _Timeout) as exc:  # a timeout and any parser error are results
        return None, describe_failure(exc)


def oneshot_op(fn: Callable[[], Any]) -> Prepare:
    def prepare(number: int) -> Callable[[], object]:
        def run() -> None:
            for _ in range(number):
                fn()

        return run

    return prepare


def stream_op(make: Callable[[], Any], chunks: list[str], finalize: bool = True) -> Prepare:
    """Feed ``chunks`` to ``number`` parsers built beforehand (construction is not timed)."""

    def prepare(number: int) -> Callable[[], object]:
        parsers = [make() for _ in range(number)]

        def run() -> None:
            for parser in parsers:
                feed = parser.feed
                for chunk in chunks:
                    feed(chunk)
                if finalize:
                    parser.finalize()

        return run

    return prepare


def chunked(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator
