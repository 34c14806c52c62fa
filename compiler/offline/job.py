"""What the file job's backends (the process pool, Ray) share: the job's defaults and how it
fails part way. Both backends import it; neither imports the other or the command."""

from __future__ import annotations

from .progress import Counts

DEFAULT_BATCH_SIZE = 1024
"""Records parsed per batch (one task of a worker)."""


class JobFailed(Exception):
    """The job stopped (an error, a crash or an interrupt) after ``counts``; no output written."""

    def __init__(self, reason: str, counts: Counts, interrupted: bool = False) -> None:
        where = f"after {counts.records:,} records"
        if counts.last_line:
            where += f" (input line {counts.last_line:,})"
        said = f"interrupted {where}" if interrupted else f"{reason}; stopped {where}"
        super().__init__(f"{said}; no output written")
        self.counts = counts
        self.interrupted = interrupted
