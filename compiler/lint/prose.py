"""``slow-prose``: regions where streamed prose leaves the parser's fast path.

A server streams mostly prose, a few characters per token. A generated parser passes a chunk
straight through when it cannot touch a delimiter watched in its region (``Fast`` in
``rtc.runtime.engine``: no character every match needs, no trailing character that may begin
one); otherwise it searches. A delimiter that any word may begin or end in (one led by letters,
``\\w+``, a negated set, an empty match) sends most chunks of prose down the general path, at
several times the cost. This check streams prose through each region the way a server feeds
it and counts the chunks that left the fast path: a count, not a timing, so that lint's output
is the same on every run and machine (``rtc bench --streaming`` times the cost).
"""

from __future__ import annotations

import re
from typing import Any

import regex

from rtc.compiler.lowering.delimiters import pattern_facts
from rtc.compiler.model import Delimiter

from .context import Context, quote
from .findings import INFO, WARNING, Finding
from .streaming import PROSE

SLOW_SHARE = 0.10
"""A region where more of the prose chunks than this leave the fast path is reported."""

_TOKENS = re.compile(r" ?[A-Za-z]+| ?\d+|\n+| ?[^\sA-Za-z\d]+| +")
# About a kilobyte of prose in token-sized chunks (a word with its leading space, a number, a
# run of punctuation or newlines), as a server feeds them.
_CHUNKS = _TOKENS.findall((PROSE + "\n\n- a list item, with `code` in it\n") * 6)


def slow_prose(ctx: Context) -> list[Finding]:
    parser = ctx.probe.module.ResponseParser
    out: list[Finding] = []
    for opening, shape, index in _regions(ctx):
        name = parser.fields[index].name if index >= 0 else None
        where = f"in {name!r}" if opening else "outside explicit regions"
        path = ctx.field_path(shape.field) if opening else "fields"
        fast = parser._fasts[index + 1]
        if fast is None:
            culprits = ", ".join(quote(p) for p in _without_facts(ctx, index)) or "one of them"
            out.append(
                ctx.finding(
                    "slow-prose",
                    INFO,
                    path,
                    f"{where}, no chunk takes the fast path: no character is known that every "
                    f"match of {culprits} needs, so every chunk is searched.",
                    ctx.example(opening + PROSE, prefix=ctx.prefix),
                )
            )
            continue
        share = _measure(parser, ctx.prefix, opening)
        if share is None or share <= SLOW_SHARE:
            continue
        out.append(
            ctx.finding(
                "slow-prose",
                WARNING,
                path,
                f"{where}, {share:.0%} of token-sized chunks of prose leave the fast path "
                f"(they may hold or end in a character a delimiter needs: {_chars(fast.core)!r}"
                + (f", or may lead it: {fast.lead!r}" if fast.lead and not fast.star else "")
                + "): each of those is searched by the engine's loop, which costs several "
                "times a chunk on the fast path (`rtc bench --streaming` times it).",
                ctx.example(opening + PROSE, prefix=ctx.prefix),
                "begin each delimiter with a character prose rarely holds (a special token's "
                "`<`, `[`, `|`), and lead it by `\\s*` at most",
            )
        )
    return out


def _regions(ctx: Context) -> list[tuple[str, Any, int]]:
    """(text that opens the region, its shape, field index or -1) of the regions prose goes
    to: outside explicit regions, and each explicit field with a close."""
    corpus = ctx.corpus
    regions = []
    if corpus.implicit is not None:
        regions.append(("", corpus.implicit, corpus.implicit.field.index))
    for shape in corpus.shapes:
        f = shape.field
        part = corpus.part(shape.name)
        if f.implicit or f.close is None or part is None:
            continue
        if not f.close.is_literal and regex.fullmatch(f.close.pattern, "", regex.DOTALL):
            continue  # a close matching the empty string ends the region before any text
        regions.append((part.opening, shape, f.index))
    return regions


def _chars(core: Any) -> str:
    return core if isinstance(core, str) else "".join(sorted(core))


def _without_facts(ctx: Context, index: int) -> list[str]:
    """The patterns watched in the region of field ``index`` (-1: outside) of which no needed
    character is known."""
    model = ctx.model
    delims: list[Delimiter | None]
    if index < 0 or model.fields[index].implicit:
        delims = [f.open for f in model.fields if f.open is not None]
        if model.implicit is not None and model.implicit.close is not None:
            delims.append(model.implicit.close)
    else:
        delims = [model.fields[index].close]
    return [
        d.pattern
        for d in delims
        if d is not None and not d.is_literal and pattern_facts(d.pattern) is None
    ]


def _measure(parser: type[Any], prefix: str, opening: str) -> float | None:
    """The share of prose chunks that leave the fast path in the region ``opening`` opens."""
    entered = [0]

    class Counting(parser):
        __slots__ = ()

        def _feed(self, text: str) -> list[dict[str, Any]]:
            entered[0] += 1
            result: list[dict[str, Any]] = super()._feed(text)
            return result

    try:
        _stream(Counting, prefix, opening, _CHUNKS, entered)
    except Exception:  # a parser that raises on prose: other checks report it
        return None
    return entered[0] / len(_CHUNKS)


def _stream(
    parser: type[Any],
    prefix: str,
    opening: str,
    chunks: list[str],
    entered: list[int],
) -> None:
    """Feed ``chunks`` into the region ``opening`` opens (after the opening's own feed;
    ``entered``, the counting parser's counter, starts at 0 there)."""
    p = parser(prefix)
    if opening:
        p.feed(opening)
    entered[0] = 0
    for chunk in chunks:
        p.feed(chunk)
