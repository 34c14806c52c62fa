"""The parser a ``DeltaStream`` drives: the module's own ``ResponseParser``, with the raw text of
regions made visible and, on request, rejected regions turned into events instead of exceptions.

Nothing about parsing changes: the same scanners, the same loop, the same values. Three things
are added, all at region boundaries (never per chunk):

- the ``region_open`` event of a tool-call field also carries ``captures`` (the named groups of
  its opening delimiter, where a call's name may come from);
- the ``region_close`` event of a tool-call field also carries ``raw``: the region's text with its
  delimiters, in case its value turns out not to be a call;
- with ``recover``, a region whose value the reference would refuse to produce (its content
  parser, transform, tool typing or storage raises) closes with a ``region_rejected`` event
  carrying ``raw`` and ``error`` instead. The output is left as it was (every step that raises
  does so before storing) and parsing goes on after the region, as if it had closed. A region
  without any text still raises: zero-width delimiters would open and reject it again at the
  same place forever.
"""

from __future__ import annotations

from typing import Any

from .engine import CompiledParser, message


def tracked_parser(base: type[CompiledParser], calls: frozenset[int]) -> type[CompiledParser]:
    """A subclass of the generated ``ResponseParser`` ``base``; ``calls``: tool-call fields."""
    required = base._required

    class TrackedParser(base):  # type: ignore[valid-type, misc]
        __slots__ = ("_recover", "_open_text", "missing")

        # Required fields are checked by the stream (missing ones are a problem to report, or
        # the reference's ValueError with on_error="raise"), so that the message survives.
        _required = ()

        def __init__(self, prefix: Any, *, tools: Any, recover: bool) -> None:
            self._recover = recover
            self._open_text = ""
            self.missing: list[str] = []
            base.__init__(self, prefix, tools=tools)

        def _open(self, events: Any, index: int, match: Any) -> None:
            start = self._commit[0] if self._commit is not None else self._pos
            self._commit = None
            CompiledParser._open(self, events, index, match)
            self._open_text = self._buf[start : self._pos]
            if index in calls and events is not None:
                events[-1]["captures"] = self._captures

        def _close(self, events: Any) -> None:
            commit = self._commit
            own = commit is not None and commit[1] == -2
            if own:
                # Closed by its own close delimiter (not by an opening or the end of text);
                # consumed here even for a region that never opened, so no later close
                # (at the end of text) takes it for its own.
                self._commit = None
            cur = self._cur
            if cur < 0 or not self._opened:
                CompiledParser._close(self, events)
                return
            ends = self._buf[commit[0] : self._pos] if own else ""
            opening = "" if cur == self._implicit else self._open_text
            if cur in calls:
                body = "".join(self._parts)
                self._parts = [body]
            try:
                CompiledParser._close(self, events)
            except Exception as exc:
                raw = opening + self._parts[0] + ends
                if not self._recover or not raw:
                    # A region without any text (zero-width delimiters, empty body) would be
                    # opened and rejected again at the same place, forever: it raises as in
                    # the reference.
                    raise
                name = self._names[cur]
                if events is not None:
                    events.append(
                        {"type": "region_rejected", "field": name, "raw": raw, "error": exc}
                    )
                self._reset()
                return
            if cur in calls and events is not None:
                events[-1]["raw"] = opening + body + ends

        def _message(self) -> dict[str, Any]:
            self.missing = [name for name in required if name not in self._out]
            if self.missing and not self._recover:
                message(base, self._out)  # raises the reference's ValueError
            return CompiledParser._message(self)

        def cut(self) -> str:
            """End the current region without a value (a call cut off by the length limit);
            its raw text so far, held-back text included."""
            opening = "" if self._cur == self._implicit else self._open_text
            raw = opening + "".join(self._parts) + self._buf[self._pos :]
            self._pos = len(self._buf)
            self._reset()
            return raw

    TrackedParser.__name__ = TrackedParser.__qualname__ = f"Tracked{base.__name__}"
    return TrackedParser
