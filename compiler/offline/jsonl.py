"""JSONL: whole lines read as bytes by the job's reader, decoded and written where they are parsed.

The reader only cuts the input into chunks of lines (``bytes`` and the number of the first line),
which cost nothing to send to a worker process; splitting, decoding and encoding happen beside the
parsing, so with ``--workers N`` the parent only reads, orders and writes.

Decoding is ``json.loads`` per line (exact: the parser gets what ``json.loads`` gives), with one
shortcut for the tools field (:class:`ToolsMemo`). Writing JSONL splices ``message`` and ``error``
into the input line itself, so every input field keeps its exact text.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Generator
from dataclasses import dataclass
from itertools import islice
from typing import IO, Any

from rtc.compiler.errors import SourceError

from .records import ERROR, MESSAGE

STDIN = "-"


@dataclass
class JsonlChunk:
    """Consecutive lines of a JSONL input, as read (blank ones included), from ``first_line``."""

    data: bytes
    first_line: int


def unreadable(path: str, exc: OSError) -> SourceError:
    if isinstance(exc, FileNotFoundError):
        return SourceError(f"{path}: no such file")
    if isinstance(exc, IsADirectoryError):
        return SourceError(f"{path}: is a folder, not a file")
    return SourceError(f"{path}: cannot read: {exc.strerror or exc}")


def open_jsonl(path: str) -> IO[bytes]:
    """The JSONL input opened for binary reading (stdin for ``-``)."""
    if path == STDIN:
        return sys.stdin.buffer
    try:
        return open(path, "rb")  # noqa: SIM115 -- read_chunks closes it
    except OSError as exc:
        raise unreadable(path, exc) from None


def read_chunks(stream: IO[bytes], path: str, batch_size: int) -> Generator[JsonlChunk, None, None]:
    """Chunks of ``batch_size`` lines; closes ``stream`` (unless it is stdin) when done."""
    first = 1
    try:
        while True:
            try:
                lines = list(islice(stream, batch_size))
            except OSError as exc:
                raise SourceError(f"{path}: cannot read after line {first - 1}: {exc}") from None
            if not lines:
                return
            yield JsonlChunk(b"".join(lines), first)
            first += len(lines)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def split_lines(chunk: JsonlChunk) -> tuple[list[bytes], list[int]]:
    """The chunk's non-blank lines (without their line break) and their 1-based numbers."""
    lines: list[bytes] = []
    numbers: list[int] = []
    parts = chunk.data.split(b"\n")
    if parts and not parts[-1]:
        parts.pop()  # the empty piece after the last line break
    for number, line in enumerate(parts, chunk.first_line):
        if line and not line.isspace():
            lines.append(line)
            numbers.append(number)
    return lines, numbers


# ---- decoding ----------------------------------------------------------------------------------

_SENTINEL = "\x00rtc: tools"
_SENTINEL_TEXT = json.dumps(_SENTINEL).encode("ascii")  # b'"\\u0000rtc: tools"'
_NUL = b"\\u0000"  # the only way JSON text can hold U+0000 (it cannot appear raw in a string)
_RAW_DECODER = json.JSONDecoder()
_MEMO_SIZE = 4
_LEARNING_MISSES = 16  # per chunk: stop learning when tools keep missing (they all differ)


class ToolsMemo:
    """Decodes the tools field's value once per distinct text, instead of once per record.

    In a file of rollouts most records carry the same tools (the same few KB of JSON schemas),
    and decoding them is most of the cost of ``json.loads`` on the line. The memo keeps the raw
    text of recent tools values with their decoded value. For a line that contains one of them,
    that text is replaced by a sentinel string and the shortened line decoded; the substitution
    is kept only if the record's tools field then holds exactly the sentinel.

    Why that is exact: the sentinel holds U+0000, which JSON can only write as ``\\u0000``, so
    a line without that escape cannot hold the sentinel already: the one the decoder found is
    the substituted one, and it is the value of the top-level tools field (the last one, if the
    key repeats). The raw text is a complete JSON array, object or string (self-delimiting) and
    the bytes before and after it are unchanged, so the original line tokenizes the same way,
    with the raw text's value in the sentinel's place. Anything else (no memo hit, the sentinel
    elsewhere, a line that is not JSON) decodes the line as is. The decoded value is shared by
    the records that carry it; nothing in rtc modifies it. ``tests/test_offline_jsonl.py``
    compares the memo with plain ``json.loads`` on adversarial lines.
    """

    def __init__(self, field: str) -> None:
        self.field = field
        keys = (json.dumps(field).encode(), json.dumps(field, ensure_ascii=False).encode())
        self._keys = list(dict.fromkeys(keys))  # the key as JSON text (escaped or not)
        self._known: dict[bytes, Any] = {}  # raw text -> decoded value, most recent hit last
        self._misses = 0

    def new_chunk(self) -> None:
        self._misses = 0

    def loads(self, line: bytes) -> Any:
        """``json.loads(line)``, faster when the line's tools text is a known one."""
        if self._known and _NUL not in line:
            hit = self._find(line)
            if hit is not None:
                start, raw = hit
                shortened = line[:start] + _SENTINEL_TEXT + line[start + len(raw) :]
                try:
                    record = json.loads(shortened)
                except ValueError:
                    record = None
                if isinstance(record, dict) and record.get(self.field) == _SENTINEL:
                    record[self.field] = value = self._known.pop(raw)
                    self._known[raw] = value  # the most recent hit is tried first
                    return record
        record = json.loads(line)
        if isinstance(record, dict):
            value = record.get(self.field)
            if isinstance(value, (list, dict, str)) and value:
                self._misses += 1
                if self._misses <= _LEARNING_MISSES:
                    self._learn(line, value)
        return record

    def _find(self, line: bytes) -> tuple[int, bytes] | None:
        """Where a known raw text follows the field's key in ``line`` (the first such place)."""
        for key in self._keys:
            at = line.find(key)
            while at >= 0:
                start = _value_start(line, at + len(key))
                if start is not None:
                    for raw in reversed(self._known):
                        if line.startswith(raw, start):
                            return start, raw
                at = line.find(key, at + 1)
        return None

    def _learn(self, line: bytes, value: Any) -> None:
        """Find the raw text of ``value`` after the field's key in ``line`` and remember it."""
        for key in self._keys:
            at = line.find(key)
            while at >= 0:
                found = _value_after(line, at + len(key), value)
                if found is not None:
                    raw, decoded = found
                    self._known.pop(raw, None)
                    self._known[raw] = decoded  # the raw text's own value (1.0 stays a float)
                    while len(self._known) > _MEMO_SIZE:
                        del self._known[next(iter(self._known))]
                    return
                at = line.find(key, at + 1)


_SPACE = b" \t\r\n"


def _value_start(line: bytes, at: int) -> int | None:
    """Where the value starts if ``line[at:]`` is ``: value`` (JSON whitespace allowed)."""
    end = len(line)
    while at < end and line[at] in _SPACE:
        at += 1
    if at >= end or line[at] != 58:  # ":"
        return None
    at += 1
    while at < end and line[at] in _SPACE:
        at += 1
    return at if at < end else None


def _value_after(line: bytes, at: int, value: Any) -> tuple[bytes, Any] | None:
    """The raw JSON text of the value after ``:`` at ``at`` in ``line``, and its value, if it
    is an array, object or string (self-delimiting) equal to ``value``."""
    start = _value_start(line, at)
    if start is None or line[start] not in b'[{"':
        return None
    try:
        text = line[start:].decode("utf-8")
        decoded, stop = _RAW_DECODER.raw_decode(text)
    except ValueError:
        return None
    if decoded != value:
        return None
    return text[:stop].encode("utf-8"), decoded


_MEMOS: dict[str, ToolsMemo] = {}


def decode_lines(lines: list[bytes], tools_field: str | None) -> tuple[list[Any], list[str | None]]:
    """Each line decoded, or ``None`` and why it is not a JSON record."""
    loads: Callable[[bytes], Any] = json.loads
    if tools_field is not None:
        memo = _MEMOS.get(tools_field)
        if memo is None:
            memo = _MEMOS[tools_field] = ToolsMemo(tools_field)
        memo.new_chunk()
        loads = memo.loads
    records: list[Any] = []
    problems: list[str | None] = []
    for line in lines:
        try:
            records.append(loads(line))
            problems.append(None)
        except ValueError as exc:  # JSONDecodeError, and UnicodeDecodeError for bad UTF-8
            records.append(None)
            problems.append(f"not a JSON record ({exc})")
    return records, problems


# ---- encoding ----------------------------------------------------------------------------------


def encode_lines(
    lines: list[bytes], records: list[Any], messages: list[Any], errors: list[Any]
) -> bytes:
    """Output lines: each input object with ``message`` and ``error`` added at its end.

    The new keys are spliced into the input line (its fields keep their exact text); a record
    that is not an object, or that already has a ``message`` or ``error`` key, is written anew.
    """
    dumps = json.JSONEncoder(ensure_ascii=False).encode
    out: list[bytes] = []
    for line, record, message, error in zip(lines, records, messages, errors, strict=True):
        added = f'"{MESSAGE}": {dumps(message)}, "{ERROR}": {dumps(error)}}}\n'.encode()
        if isinstance(record, dict) and MESSAGE not in record and ERROR not in record:
            body = line.rstrip()
            if body.endswith(b"}"):
                body = body[:-1].rstrip()
                out.append(body + (b", " if record else b"") + added)
                continue
        fields = record if isinstance(record, dict) else {}
        out.append((dumps({**fields, MESSAGE: message, ERROR: error}) + "\n").encode())
    return b"".join(out)


def encode_rows(rows: list[dict[str, Any]]) -> bytes:
    """Output lines for records given as dicts (from a Parquet input)."""
    # default=str: Parquet values JSON has no type for (timestamps, bytes) are written as text.
    dumps = json.JSONEncoder(ensure_ascii=False, default=str).encode
    return "".join(dumps(row) + "\n" for row in rows).encode("utf-8")
