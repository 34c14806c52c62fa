"""Reading what the CLI is given: templates, tokenizer configs, tool lists and texts to parse.

Every problem is a :class:`SourceError` whose message starts with the name of what could not be
read (``path``, ``path:line:column`` for JSON, ``<stdin>``), so the CLI can print it as one line.
Texts are decoded strictly as UTF-8 and never newline-translated: the parser must see exactly the
characters the model wrote.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

from rtc.compiler.errors import SourceError

STDIN = "-"
"""The name that means standard input, for every source the CLI reads."""

TOKENIZER_CONFIG = "tokenizer_config.json"
TEMPLATE_KEY = "response_template"

_READ_SIZE = 1 << 16


def display_name(path: str) -> str:
    """The name errors use for ``path``: as the user wrote it, ``<stdin>`` for ``-``."""
    return "<stdin>" if path == STDIN else path


@contextmanager
def _open_binary(path: str) -> Iterator[io.BufferedReader]:
    """Open ``path`` (or stdin) for binary reading, turning OS errors into one-line SourceErrors."""
    if path == STDIN:
        # Not closed: the process's stdin outlives this read. Python opens it buffered (``-u``
        # unbuffers only stdout and stderr), which typeshed's ``BinaryIO`` does not say.
        yield cast(io.BufferedReader, sys.stdin.buffer)
        return
    try:
        stream = open(path, "rb")  # noqa: SIM115 -- closed by the with block below
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SourceError(f"{path}: is a folder, not a file") from None
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with stream:
        yield stream


def _read_bytes(path: str) -> bytes:
    with _open_binary(path) as stream:
        try:
            return stream.read()
        except OSError as exc:  # e.g. EISDIR on some platforms only shows up at read time
            raise SourceError(f"{display_name(path)}: cannot read: {exc.strerror or exc}") from None


def _utf8_error(name: str, offset: int, exc: UnicodeDecodeError) -> SourceError:
    return SourceError(f"{name}: invalid UTF-8 at byte offset {offset}: {exc.reason}")


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _utf8_error(name, exc.start, exc) from None


def read_text_file(path: str) -> str:
    """The whole text of ``path`` (``-`` for stdin): strict UTF-8, line endings kept as they are."""
    return _decode(_read_bytes(path), display_name(path))


def iter_text_chunks(path: str, size: int) -> Iterator[str]:
    """The text of ``path`` (``-`` for stdin) in chunks of exactly ``size`` characters (the last may
    be shorter), yielded as soon as enough input has arrived.

    Reading with ``read1`` and decoding incrementally lets ``rtc parse --stream`` follow a live
    pipe; fixed-size chunks make its output the same whether the input is a file or a slow pipe.
    """
    if size < 1:
        raise ValueError(f"chunk size must be at least 1, got {size}")
    name = display_name(path)
    decoder = codecs.getincrementaldecoder("utf-8")()
    pending = ""
    consumed = 0  # bytes handed to the decoder so far, to report absolute byte offsets
    with _open_binary(path) as stream:
        while True:
            data = stream.read1(_READ_SIZE)
            final = not data
            # The decoder holds back the bytes of an unfinished character and prepends them to the
            # next input, so an error's start is relative to the first held-back byte.
            held = len(decoder.getstate()[0])
            try:
                pending += decoder.decode(data, final)
            except UnicodeDecodeError as exc:
                raise _utf8_error(name, consumed - held + exc.start, exc) from None
            consumed += len(data)
            whole = len(pending) - len(pending) % size
            for start in range(0, whole, size):
                yield pending[start : start + size]
            pending = pending[whole:]
            if final:
                if pending:
                    yield pending
                return


def read_json_file(path: str) -> Any:
    """The JSON value in ``path`` (``-`` for stdin); malformed JSON names ``path:line:column``."""
    name = display_name(path)
    text = _decode(_read_bytes(path), name)
    # RFC 8259 lets parsers ignore a byte order mark; some Windows editors write one.
    text = text.removeprefix("\ufeff")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(f"{name}:{exc.lineno}:{exc.colno}: {exc.msg}") from None
    except RecursionError:
        # json recurses once per nesting level; a hostile file must not end in a traceback.
        raise SourceError(f"{name}: JSON nested too deeply") from None


def read_template(source: str) -> tuple[dict, str]:
    """The response template named by ``source`` and a name for it in messages.

    ``source`` is a template JSON file, a ``tokenizer_config.json`` (its ``response_template``),
    a folder holding a ``tokenizer_config.json``, or ``-`` for stdin. A JSON object with a
    ``response_template`` key is taken as a tokenizer config whatever its file name, since that key
    is not part of the template format.
    """
    path = source
    if source != STDIN and os.path.isdir(source):
        path = os.path.join(source, TOKENIZER_CONFIG)
        if not os.path.isfile(path):
            raise SourceError(f"{source}: folder has no {TOKENIZER_CONFIG}")
    name = display_name(path)
    value = read_json_file(path)
    if not isinstance(value, dict):
        raise SourceError(f"{name}: expected a JSON object, got {_json_type(value)}")
    if TEMPLATE_KEY in value:
        template = value[TEMPLATE_KEY]
        # transformers treats `"response_template": null` as no template at all.
        if template is None:
            raise SourceError(f"{name}: {TEMPLATE_KEY} is null: this tokenizer has no template")
        if not isinstance(template, dict):
            raise SourceError(
                f"{name}: {TEMPLATE_KEY} must be a JSON object, got {_json_type(template)}"
            )
        return template, f"{name} ({TEMPLATE_KEY})"
    if os.path.basename(path) == TOKENIZER_CONFIG:
        raise SourceError(f"{name}: no {TEMPLATE_KEY} key: this tokenizer has no template")
    return value, name


def _json_type(value: Any) -> str:
    """The JSON name of a decoded value's type, for messages about the wrong kind of JSON."""
    if value is None:
        return "null"
    for kind, name in ((bool, "boolean"), (str, "string"), (list, "array"), (dict, "object")):
        if isinstance(value, kind):
            return name
    return "number"
