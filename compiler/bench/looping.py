"""Looping generations (``--abuse``): every fragment of the template repeated, timed at two sizes.

A looping model repeats one fragment of its own format until ``max_tokens`` (an end marker, a
tool-call head, a parameter tag, whitespace: ``rtc.compiler.lint.repetitions``). Each fragment
is repeated after a short opening into a text of about ``looping_size`` characters and into one
four times longer, parsed one shot, streamed in 16-character chunks and fed whole (one
``feed()``, as ``parse_openai`` reads a generation); the time of the longer over the shorter is
the growth (4 for linear work, 16 for quadratic). The tests count the same
work exactly (``tests/test_looping.py``); these are the times. The reference runs on the
fragment rtc found slowest, for contrast, under its usual cap.
"""

from __future__ import annotations

import time
from typing import Any

from rtc.compiler.lint.repetitions import fragments, times_for
from rtc.compiler.validate import validate

from .config import BenchConfig, Progress
from .sides import Sides
from .timing import Op, chunked, measure, ratio

CHUNK = 16


def looping_runs(sides: Sides, config: BenchConfig, say: Progress, name: str) -> dict[str, Any]:
    """Times of each fragment's repetition, shorter and longer, for rtc (and the reference on
    the slowest), one shot and streamed; the worst growth of each."""
    size = config.looping_size
    say(f"{name}: looping generations ({size} and {4 * size} characters)")
    deadline = time.monotonic() + config.looping_budget
    found = fragments(validate(sides.template))
    entries: list[dict[str, Any]] = []
    for fragment in found:
        times = times_for(fragment.text, size)
        texts = (fragment.generation(times), fragment.generation(4 * times))
        entry: dict[str, Any] = {
            "fragment": fragment.text,
            "head": fragment.head,
            "source": fragment.source,
            "chars": [len(t) for t in texts],
        }
        for mode in MODES:
            entry[mode] = _growth([_op(sides, mode, t, config) for t in texts], config, deadline)
        entries.append(entry)
        if time.monotonic() > deadline:
            break
    out: dict[str, Any] = {"size": size, "chunk": CHUNK, "fragments": entries, "worst": {}}
    reference: dict[str, Any] = {}
    for mode in MODES:
        timed = [i for i, e in enumerate(entries) if e[mode]["growth"] is not None]
        if not timed:
            continue
        worst = max(timed, key=lambda i: entries[i][mode]["growth"])
        out["worst"][mode] = {"index": worst, "growth": entries[worst][mode]["growth"]}
        if sides.reference is not None:
            fragment = found[worst]
            times = times_for(fragment.text, size)
            ops = [
                _op(sides, mode, fragment.generation(n), config, "reference")
                for n in (times, 4 * times)
            ]
            reference[mode] = {"index": worst, **_growth(ops, config, deadline)}
    if reference:
        out["reference_on_worst"] = reference
    return out


MODES = ("one-shot", "stream", "fed-whole")


def _op(sides: Sides, mode: str, text: str, config: BenchConfig, side: str = "rtc") -> Op:
    """rtc's (or the preloaded reference's) one-shot parse or 16-character stream of ``text``."""
    if mode == "one-shot":
        return sides.oneshot_ops(text, config)["rtc" if side == "rtc" else "reference_loaded"]
    chunks = [text] if mode == "fed-whole" else chunked(text, CHUNK)
    return sides.stream_ops(chunks, config)[side]


def _growth(ops: list[Op], config: BenchConfig, deadline: float) -> dict[str, Any]:
    """Microseconds of the shorter and the longer text, measured interleaved, and their ratio."""
    measured = measure({"small": ops[0], "big": ops[1]}, config, deadline)
    small = measured["small"].value(config.statistic)
    big = measured["big"].value(config.statistic)
    status = next((m.status for m in measured.values() if not m.ok), "ok")
    return {
        "status": status,
        "small_us": None if small is None else small / 1e3,
        "big_us": None if big is None else big / 1e3,
        "growth": ratio(big, small),
    }
