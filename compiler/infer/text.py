"""Reading renders: common parts of two texts that never cut a special token in two, tokens,
and delimiters written as patterns that allow the whitespace a template varies."""

from __future__ import annotations

import os

import regex

TOKEN = regex.compile(r"<[^<>]{1,80}>|\[[^\[\]\s]{1,40}\]|\s+|[^<\[\s]+|[<\[]")
"""A delimiter's tokens: markup (``<|im_end|>``, ``</think>``, ``[TOOL_CALLS]``), whitespace
runs, and the text between them."""


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def _balanced_end(text: str) -> int:
    """The longest prefix of ``text`` that does not end inside an unclosed ``<…`` or ``[…``."""
    end = len(text)
    for opener, closer in (("<", ">"), ("[", "]")):
        opened = text.rfind(opener, 0, end)
        if opened >= 0 and text.find(closer, opened, end) < 0:
            end = opened
    return end


def _balanced_start(text: str) -> int:
    """Where the longest suffix of ``text`` that does not start inside a ``…>`` or ``…]``
    begins."""
    start = 0
    for opener, closer in (("<", ">"), ("[", "]")):
        closed = text.find(closer, start)
        if closed >= 0 and text.rfind(opener, start, closed) < 0:
            start = closed + 1
    return start


def common_prefix(texts: list[str]) -> str:
    """The longest common prefix of ``texts``, cut back to a token boundary."""
    prefix = os.path.commonprefix(texts)
    return prefix[: _balanced_end(prefix)]


def common_suffix(texts: list[str]) -> str:
    """The longest common suffix of ``texts``, cut forward to a token boundary."""
    suffix = os.path.commonprefix([t[::-1] for t in texts])[::-1]
    return suffix[_balanced_start(suffix) :]


def pattern(text: str) -> str:
    """``text`` as a regex: literal, each whitespace run matching any whitespace (a template
    writes ``>\\n`` where a model may write ``>`` or ``> ``)."""
    out = []
    for piece in regex.split(r"(\s+)", text):
        if not piece:
            continue
        out.append(r"\s*" if piece.isspace() else regex.escape(piece))
    return "".join(out)


def shown(text: str, limit: int = 60) -> str:
    """``text`` quoted for an explanation, control characters escaped."""
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    escaped = "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in short)
    return f"`{escaped}`"
