"""Running the benchmark: every workload of a template in every mode, then several templates."""

from __future__ import annotations

import json
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

from ..codegen import load
from ..version import __version__
from .abuse import abuse_runs
from .config import FULL, BenchConfig, Progress, size_label
from .deltas import delta_run
from .regions import build_region_streams
from .sides import Reference, Sides, load_reference
from .streaming import region_run
from .summary import summarize
from .timing import Measured, Op, capped_call, chunked, describe_failure, measure, ratio, stream_op
from .workloads import Workload, build_workloads, check_message, plan_template


def bench_template(
    name: str,
    template: dict[str, Any],
    config: BenchConfig = FULL,
    *,
    reference: Reference | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Benchmark one template; a JSON-compatible record (see ``format_report``)."""
    say = progress or (lambda message: None)
    deadline = time.monotonic() + config.template_budget
    record: dict[str, Any] = {"name": name, "notes": [], "skipped": [], "workloads": []}
    try:
        module = load(template)
    except Exception as exc:  # an invalid template is a result in a catalogue
        record["error"] = describe_failure(exc)
        return record
    loaded = None
    if reference is not None:
        loaded, problem = capped_call(partial(reference.load_template, template), 10.0)
        if problem:
            record["notes"].append(f"reference cannot load the template ({problem})")
            reference = None

    plan = plan_template(template)
    record["notes"] += plan.notes
    workloads, skipped = build_workloads(plan, config)
    record["skipped"] += skipped
    sides = Sides(module, reference, template, loaded, plan.anchor or "")

    # Construction first: it is cheap and must not be lost to a template whose streams time out.
    say(f"{name}: construction")
    record["construction"] = _construction(sides, plan.prompt, config, deadline)
    gate = _Gate(config, deadline)
    for workload in sorted(workloads, key=lambda w: len(w.text)):
        say(f"{name}: {workload.name}")
        entry, problem = _checked_entry(sides, workload, config)
        if problem is not None:
            record["skipped"].append(
                {"workload": workload.name, "reason": f"derived text does not parse: {problem}"}
            )
            continue
        record["workloads"].append(entry)
        entry["runs"] += _runs(sides, workload, entry["bytes"], gate, config)
    # The report lists workloads in their usual order, whatever order they ran in.
    order = {w.name: i for i, w in enumerate(workloads)}
    record["workloads"].sort(key=lambda entry: order[entry["name"]])

    def parse(text: str, prefix: str, tools: Any) -> Any:
        return module.parse_response(text, prefix=prefix, tools=tools)

    streams, skipped, notes = build_region_streams(name, plan, parse, config)
    record["skipped"] += skipped
    record["notes"] += notes
    record["regions"] = []
    struck: set[tuple[str, str]] = set()
    for stream in streams:
        say(f"{name}: {stream.name} (token-sized chunks)")
        record["regions"].append(region_run(sides, stream, config, deadline, struck))

    record["linearity"] = _linearity(record, config)
    # The headline linearity compares two measurements; taken from the table they were made
    # minutes apart, and a change of load on the machine in between shows up as (non-)linearity.
    # So the pair is measured again, interleaved.
    measured = {w["name"] for w in record["workloads"]}
    pair = [w for w in workloads if w.name in _linearity_names(config) and w.name in measured]
    if len(pair) == 2 and config.headline_chunk in config.chunk_sizes:
        say(f"{name}: linearity")
        small, large = sorted(pair, key=lambda w: len(w.text))
        record["linearity"]["interleaved"] = _interleaved_linearity(
            sides, small.text, large.text, gate, config, deadline
        )
    if config.abuse:
        say(f"{name}: abuse")
        record["abuse"] = abuse_runs(plan, sides, config, say, name)
    if time.monotonic() > deadline:
        record["notes"].append(
            f"template time budget ({config.template_budget:g} s) exhausted: some runs skipped"
        )
    return record


class _Gate:
    """Measures ops, smallest texts first, and never runs an implementation again on a longer
    text in a mode where it timed out (``struck``): a template on which a parser is quadratic
    (or worse) costs a few timeouts, not hours."""

    def __init__(self, config: BenchConfig, deadline: float) -> None:
        self.config = config
        self.deadline = deadline
        self.struck: dict[tuple[str, str], int] = {}

    def allows(self, key: str, mode: str, chars: int) -> bool:
        return chars <= self.struck.get((key, mode), chars)

    def measure(self, ops: dict[str, Op], mode: str, chars: int) -> dict[str, Measured]:
        runnable = {k: v for k, v in ops.items() if self.allows(k, mode, chars)}
        timed = measure(runnable, self.config, self.deadline)
        for key in ops:
            if key not in runnable:
                timed[key] = Measured(status="skipped: timed out on a shorter text")
            elif timed[key].status == "timeout":
                self.struck[(key, mode)] = min(self.struck.get((key, mode), chars), chars)
        return timed


def _checked_entry(
    sides: Sides, workload: Workload, config: BenchConfig
) -> tuple[dict[str, Any], str | None]:
    """The record of a workload, and why its text does not parse as intended (or None).

    The reference judges when there is one, else rtc; the entry notes when the two disagree.
    """
    text, prefix = workload.text, workload.prefix
    entry: dict[str, Any] = {
        "name": workload.name,
        "description": workload.description,
        "shape": workload.shape,
        "chars": len(text),
        "bytes": len(text.encode("utf-8")),
        "runs": [],
    }
    rtc_message, rtc_problem = capped_call(sides.rtc_parse(text, prefix), config.rtc_timeout)
    judge, judge_problem = rtc_message, rtc_problem
    if sides.reference is not None:
        ref_message, ref_problem = capped_call(
            sides.ref_parse(text, True, prefix), config.ref_timeout
        )
        if ref_problem is None:
            judge, judge_problem = ref_message, None
            if rtc_problem is None and json.dumps(rtc_message) != json.dumps(ref_message):
                entry["mismatch"] = "rtc and the reference return different messages"
            elif rtc_problem is not None:
                entry["mismatch"] = f"rtc failed: {rtc_problem}"
    return entry, judge_problem or check_message(judge, workload.checks)


def _runs(
    sides: Sides, workload: Workload, nbytes: int, gate: _Gate, config: BenchConfig
) -> list[dict[str, Any]]:
    """The rows of one workload: one-shot, then (unless one-shot only) streamed in each chunk
    size, with the workload's prefix.

    A new mode (a batch of texts, OpenAI deltas) is one more row here, its ops from ``Sides``.
    """
    text = workload.text
    ops = sides.oneshot_ops(text, config, workload.prefix)
    timed = gate.measure(ops, "one-shot", len(text))
    runs = [_run_record("one-shot", None, 1, nbytes, timed, config)]
    if not workload.streamed:
        return runs
    for size in config.chunk_sizes:
        chunks = chunked(text, size)
        timed = gate.measure(sides.stream_ops(chunks, config), f"stream/{size}", len(text))
        runs.append(_run_record("stream", size, len(chunks), nbytes, timed, config))
    if config.deltas:
        runs.append(delta_run(sides, text, nbytes, gate.measure, config))
    return runs


def _interleaved_linearity(
    sides: Sides, small: str, large: str, gate: _Gate, config: BenchConfig, deadline: float
) -> dict[str, Any]:
    """Per-chunk cost on the large text over the small one, both measured in one interleaving."""
    chunk = config.headline_chunk
    ops: dict[str, Op] = {}
    counts: dict[str, int] = {}
    for impl, (make, cap) in sides.makers(config).items():
        if not gate.allows(impl, f"stream/{chunk}", len(large)):
            continue  # it timed out on a shorter text already
        for label, text in (("small", small), ("large", large)):
            chunks = chunked(text, chunk)
            ops[f"{impl}@{label}"] = (stream_op(make, chunks), cap)
            counts[f"{impl}@{label}"] = len(chunks)
    timed = measure(ops, config, deadline)
    cost = {key: ratio(timed[key].value(config.statistic), counts[key]) for key in ops}
    return {
        "chunk": chunk,
        **{
            impl: ratio(cost.get(f"{impl}@large"), cost.get(f"{impl}@small"))
            for impl in ("rtc", "reference")
        },
    }


def _run_record(
    mode: str,
    chunk: int | None,
    units: int,
    nbytes: int,
    timed: dict[str, Measured],
    config: BenchConfig,
) -> dict[str, Any]:
    """One row: each side's times, and the ratios (one-shot: ``reference`` is from the dict,
    ``reference_loaded`` from a preloaded template; streamed: the parser is built untimed, so
    ``reference`` is simply the reference)."""
    run: dict[str, Any] = {"mode": mode, "chunk": chunk, "chunks": units}
    values: dict[str, float | None] = {}
    for key in ("rtc", "reference", "reference_loaded", "floor"):
        if key in timed:
            run[key] = timed[key].summary(units, nbytes, config.statistic)
        values[key] = timed[key].value(config.statistic) if key in timed else None
    run["speedup"] = ratio(values["reference"], values["rtc"])
    run["speedup_loaded"] = ratio(values["reference_loaded"], values["rtc"])
    run["floor_ratio"] = ratio(values["rtc"], values["floor"])
    return run


def _construction(
    sides: Sides, prompt: str, config: BenchConfig, deadline: float
) -> dict[str, Any]:
    timed = measure(sides.construction_ops(prompt, config), config, deadline)
    nbytes = len(prompt.encode("utf-8"))
    out: dict[str, Any] = {"prompt_chars": len(prompt)}
    for key, measured in timed.items():
        out[key] = measured.summary(1, nbytes, config.statistic)
    values = {key: measured.value(config.statistic) for key, measured in timed.items()}
    out["speedup_dict"] = ratio(values.get("reference_dict"), values["rtc"])
    out["speedup_loaded"] = ratio(values.get("reference_loaded"), values["rtc"])
    return out


def _linearity_names(config: BenchConfig) -> tuple[str, str]:
    small, large = config.linearity_sizes
    return f"reasoning-{size_label(small)}", f"reasoning-{size_label(large)}"


def _linearity(record: dict[str, Any], config: BenchConfig) -> dict[str, Any]:
    """Per-chunk cost at the largest size over the smallest, for each chunk size."""
    small, large = config.linearity_sizes
    names = _linearity_names(config)
    runs = {w["name"]: w["runs"] for w in record["workloads"] if w["name"] in names}
    out: dict[str, Any] = {"sizes": [small, large], "by_chunk": {}}
    if len(runs) < 2 or small == large:
        return out
    for chunk in config.chunk_sizes:
        first, last = (
            next((r for r in runs[n] if r["mode"] == "stream" and r["chunk"] == chunk), None)
            for n in names
        )
        if first is None or last is None:
            continue
        entry: dict[str, float | None] = {}
        for key in ("rtc", "reference"):
            costs = [run.get(key, {}).get("us") for run in (first, last)]
            entry[key] = ratio(costs[1], costs[0])
        out["by_chunk"][str(chunk)] = entry
    return out


def _prefixed(say: Progress, prefix: str, message: str) -> None:
    say(prefix + message)


def catalogue_sources(live: bool = False) -> list[Path]:
    """The templates ``rtc bench --catalogue`` runs: the 16 frozen benchmark templates shipped
    with the bench (``bench/catalogue/``, so that the targets do not move when the catalogue
    changes), or with ``live`` the installed catalogue, ``generated/*.json`` (the test catalogue
    beside the package when there is none)."""
    if not live:
        frozen = resources.files("rtc.compiler.bench") / "catalogue"
        return sorted(
            Path(str(entry))
            for entry in frozen.iterdir()
            if entry.name.endswith(".json") and entry.is_file()
        )
    generated = resources.files("rtc.generated")
    found = sorted(
        Path(str(entry))
        for entry in generated.iterdir()
        if entry.name.endswith(".json") and entry.is_file()
    )
    if found:
        return found
    import rtc.compiler

    root = Path(rtc.compiler.__file__).resolve().parent.parent
    return sorted((root / "tests" / "data" / "templates").glob("*.json"))


def run_benchmark(
    templates: Sequence[tuple[str, dict[str, Any]]],
    config: BenchConfig = FULL,
    *,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Benchmark ``(name, template)`` pairs; the whole JSON-compatible report with its summary."""
    reference = load_reference() if config.reference else None
    say = progress or (lambda message: None)
    records = []
    for index, (name, template) in enumerate(templates, 1):
        prefix = f"[{index}/{len(templates)}] "
        records.append(
            bench_template(
                name,
                template,
                config,
                reference=reference,
                progress=partial(_prefixed, say, prefix),
            )
        )
    return {
        "rtc_version": __version__,
        "reference_version": reference.version if reference else None,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "config": asdict(config),
        "templates": records,
        "summary": summarize(records, config),
    }
