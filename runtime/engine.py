"""The streaming engine shared by every generated parser.

A generated module subclasses :class:`CompiledParser` and fills in its class attributes with
what the compiler decided from the template: one scanner function per parser state (the
delimiters watched there, already specialised), one finish function per field (content parser
and transform), how each field stores its value, and the start-anchor truncation. This class
only runs the loop that transformers 5.23.0's ``ResponseParser`` runs, with the same
observable behaviour (events, values, exceptions, hold-back), but without re-copying or
re-scanning text it has already classified.

Scanner contract, for the state ``cur`` (index of the current field, or -1 for the null sink):
``scan(buf, pos, eos, memo) -> (hold, start, end, target, match)`` where ``target`` is -1 when no
delimiter can be committed now (then ``hold`` is where pending delimiter text starts), the
index of the field to open, or -2 for the close of the current region. ``match`` is the
regex match of an open pattern with named groups (else ``None``). ``memo`` is scratch space
the scanner may use to remember results at the end of the stream (one slot per delimiter).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from .tools import coerce_tool_calls, read_tools

Scanner = Callable[[str, int, bool, list[Any]], tuple[int, int, int, int, Any]]

STORE_SET = 0
STORE_APPEND = 1
STORE_JOIN = 2

_NO_PREFIX = (
    "a prefix is required: pass the chat prompt sent to the model before generation "
    "(chat templates often pre-write part of the assistant message, e.g. an opening <think>), "
    'or prefix="" to opt out explicitly'
)


def _store_value(out: dict[str, Any], name: str, store: int, join: str | None, value: Any) -> None:
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


def _note_stall(
    stalled: set[tuple[int, int, bool, bool]] | None, state: tuple[int, int, bool, bool]
) -> set[tuple[int, int, bool, bool]]:
    """Record a configuration (pos, region, opened, body non-empty) met at a commit that
    consumed nothing; meeting one twice means the reference would cycle forever."""
    if stalled is None:
        return {state}
    if state in stalled:
        raise LoopError(
            "the template's zero-width delimiters re-fire forever at position "
            f"{state[0]} (transformers 5.23.0 never returns here)"
        )
    stalled.add(state)
    return stalled


# For generated one-shot passes.
store_value = _store_value
note_stall = _note_stall


class LoopError(ValueError):
    """The template's zero-width delimiters would re-fire forever at one position.

    transformers 5.23.0 never returns in this situation; rtc raises instead (a declared
    deviation).
    """


class CompiledParser:
    """Base class of every generated ``ResponseParser``; one instance parses one generation."""

    # Filled in by the generated subclass.
    _names: ClassVar[tuple[str, ...]]
    _dirty: ClassVar[tuple[bool, ...]]
    _finish: ClassVar[tuple[Callable[[str, dict[str, str]], Any], ...]]
    _store: ClassVar[tuple[int, ...]]
    _joins: ClassVar[tuple[str | None, ...]]
    _required: ClassVar[tuple[str, ...]]
    _default_keys: ClassVar[frozenset[str]]
    _implicit: ClassVar[int]
    _scanners: ClassVar[tuple[Scanner, ...]]
    _context: ClassVar[int | None]
    _whole_pass_exact: ClassVar[bool]
    _memo_size: ClassVar[int]
    # The module's one-shot pass (run_to_end specialised to the template), when one pass is
    # exact; None: the general run_to_end below.
    _run_to_end: ClassVar[Callable[..., None] | None] = None

    __slots__ = (
        "initial_events",
        "_buf",
        "_pos",
        "_cur",
        "_opened",
        "_parts",
        "_captures",
        "_out",
        "_tools",
        "_finalized",
        "_commit",
    )

    def __init__(self, prefix: str | None = None, *, tools: Sequence[Any] | None = None) -> None:
        if prefix is None:
            raise ValueError(_NO_PREFIX)
        self._tools: dict[str, dict[str, Any]] = read_tools(tools)
        self._buf = ""
        self._pos = 0
        self._out: dict[str, Any] = self._new_output()
        self._cur = self._implicit
        self._opened = False
        self._parts: list[str] = []
        self._captures: dict[str, str] = {}
        self._finalized = False
        self._commit: tuple[int, int] | None = None
        self.initial_events: list[dict[str, Any]] = []
        if prefix:
            truncated = self._truncate(prefix)
            if truncated:
                self._buf = truncated
                self._process(self.initial_events, False)
                self._settle()

    # -- hooks provided by the generated module ---------------------------------------------

    @staticmethod
    def _new_output() -> dict[str, Any]:
        raise NotImplementedError

    @staticmethod
    def _truncate(prefix: str) -> str:
        raise NotImplementedError

    # -- public API --------------------------------------------------------------------------

    def feed(self, text: str) -> list[dict[str, Any]]:
        """Consume the next piece of generated text; return the events it completes."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        if text:
            if not isinstance(text, str):
                raise TypeError(f"feed() takes text (str), got {type(text).__name__}: {text!r:.80}")
            context = self._context
            pos = self._pos
            if context is not None and pos > context:
                # Text before pos is consumed; keep only what the delimiter patterns can still
                # observe (look-behind, \b, ^), so a long generation is never re-copied.
                self._buf = self._buf[pos - context :] + text
                self._pos = context
            else:
                # Drop the attribute's reference first so CPython can grow the string in
                # place instead of copying text that is still held back.
                buf = self._buf
                self._buf = ""
                buf += text
                self._buf = buf
        events: list[dict[str, Any]] = []
        self._process(events, False)
        self._settle()
        return events

    def _settle(self) -> None:
        # With nothing held and no pattern looking back, the buffer can be emptied: an empty
        # buffer is what the generated fast path of feed() tests for.
        if self._context == 0 and self._pos == len(self._buf):
            self._buf = ""
            self._pos = 0

    def finalize(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """End of stream: close what is open, check required fields, return the message."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        events: list[dict[str, Any]] = []
        self._process(events, True)
        return self._message(), events

    def parse_whole(self, text: Any) -> dict[str, Any]:
        """``feed(text)`` then ``finalize()`` in one end-of-stream pass; returns the message.

        Only for templates the compiler marked ``_whole_pass_exact``: for them a partial-mode
        pass followed by the end-of-stream pass commits exactly the delimiters one
        end-of-stream pass commits, in the same order (it can only stop earlier and resume at
        the same point), so the message and any exception are the same; only the chunking of
        events differs, and this path returns no events.
        """
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        if text:
            if not isinstance(text, str):
                raise TypeError(f"feed() takes text (str), got {type(text).__name__}: {text!r:.80}")
            self._buf += text
        state = (self._buf, self._pos, self._cur, self._opened, self._parts, self._captures)
        to_end(self.__class__, *state, self._out, self._tools)
        return self._message()

    def _message(self) -> dict[str, Any]:
        self._out = out = message(self.__class__, self._out)
        self._finalized = True
        # Make the generated fast path of feed() fall through to the check that raises.
        self._buf = "\x00"
        self._pos = -1
        return out

    # -- the loop ----------------------------------------------------------------------------

    def _process(self, events: list[dict[str, Any]] | None, eos: bool) -> None:
        scanners = self._scanners
        buf = self._buf
        # Configurations (pos, region, opened, body non-empty) met at commits consuming nothing.
        # The loop is deterministic in them and, with no progress, every region opened in the
        # cycle closes with an empty body; so once one repeats, every close of the cycle has
        # already run once without raising, and the reference would cycle forever (zero-width
        # delimiters re-firing): raise instead of hanging.
        stalled: set[tuple[int, int, bool, bool]] | None = None
        # Scanners remember search results here while the text cannot change (end of stream).
        memo: list[Any] | None = [None] * self._memo_size if eos else None
        while True:
            pos = self._pos
            hold, start, end, target, match = scanners[self._cur + 1](buf, pos, eos, memo)
            if target != -1:
                if end <= pos:
                    stalled = _note_stall(stalled, (pos, self._cur, self._opened, any(self._parts)))
                if start > pos:
                    self._route(events, buf[pos:start])
                self._pos = end
                # Where this delimiter starts and what it does, for subclasses that need the
                # raw text of a region (the OpenAI delta layer, rtc.runtime.openai).
                self._commit = (start, target)
                if target >= 0:
                    self._close(events)
                    self._open(events, target, match)
                else:
                    had_text = self._opened
                    self._close(events)
                    if not had_text and start == end:
                        # A zero-width close of a region that never opened would fire again
                        # at once: stop this call here, like the reference.
                        break
                continue
            if eos:
                if pos < len(buf):
                    self._route(events, buf[pos:])
                    self._pos = len(buf)
                self._close(events)
                break
            if hold > pos:
                self._route(events, buf[pos:hold])
                self._pos = hold
            break

    def _route(self, events: list[dict[str, Any]] | None, text: str) -> None:
        cur = self._cur
        if cur < 0:
            return  # the null sink: text outside every region is dropped silently
        self._parts.append(text)
        if events is None:
            self._opened = True
            return
        name = self._names[cur]
        if not self._opened:
            events.append({"type": "region_open", "field": name})
            self._opened = True
        events.append(
            {"type": "region_chunk", "field": name, "text": text, "dirty": self._dirty[cur]}
        )

    def _open(self, events: list[dict[str, Any]] | None, index: int, match: Any) -> None:
        self._cur = index
        self._captures = (
            {} if match is None else {k: v for k, v in match.groupdict().items() if v is not None}
        )
        self._parts = []
        self._opened = True
        if events is not None:
            events.append({"type": "region_open", "field": self._names[index]})

    def _close(self, events: list[dict[str, Any]] | None) -> None:
        cur = self._cur
        if cur < 0 or not self._opened:
            self._reset()
            return
        parts = self._parts
        body = parts[0] if len(parts) == 1 else "".join(parts)
        # Keep the joined body: if finishing raises, the region stays current (no rollback)
        # and later text is appended to it, as in the reference.
        self._parts = [body]
        value = self._finish[cur](body, self._captures)
        if self._tools and isinstance(value, (list, dict)):  # nothing else can be a call
            value = coerce_tool_calls(value, self._tools)
        name = self._names[cur]
        _store_value(self._out, name, self._store[cur], self._joins[cur], value)
        if events is not None:
            events.append({"type": "region_close", "field": name, "value": value})
        self._reset()

    def _reset(self) -> None:
        self._cur = self._implicit
        self._captures = {}
        self._parts = []
        self._opened = False


def run_to_end(
    cls: type[CompiledParser],
    buf: str,
    pos: int,
    cur: int,
    opened: bool,
    parts: list[str],
    captures: dict[str, str],
    out: dict[str, Any],
    tools: dict[str, dict[str, Any]],
) -> tuple[int, int, bool, list[str], dict[str, str]]:
    """``_process(None, True)`` with the region state in locals and no events.

    Takes the state (position, current field, opened, body parts, captures) and returns it
    after the pass; values are stored into ``out``. For one-shot parsing only: the state is
    thrown away if anything raises, so it only needs to be right when the pass completes.
    """
    n = len(buf)
    scanners = cls._scanners
    finish = cls._finish
    stores = cls._store
    names = cls._names
    joins = cls._joins
    implicit = cls._implicit
    memo: list[Any] = [None] * cls._memo_size
    stalled: set[tuple[int, int, bool, bool]] | None = None
    # In one pass each region gets one slice of text, from the commit that opens it to the one
    # that closes it; only the region current at the start may already hold some (head).
    head = "".join(parts)
    while True:
        _, start, end, target, match = scanners[cur + 1](buf, pos, True, memo)
        if target == -1:
            # End of stream: the rest goes to the current region, which then closes.
            stop = n
        else:
            if end <= pos:  # see _process
                stalled = _note_stall(stalled, (pos, cur, opened, head != ""))
            stop = start
        if cur >= 0:
            if stop > pos:
                body = head + buf[pos:stop] if head else buf[pos:stop]
                opened = True
            else:
                body = head
            if opened:
                # Close the current region (see _close).
                value = finish[cur](body, captures)
                if tools and isinstance(value, (list, dict)):
                    value = coerce_tool_calls(value, tools)
                if stores[cur] == STORE_SET:
                    out[names[cur]] = value
                else:
                    _store_value(out, names[cur], stores[cur], joins[cur], value)
        if target == -1:
            return n, implicit, False, [], {}
        had_text = opened
        pos = end
        head = ""
        if target >= 0:
            cur = target
            captures = {} if match is None else _captures(match)
            opened = True
        else:
            cur = implicit
            captures = {}
            opened = False
            if not had_text and start == end:
                return pos, cur, opened, [], captures


def _captures(match: Any) -> dict[str, str]:
    return {k: v for k, v in match.groupdict().items() if v is not None}


def message(cls: type[CompiledParser], out: dict[str, Any]) -> dict[str, Any]:
    """The final message: required fields checked, empty non-default values dropped."""
    required = cls._required
    if required:
        missing = [name for name in required if name not in out]
        if missing:
            raise ValueError(
                f"Required response_template fields missing from parsed output: {missing}"
            )
    keep = cls._default_keys
    # Dropped: keys that are not defaults and hold None or an empty str, list or dict. Usually
    # there are none, and the dict (made for this parse alone) is returned as it is.
    for k, v in out.items():
        if not v and k not in keep and (v is None or isinstance(v, (list, dict, str))):
            break
    else:
        return out
    return {
        k: v
        for k, v in out.items()
        if k in keep or not (v is None or (not v and isinstance(v, (list, dict, str))))
    }


# What the partial-mode pass over a truncated prefix left, by parser class and that text, for
# prefixes in which no region closed. That pass is a pure function of the two: the scanners
# depend only on the text (their memo is used at the end of the stream only), and with no
# close nothing is stored, no content parser runs and the tools are never read. So a cached
# state is exactly what running the pass again would give. This is how a prefilled prompt
# (`<think>\n` after the anchor) costs one pass: the generation cannot be folded into the
# prefix's pass in general, because the reference reads the prefix on its own in partial mode
# (a look-ahead there must not see the generation; `xy(?=z)|x` on the prefix "xy" commits
# "x", where one pass over "xyz" would take "xy"). Bounded: short prefixes, a few entries.
_PREFIX_STATES: dict[
    tuple[type[CompiledParser], str], tuple[int, int, bool, tuple[str, ...], dict[str, str]]
] = {}
MAX_KNOWN_PREFIX = 256
MAX_KNOWN_PREFIXES = 256


def parse_once(
    cls: type[CompiledParser], text: Any, prefix: Any, tools: Sequence[Any] | None
) -> dict[str, Any]:
    """``cls(prefix, tools=tools).parse_whole(text)``, without the parser object.

    The same checks in the same order (prefix, tools, prefix type, text type), and the same
    passes: text left after the prefix's last start anchor is read on its own first, in
    partial mode (``prefix_pass``: the reference does so, and a look-ahead there must not see
    the generation), then everything to the end of the stream in one pass.
    """
    if prefix is None:
        raise ValueError(_NO_PREFIX)
    read = read_tools(tools)
    out = cls._new_output()
    truncated = cls._truncate(prefix) if prefix else ""
    if not truncated:
        pos, cur, opened, parts, captures = 0, cls._implicit, False, [], {}
    else:
        pos, cur, opened, parts, captures = prefix_state(cls, truncated, out, read)
    buf = truncated
    if text:
        if not isinstance(text, str):
            raise TypeError(f"feed() takes text (str), got {type(text).__name__}: {text!r:.80}")
        buf += text
    to_end(cls, buf, pos, cur, opened, parts, captures, out, read)
    return message(cls, out)


def prefix_state(
    cls: type[CompiledParser], truncated: str, out: dict[str, Any], read: dict[str, dict[str, Any]]
) -> tuple[int, int, bool, list[str], dict[str, str]]:
    """What the partial-mode pass over a non-empty truncated prefix leaves (position, current
    field, opened, body parts, captures), storing into ``out`` what closes in it; remembered
    when nothing closed (see _PREFIX_STATES). Used by ``parse_once`` and by the one-shot
    ``parse_response`` a generated module writes out."""
    known = _PREFIX_STATES.get((cls, truncated))
    if known is not None:
        pos, cur, opened, kept, caught = known
        return pos, cur, opened, list(kept), dict(caught)
    pos, cur, opened, parts, captures, closed = prefix_pass(cls, truncated, out, read)
    if not closed and len(truncated) <= MAX_KNOWN_PREFIX:
        # Nothing closed in the prefix (nothing stored, tools unused): what the pass left
        # depends on the template and this text alone (see _PREFIX_STATES).
        if len(_PREFIX_STATES) >= MAX_KNOWN_PREFIXES:
            _PREFIX_STATES.clear()
        _PREFIX_STATES[cls, truncated] = (pos, cur, opened, tuple(parts), dict(captures))
    return pos, cur, opened, parts, captures


def to_end(
    cls: type[CompiledParser],
    buf: str,
    pos: int,
    cur: int,
    opened: bool,
    parts: list[str],
    captures: dict[str, str],
    out: dict[str, Any],
    tools: dict[str, dict[str, Any]],
) -> None:
    """The end-of-stream pass from this state: the module's own (``_run_to_end``, generated
    where one pass is exact and the template is not too big), else the general one."""
    if cls._run_to_end is not None:
        cls._run_to_end(buf, pos, cur, opened, "".join(parts), captures, out, tools)
    else:
        run_to_end(cls, buf, pos, cur, opened, parts, captures, out, tools)


def prefix_pass(
    cls: type[CompiledParser],
    buf: str,
    out: dict[str, Any],
    tools: dict[str, dict[str, Any]],
) -> tuple[int, int, bool, list[str], dict[str, str], bool]:
    """``_process(None, False)`` of a new parser over the truncated prefix ``buf``, with the
    region state in locals: the same scanners in partial mode, the same commits, closes and
    hold-back, minus the events. Values closed here are stored into ``out``; returns the state
    (position, current field, opened, body parts, captures) for ``run_to_end``, and whether a
    region closed."""
    scanners = cls._scanners
    implicit = cls._implicit
    pos, cur, opened = 0, implicit, False
    parts: list[str] = []
    captures: dict[str, str] = {}
    stalled: set[tuple[int, int, bool, bool]] | None = None
    closed = False
    while True:
        hold, start, end, target, match = scanners[cur + 1](buf, pos, False, None)
        if target == -1:
            if hold > pos and cur >= 0:
                parts.append(buf[pos:hold])
                opened = True
            return (hold if hold > pos else pos), cur, opened, parts, captures, closed
        if end <= pos:  # see _process
            stalled = _note_stall(stalled, (pos, cur, opened, any(parts)))
        if start > pos and cur >= 0:
            parts.append(buf[pos:start])
            opened = True
        pos = end
        had_text = opened
        if cur >= 0 and opened:
            # Close the current region (see _close).
            closed = True
            body = parts[0] if len(parts) == 1 else "".join(parts)
            value = cls._finish[cur](body, captures)
            if tools and isinstance(value, (list, dict)):
                value = coerce_tool_calls(value, tools)
            _store_value(out, cls._names[cur], cls._store[cur], cls._joins[cur], value)
        if target >= 0:
            cur = target
            captures = {} if match is None else _captures(match)
            parts = []
            opened = True
            continue
        cur, captures, parts, opened = implicit, {}, [], False
        if not had_text and start == end:
            return pos, cur, opened, parts, captures, closed
