"""A wall-clock limit on a block of code, for work that may not finish (benchmarks, lint probes).

The timer raises :class:`Timeout` through whatever runs in the block, including the ``regex``
engine, which checks for signals while it backtracks. Signals reach the main thread only, and
``setitimer`` is POSIX: elsewhere the block runs without a limit.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Timeout(BaseException):
    """Raised by the timer; a BaseException so that no ``except Exception`` in a parser eats it."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise Timeout


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`Timeout` in the block after ``seconds`` of wall time (main thread, POSIX
    only; elsewhere, or with ``seconds`` None or 0, the block runs uncapped)."""
    if (
        not seconds
        or not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
