"""The progress line of a file job on stderr, and its final summary line."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import IO


@dataclass
class Counts:
    """What a job has done so far: records written, how many failed, and where it is."""

    records: int = 0
    errors: int = 0
    bad: int = 0
    last_line: int = 0
    consumed: int = 0  # of the input, in the unit of ``total`` (bytes of JSONL, Parquet rows)
    total: int | None = None  # the input's size, when known (not for stdin)
    started: float = field(default_factory=time.perf_counter)

    def add(self, records: int, errors: int, bad: int, last_line: int, consumed: int = 0) -> None:
        self.records += records
        self.errors += errors
        self.bad += bad
        self.last_line = max(self.last_line, last_line)
        self.consumed += consumed

    def fraction(self) -> float | None:
        if not self.total:
            return None
        return min(self.consumed / self.total, 1.0)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started

    def rate(self) -> float:
        return self.records / max(self.seconds, 1e-9)


BAR = 24
"""Width of the bar drawn on a terminal."""


class Progress:
    """Redraws one line (``\\r``) on a terminal; elsewhere prints a line every ``every`` seconds.

    The line says how much of the input is done (when its size is known), records so far,
    records per second and errors so far.

    ``every=None`` on a non-terminal prints nothing until the summary (logs stay short).
    """

    def __init__(self, stream: IO[str] | None = None, every: float | None = 10.0) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.every = 0.2 if self.tty else every
        self._last = time.perf_counter()  # the first line after one interval, not at once
        self._drawn = False

    def update(self, counts: Counts, force: bool = False) -> None:
        if self.every is None:
            return
        now = time.perf_counter()
        if not force and now - self._last < self.every:
            return
        self._last = now
        line = (
            f"{counts.records:,} records, {counts.rate():,.0f}/s, {counts.errors:,} errors so far"
        )
        fraction = counts.fraction()
        if fraction is not None:
            done = round(fraction * BAR)
            bar = f"[{'#' * done}{'.' * (BAR - done)}] " if self.tty else ""
            line = f"{bar}{fraction:4.0%} {line}"
        line = "rtc: " + line
        if self.tty:
            self.stream.write("\r\x1b[2K" + line)
            self._drawn = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def clear(self) -> None:
        if self._drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._drawn = False

    def summary(self, counts: Counts, output: str, records_in: int | None = None) -> None:
        self.clear()
        received = "" if records_in is None else f"{records_in:,} input rows, "
        self.stream.write(
            f"rtc: {received}{counts.records:,} records out to {output} in {counts.seconds:.1f} s "
            f"({counts.rate():,.0f}/s): {counts.records - counts.errors:,} parsed, "
            f"{counts.errors:,} errors ({counts.bad:,} bad records)\n"
        )
        self.stream.flush()
