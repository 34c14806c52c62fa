"""What a benchmark run does: its configuration, the quick and full runs, the targets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class AbuseRun:
    """How the abuse workloads run: long generations and floods of partial delimiters, fed in
    large chunks and one character at a time (seconds throughout)."""

    size: int = 8 * 2**20
    small: int = 2**20
    chunk: int = 4096
    segment: int = 65536
    """Characters fed one at a time at the start and at the end of the big text."""
    char_budget: float = 4.0
    """Time budget of each of the two 1-character feeding runs."""
    timeout: float = 60.0


@dataclass(frozen=True)
class BenchConfig:
    """What to run and how long each measurement may take (seconds throughout)."""

    sizes: tuple[int, ...] = (4096, 16384, 131072)
    """Sizes (characters) of the reasoning-heavy workloads."""
    short_size: int = 200
    chunk_sizes: tuple[int, ...] = (1, 3, 16)
    tool_calls: int = 4
    min_repeats: int = 3
    max_repeats: int = 7
    budget: float = 1.0
    """A measurement stops repeating once it has min_repeats samples and has run this long."""
    hard_cap: float = 5.0
    """A measurement stops repeating after this long whatever min_repeats says."""
    min_sample: float = 0.002
    """Inner-loop length of one sample, so that fast ops stand well above timer noise."""
    ref_timeout: float = 10.0
    """Cap on one sample of the reference (reported as "timeout")."""
    rtc_timeout: float = 10.0
    template_budget: float = 240.0
    """Once a template has run this long, its remaining measurements are skipped."""
    reference: bool = True
    workloads: tuple[str, ...] = ()
    """Only these workloads (names as in the report); empty means all."""
    abuse: bool = False
    abuse_run: AbuseRun = AbuseRun()
    """How the abuse workloads run (with ``abuse``)."""
    looping_size: int = 2000
    """Characters of the shorter looping generation (the longer: four times as many)."""
    looping_budget: float = 60.0
    """Time budget of a template's looping generations (fragments after it are skipped)."""
    headline_chunk: int = 3
    headline_size: int = 16384
    clock: str = "wall"
    """"wall": ``time.perf_counter_ns``; "cpu": ``time.thread_time_ns``, which leaves out the
    time other processes take the CPU away, for a loaded machine (a long sample is preempted
    more often than a short one, which would bias the linearity ratios)."""
    statistic: str = "min"
    """Which sample of a measurement stands for it ("min" or "median"). The minimum by default:
    it is the least disturbed by other processes on a shared machine; JSON keeps both."""
    quick: bool = False
    deltas: bool = True
    """Also time OpenAI deltas (``DeltaStream``) beside the parser, in the headline chunk size."""
    regions: tuple[str, ...] = ("answer", "reasoning", "arguments")
    """The region workloads (``regions``): a region of a real generation grown to prose."""
    region_variants: tuple[str, ...] = ("", "unicode", "code")
    """Their prose: English Markdown (""); Chinese, accented Latin and emoji ("unicode"); and,
    in the answer, mostly code ("code": see ``prose.VARIANT_REGIONS``)."""
    region_size: int = 8192
    """Characters of prose in the region of a region workload."""
    growth_sizes: tuple[int, int] = (4096, 131072)
    """Per-chunk cost of a region workload with this much prose, the larger over the smaller."""
    growth_regions: tuple[str, ...] = ("answer", "reasoning", "arguments")
    """The regions whose growth is measured (on their English prose)."""
    region_min_repeats: int = 3
    """Samples at least of each region workload, in a quick run too: a sample is short (about
    10 ms) and one preempted by another process must not be the only one."""

    @property
    def linearity_sizes(self) -> tuple[int, int]:
        """Per-chunk cost at the largest size over the cost at the smallest (128 KB / 4 KB)."""
        return min(self.sizes), max(self.sizes)


FULL = BenchConfig()
QUICK = BenchConfig(
    chunk_sizes=(3, 16),
    min_repeats=1,
    max_repeats=3,
    budget=0.05,
    hard_cap=0.5,
    min_sample=0.0005,
    ref_timeout=2.0,
    rtc_timeout=2.0,
    template_budget=30.0,
    abuse_run=AbuseRun(size=2**20, small=2**17, segment=8192, char_budget=0.5, timeout=10.0),
    growth_regions=("answer",),
    looping_size=600,
    looping_budget=15.0,
    quick=True,
)

TARGETS: dict[str, tuple[str, float]] = {
    # metric key -> (comparison, target): streaming, one-shot, construction, linearity.
    "stream_speedup": (">=", 8.0),
    "stream_floor": ("<=", 2.5),
    "oneshot_short_speedup": (">=", 12.0),
    "oneshot_large_speedup": (">=", 5.0),
    "construct_speedup": (">=", 12.0),
    "linearity": ("<=", 1.2),
    # abuse: cost per character must not grow with the length of the text.
    "abuse_linearity": ("<=", 1.2),
    # A looping generation (a fragment of the format repeated) four times as long takes less
    # than six times as long (the worst fragment of the template, one shot or streamed in
    # 16-character chunks; linear work gives 4).
    "looping_growth": ("<=", 6.0),
    # short tool-calling generations under every prompt shape (pooled over all
    # template x workload x prompt shape entries), and no template slow on 128 KB.
    "oneshot_calls_speedup": (">=", 10.0),
    "oneshot_calls_speedup_loaded": (">=", 4.0),
    "oneshot_calls_lowest": (">=", 6.0),
    "oneshot_large_lowest": (">=", 5.0),
    # OpenAI deltas cost at most this much more than the parser they come from.
    "deltas_over_rtc": ("<=", 1.5),
    # region streams: the answer region of every family streamed in token-sized chunks (the
    # ``answer`` region workload): the median and every family against the reference, the
    # median against the floor, deltas against the parser, and the cost per chunk flat from
    # 4 KB to 128 KB of answer in every family.
    "answer_speedup": (">=", 8.0),
    "answer_lowest": (">=", 4.0),
    "answer_floor": ("<=", 2.5),
    "answer_deltas": ("<=", 1.5),
    "answer_growth": ("<=", 1.2),
}

POOLED: dict[str, str] = {
    "oneshot_calls_speedup": "median",
    "oneshot_calls_speedup_loaded": "median",
    "oneshot_calls_lowest": "lowest",
    "oneshot_large_lowest": "lowest",
    "answer_speedup": "median",
    "answer_lowest": "lowest",
    "answer_growth": "highest",
}
"""Metrics whose target is not on each template's value: "median", a target on the median only
(over every template x workload x prompt shape entry for the short tool calls, over templates
otherwise); "lowest" and "highest", the lowest or highest value over templates (each template
is then held to the target)."""

LARGE_EXCEPTIONS: dict[str, str] = {
    "r1_distill": "bound by copying its 128 KB of wide (UCS-2) content into the value, which "
    "the reference pays too",
}
"""Templates left out of the lowest one-shot 128 KB speedup, and why."""

Progress = Callable[[str], None]
"""Where a run reports what it is doing (one line per step)."""


def size_label(size: int) -> str:
    """How a size is written in workload names and reports: 4k, 128k, 8m."""
    if size >= 2**20 and size % 2**20 == 0:
        return f"{size // 2**20}m"
    if size >= 1024 and size % 1024 == 0:
        return f"{size // 1024}k"
    return str(size)
