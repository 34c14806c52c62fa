"""The parsing loop: the one place where text is routed into regions and regions are closed.

transformers 5.23.0's parser repeats one step until nothing more can be committed: search the
delimiters watched in the current state, route the text before the best committable one into
the current region, then close the region or open the next one. :func:`run` is that loop for
every use rtc has of it: ``feed()`` and ``finalize()`` of a streaming parser (with events), the
pass over a prefix, and one-shot parsing (without events). It keeps the parser's state in
locals while it runs and writes it back when it stops, also when a content parser raises (the
reference keeps the state it had at that point, and a later call continues from it).

A generated module provides, per parser state (indexed by the current field + 1, 0 being the
null sink):

- ``_scan[state](buf, pos, memo) -> (hold, start, end, target, match)``: partial mode
  (streaming);
- ``_eos[state](buf, pos, memo) -> (start, end, target, match)``: the end of the stream (a
  delimiter found at the very end, an empty match, is not returned: nothing is pending at the
  end of the stream, so the reference's hold is there and vetoes it);

where ``target`` is the field index a committable delimiter opens, ``CLOSE`` for the close of
the current region, ``NONE`` for no committable delimiter; ``hold`` is where pending delimiter
text starts; ``match`` the open pattern's match when its named groups are captured; ``memo``
one slot per watched delimiter where searches are remembered for the rest of the pass (the
buffer does not change during it): always at the end of the stream, and in partial mode over
spans of ``LONG_SPAN`` characters or more (``rtc.runtime.ahead``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .ahead import NO_MEMO
from .matching import LONG_SPAN
from .tools import coerce_tool_calls

if TYPE_CHECKING:
    from .engine import CompiledParser

NONE = -1
"""A scanner's ``target`` when no delimiter can be committed now."""
CLOSE = -2
"""A scanner's ``target`` for the close of the current region."""

STORE_SET = 0
STORE_APPEND = 1
STORE_JOIN = 2

Scan = Callable[[str, int, list[Any]], tuple[int, int, int, int, Any]]
Eos = Callable[[str, int, list[Any]], tuple[int, int, int, Any]]


class LoopError(ValueError):
    """The template's zero-width delimiters would re-fire forever at one position.

    transformers 5.23.0 never returns in this situation; rtc raises instead (a declared
    deviation).
    """


def store_value(out: dict[str, Any], name: str, store: int, join: str | None, value: Any) -> None:
    """Put a closed region's value into the message: set, append (repeats) or join."""
    if store == STORE_SET:
        out[name] = value
    elif store == STORE_APPEND:
        out.setdefault(name, []).append(value)
    else:
        if not isinstance(value, str):
            raise ValueError(
                f"Field {name!r}: 'join' requires each match to parse to a string, "
                f"got {type(value).__name__}."
            )
        previous = out.get(name)
        out[name] = value if previous is None else previous + str(join) + value


def note_stall(
    stalled: set[tuple[int, int, bool, bool]] | None, state: tuple[int, int, bool, bool]
) -> set[tuple[int, int, bool, bool]]:
    """Record a configuration (pos, region, opened, body non-empty) met at a commit that
    consumed nothing. The loop is deterministic in them and, with no progress, every region
    opened in the cycle closes with an empty body; so once one repeats, every close of the
    cycle has already run once without raising, and the reference would cycle forever
    (zero-width delimiters re-firing): raise instead of hanging."""
    if stalled is None:
        return {state}
    if state in stalled:
        raise LoopError(
            "the template's zero-width delimiters re-fire forever at position "
            f"{state[0]} (transformers 5.23.0 never returns here)"
        )
    stalled.add(state)
    return stalled


def run(
    p: CompiledParser,
    eos: bool,
    events: list[dict[str, Any]] | None,
    first: Any = None,
    memo: list[Any] | None = None,
) -> None:
    """Commit everything that can be committed in ``p``'s buffer; at the end of the stream
    (``eos``), also the rest, closing the last region. Events go to ``events`` (None: none).
    ``first``: the streaming scanner's answer at ``p``'s position, already asked for on this
    buffer (the first pass takes it instead of searching again), with ``memo``, the searches
    that asking remembered.

    With ``p.serving`` set (see :class:`rtc.runtime.engine.CompiledParser`), region events
    carry what the serving layer needs: ``region_open`` its ``captures``, ``region_close`` its
    ``raw`` text (opening and closing delimiters included); and, when it recovers, a region
    whose value cannot be produced closes with a ``region_rejected`` event instead of raising.
    """
    cls = p.__class__
    scanners: Any = cls._eos if eos else cls._scan
    names = cls._names
    finish = cls._finish
    stores = cls._store
    implicit = cls._implicit
    buf = p._buf
    n = len(buf)
    pos = p._pos
    cur = p.region
    opened = p._opened
    parts = p._parts
    captures = p._captures
    out = p._out
    tools = p.tools
    serving = p.serving
    # The events and what serving adds to them are built only when asked for (the one-shot
    # pass asks for neither).
    rich = events is not None
    # Only delimiters that can match the empty string can commit without consuming text.
    may_stall = cls._may_stall
    # Searches remembered for this pass (a short span in partial mode needs none: see ahead).
    if memo is None:
        memo = [None] * cls._memo_size if eos or n - pos >= LONG_SPAN else NO_MEMO
    stalled: set[tuple[int, int, bool, bool]] | None = None
    opening = p._opening  # serving: the text of the current region's opening delimiter
    try:
        while True:
            # (Targets are written as numbers here: -1 none, -2 close; this is the hottest
            # loop of one-shot parsing, and a constant is cheaper to read than a global.)
            if eos:
                start, end, target, match = scanners[cur + 1](buf, pos, memo)
                stop = n if target == -1 else start
            else:
                if first is None:
                    stop, start, end, target, match = scanners[cur + 1](buf, pos, memo)
                else:
                    stop, start, end, target, match = first
                    first = None
                if target != -1:
                    stop = start
            if may_stall and target != -1 and end <= pos:
                # A commit that consumes nothing (see note_stall).
                stalled = note_stall(stalled, (pos, cur, opened, any(parts)))
            if stop > pos and cur >= 0:
                # Route the text before the delimiter (or before what is held back).
                text = buf[pos:stop]
                parts.append(text)
                if rich:
                    if not opened:
                        events.append({"type": "region_open", "field": names[cur]})  # type: ignore[union-attr]
                    events.append(  # type: ignore[union-attr]
                        {
                            "type": "region_chunk",
                            "field": names[cur],
                            "text": text,
                            "dirty": cls._dirty[cur],
                        }
                    )
                opened = True
            if target == -1:
                if stop > pos:
                    pos = stop
                if not eos:
                    break
            else:
                pos = end
            had_text = opened
            if opened and cur >= 0:
                # Close the current region: its value, typed by the tools, into the message.
                body = "".join(parts)
                try:
                    value = finish[cur](body, captures)
                    if tools and isinstance(value, (list, dict)):  # nothing else is a call
                        value = coerce_tool_calls(value, tools)
                    store = stores[cur]
                    if store == 0:  # STORE_SET
                        out[names[cur]] = value
                    elif store == 1:  # STORE_APPEND
                        out.setdefault(names[cur], []).append(value)
                    else:
                        store_value(out, names[cur], store, cls._joins[cur], value)
                except Exception as exc:
                    if (
                        serving is None
                        or not serving.recover
                        or not (opening or body or (target == CLOSE and end > start))
                    ):
                        # The region stays current with its joined body (no rollback): later
                        # text is appended to it, as in the reference. (A region without any
                        # text would be opened and rejected again at the same place, forever:
                        # it raises even when recovering.)
                        parts = [body]
                        raise
                    if rich:
                        raw = opening + body + (buf[start:end] if target == CLOSE else "")
                        events.append(  # type: ignore[union-attr]
                            {
                                "type": "region_rejected",
                                "field": names[cur],
                                "raw": raw,
                                "error": exc,
                            }
                        )
                else:
                    if rich:
                        event = {"type": "region_close", "field": names[cur], "value": value}
                        if serving is not None:
                            event["raw"] = (
                                opening + body + (buf[start:end] if target == CLOSE else "")
                            )
                            event["closed"] = target == CLOSE
                        events.append(event)  # type: ignore[union-attr]
                parts = []
                if captures:
                    captures = {}
                opening = ""
            if target >= 0:
                cur = target
                opened = True
                if match is not None:
                    captures = {k: v for k, v in match.groupdict().items() if v is not None}
                if serving is not None:
                    opening = buf[start:end]
                if rich:
                    event = {"type": "region_open", "field": names[cur]}
                    if serving is not None:
                        event["captures"] = captures
                    events.append(event)  # type: ignore[union-attr]
                continue
            cur = implicit
            opened = False
            if target == -1:
                break  # the end of the stream: the last region is closed
            if not had_text and start == end:
                # A zero-width close of a region that never opened would fire again at
                # once: stop this call here, like the reference.
                break
    finally:
        p._pos, p._opened = pos, opened
        p._parts = parts
        p._captures = captures
        p._opening = opening
        p.region = cur
