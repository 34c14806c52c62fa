"""Ctrl-C and SIGTERM during a job: one clean stop, and never in the middle of the last step.

While a job runs, both signals raise ``KeyboardInterrupt`` in the main thread (SIGTERM would
otherwise kill the process with its temporary files in place). The first one stops the job;
after it, and from :meth:`Interrupts.hold` on (the clean-up, and the final rename that makes the
output appear), signals are only recorded: the clean-up runs to its end, and a job whose output
is in place is done, whenever the signal arrived.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupts:
    def __init__(self) -> None:
        self.holding = False
        self.received: int | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Interrupts:
        if threading.current_thread() is threading.main_thread():
            for signum in SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()

    def hold(self) -> None:
        """From now on, only record signals."""
        self.holding = True

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.received = signum
        if self.holding:
            return
        self.holding = True  # the clean-up this starts is not interrupted again
        raise KeyboardInterrupt
