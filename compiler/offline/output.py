"""Output files that appear only when complete: temporary files beside the output, then a rename.

:meth:`finish` completes the temporary file, :meth:`commit` renames it into place (nothing
else: the job holds interrupts for that step only); :meth:`abort` removes every temporary file,
leaving an older file at the output path as it was.
"""

from __future__ import annotations

import os
import tempfile
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from typing import Any

from .tables import OutputError


def temporary(path: str, suffix: str) -> str:
    """A new empty file beside ``path`` (hidden, ``suffix``-ed); fails early if unwritable."""
    folder = os.path.dirname(path) or "."
    try:
        fd, name = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=suffix, dir=folder)
    except FileNotFoundError:
        raise OutputError(f"{path}: cannot write: folder {folder} does not exist") from None
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    os.close(fd)
    return name


def publish(temporary: str, path: str) -> None:
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes 0600 files; outputs are ordinary files
    os.replace(temporary, path)


class JsonlWriter:
    def __init__(self, path: str) -> None:
        self.path = path
        self._temporary = temporary(path, ".tmp")
        self._stream = open(self._temporary, "wb")  # noqa: SIM115 -- closed by commit/abort

    def write(self, payload: bytes) -> None:
        self._stream.write(payload)

    def finish(self) -> None:
        self._stream.flush()
        os.fsync(self._stream.fileno())
        self._stream.close()

    def commit(self) -> None:
        publish(self._temporary, self.path)

    def abort(self) -> None:
        self._stream.close()
        with suppress(OSError):
            os.unlink(self._temporary)


class BackgroundWriter:
    """A writer whose writes run on a thread of its own, one batch behind the caller.

    Encoding Parquet (Arrow's C++) and writing files release the GIL, so writing one batch
    overlaps parsing the next. At most one write is in flight (memory stays bounded); its
    error is raised by the next call. :meth:`abort` waits for the write in flight, which owns
    the temporary files, before removing them.
    """

    def __init__(self, writer: Any) -> None:
        self._writer = writer
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rtc-writer")
        self._pending: Future[None] | None = None

    def write(self, payload: Any) -> None:
        self._wait()
        self._pending = self._thread.submit(self._writer.write, payload)

    def finish(self) -> None:
        self._wait()
        self._writer.finish()

    def commit(self) -> None:
        self._writer.commit()
        self._thread.shutdown()

    def abort(self) -> None:
        if self._pending is not None:
            futures.wait([self._pending])  # its error, if any, is the one being handled already
            self._pending = None
        self._thread.shutdown()
        self._writer.abort()

    def _wait(self) -> None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.result()
