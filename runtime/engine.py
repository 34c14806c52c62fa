"""The streaming parser every generated module subclasses, and its fast path.

A generated module subclasses :class:`CompiledParser` and fills in its class attributes with
what the compiler decided from the template: per parser state, a partial-mode scanner and an
end-of-stream search (see :mod:`rtc.runtime.loop`) and the facts that let ``feed()`` pass a
chunk straight through (:class:`Fast`); per field, its name, finish function (content parser
and transform) and how it stores its value; the start anchor, the defaults and the required
fields. This class runs the loop of transformers 5.23.0's ``ResponseParser`` with the same
observable behaviour (events, values, exceptions, hold-back), without re-copying or
re-scanning text it has already classified.

Public surface besides the reference's (``feed``, ``finalize``, ``initial_events``): the
classmethods ``parse_response`` and ``parse_batch`` (a module's functions of those names), and
the serving contract the OpenAI delta layer drives the parser through (``serving=``,
``region``, ``feed_text``, ``cut``, ``missing``; see :class:`Serving`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, NamedTuple

from . import oneshot
from .ahead import NO_MEMO
from .fast_path import (
    Fast,
    Growing,
    _literal_hold,
    extend_buffer,
    feed_step,
    flush,
    grown,
    unread,
)
from .fast_tuple import region_tuple
from .loop import CLOSE, NONE, Eos, LoopError, Scan, run
from .matching import LONG_SPAN
from .oneshot import NO_PREFIX
from .settling import holds_a_run, settle
from .tools import read_tools

__all__ = [
    "CLOSE",
    "NONE",
    "CompiledParser",
    "Fast",
    "FieldInfo",
    "Growing",
    "LoopError",
    "Serving",
]


class FieldInfo(NamedTuple):
    """A field of the template, as a parser class lists it in ``fields``."""

    name: str
    store: int  # rtc.runtime.loop.STORE_SET, STORE_APPEND or STORE_JOIN
    join: str | None


class Serving(NamedTuple):
    """Options of a parser driven by the serving layer (``CompiledParser(..., serving=...)``).

    Region events then carry more: ``region_open`` of an explicit region its ``captures`` (the
    named groups of its opening delimiter), ``region_close`` its ``raw`` text (the opening and
    closing delimiters included) and ``closed`` (whether its own close delimiter ended it,
    rather than another field's opening or the end of the stream). With ``recover``, a region
    whose value cannot be produced (its content parser, transform, tool typing or storage
    raises) closes with a ``region_rejected`` event (``raw``, ``error``) instead of raising,
    the message left as it was and parsing going on after it; missing required fields are
    listed in ``missing`` instead of raising.
    """

    recover: bool = False


def _routed(p: CompiledParser, events: list[dict[str, Any]], scanned: Any = None) -> Any:
    """The general path's common case: when the state's scanner finds no delimiter that can be
    committed, the loop would run once, route the text before what is held back into the
    region, and stop. Do that here without it (and return None), or do nothing and return
    the scanner's answer and its memo, which the loop takes as its first (the buffer is the
    same; what the memo remembered stands for the rest of the pass). ``scanned``: the
    scanner's answer on this buffer, already known (the fast path asked it, then declined:
    ``CompiledParser._scanned``), taken over a short span, where the pass keeps no memo. Not
    where that text would be the first of a region not yet open (the loop opens it first);
    where nothing is routed (all is held back), the loop does nothing at all, open region or
    not."""
    cur = p.region
    buf = p._buf
    pos = p._pos
    if len(buf) - pos >= LONG_SPAN:
        memo = [None] * p._memo_size
        found = p._scan[cur + 1](buf, pos, memo)
    else:
        memo = NO_MEMO
        found = p._scan[cur + 1](buf, pos, memo) if scanned is None else scanned
    hold, _, _, target, _ = found
    if target != NONE or (hold > pos and cur >= 0 and not p._opened):
        return found, memo
    if hold > pos:
        if cur >= 0:
            routed = buf[pos:hold]
            p._parts.append(routed)
            events.append(
                {
                    "type": "region_chunk",
                    "field": p._names[cur],
                    "text": routed,
                    "dirty": p._dirty[cur],
                }
            )
        p._pos = hold
    p._clean = False
    return None


def _taken(p: CompiledParser, scanned: tuple[str, int, int, Any]) -> Any:
    """The fast path's scan of ``p``'s buffer before it declined a chunk (``_scanned``): its
    answer, where buffer, position and state are still the ones it scanned (the scan is a
    function of them); else None."""
    buf, pos, region, found = scanned
    return found if pos == p._pos and region == p.region and buf == p._buf else None


def held_first(p: CompiledParser, text: str) -> bool:
    """A region not yet open, nothing held (the implicit region before its first text, as at
    the start of a generation and after each call: settle leaves it no fast path, since the
    loop opens it when it routes text there), and a chunk that the general path would hold
    whole: held here, without the loop (True); else nothing is done (False).

    Why it is exact: this is the first case of ``fast_path._core_case`` (a chunk with a core
    character, nothing held, the state's literals known: ``fast_path._literal_hold`` reads
    where the general path holds, see ``matching.starts_hold``), taken only where it holds
    everything from the chunk's first character, so that nothing is routed and the region
    stays unopened, as the general path leaves it; and only in states without a ^
    alternative, without consumed text kept and without a guard's look-behind (settle may
    have switched the fast path off for one). What the general path does after holding
    (settle, and the held text's runs and growth) is done here too. A call's opening as a
    reply's first token (``<`` of ``<tool_call>``) takes this path instead of the state's
    scanner; ``fast_path.feed_step`` asks it where the state has no fast path."""
    if p._opened or p._buf or p._pos or p._tail or p._finalized or p.region < 0:
        return False
    fast = p._region_fast[p.region + 1]
    # (fast[16]: the length of the longest literal, 0 where they are not known: only a chunk
    # shorter than it is tried, so that no long chunk is read twice, here and by the loop; a
    # chunk held whole is shorter but for whitespace before a \s*-led literal; fast[7]: a ^
    # alternative; fast[9]: consumed text kept; fast[12]: a guard's look-behind characters;
    # fast[10]: the core characters. See fast_tuple.)
    if (
        fast is None
        or len(text) >= fast[16]
        or fast[7]
        or fast[9]
        or fast[12]
        or fast[10].isdisjoint(text)
    ):
        return False
    if _literal_hold(text, fast) != 0:
        return False
    p._buf = text
    settled(p)
    return True


def settled(p: CompiledParser) -> None:
    """After the general path (or what stands for it: held_first): settle, then whether the
    held text is a run of lead characters, or a match that may grow."""
    p._settle()
    p._clean = clean = holds_a_run(p)
    p._growing = None if clean else unread(p)


def _derive(cls: Any) -> None:
    """What a parser class derives from the tables its module wrote (also for a subclass
    that replaces some of them)."""
    if "_names" in cls.__dict__:
        cls.fields = tuple(
            FieldInfo(name, store, join)
            for name, store, join in zip(cls._names, cls._store, cls._joins, strict=True)
        )
        cls.field_index = {name: i for i, name in enumerate(cls._names)}
    if "_defaults" in cls.__dict__:
        cls._copy_defaults = oneshot.copier(cls._defaults)
    if "_fasts" in cls.__dict__:
        # Per region (field + 1): the state's Fast, with what an event of the region says and
        # whether consumed text is kept, in one tuple for the fast path to unpack.
        names: tuple[str | None, ...] = (None, *cls._names)
        dirty = (False, *cls._dirty)
        # Whether consumed text is kept (the patterns look behind): see region_tuple.
        keep = cls._context != 0
        cls._region_fast = tuple(
            None if f is None else region_tuple(f, names[i], dirty[i], keep)
            for i, f in enumerate(cls._fasts)
        )
        # The simple variant of feed() where every named region's state is simple and has no
        # lead characters (see feed_step).
        simple = all(f is None or f[2] is None or f[21] or f[22] for f in cls._region_fast)
        cls._simple_feed = simple
        cls.feed = feed_step(events=True, simple=simple)
        cls.feed_text = feed_step(events=False, simple=simple)
        # Per region: whether its state drops consumed text the parser keeps elsewhere.
        cls._drops = tuple(keep and f is not None and f.drops for f in cls._fasts)


class CompiledParser:
    """Base class of every generated ``ResponseParser``; one instance parses one generation."""

    # Filled in by the generated subclass.
    _names: ClassVar[tuple[str, ...]]
    _dirty: ClassVar[tuple[bool, ...]]
    _finish: ClassVar[tuple[Any, ...]]
    _store: ClassVar[tuple[int, ...]]
    _joins: ClassVar[tuple[str | None, ...]]
    _required: ClassVar[tuple[str, ...]]
    _defaults: ClassVar[dict[str, Any]]
    _implicit: ClassVar[int]
    _scan: ClassVar[tuple[Scan, ...]]  # by state: current field + 1 (0: the null sink)
    _eos: ClassVar[tuple[Eos, ...]]
    _fasts: ClassVar[tuple[Fast | None, ...]]
    _region_fast: ClassVar[tuple[tuple[Any, ...] | None, ...]]
    _simple_feed: ClassVar[bool] = False  # feed() is feed_step's simple variant (see _derive)
    _drops: ClassVar[tuple[bool, ...]]  # per region: its state drops consumed text (Fast.drops)
    # Per region: checks of held matches growing through whitespace (growing.grows_held).
    _grows: ClassVar[tuple[tuple[Growing, ...], ...]] = ()
    _memo_size: ClassVar[int]
    _may_stall: ClassVar[bool]  # some delimiter can match the empty string
    # Characters of consumed text the patterns may still look at (None: all of it).
    _context: ClassVar[int | None]
    # parse_response may take one end-of-stream pass instead of feed() + finalize().
    _whole_pass_exact: ClassVar[bool]
    _anchor: ClassVar[Any]  # see oneshot.truncate
    _copy_defaults: ClassVar[Callable[[], dict[str, Any]]]  # a fresh copy of _defaults
    # Public, derived from the above when the subclass is made.
    fields: ClassVar[tuple[FieldInfo, ...]] = ()
    field_index: ClassVar[dict[str, int]] = {}  # field name -> index

    __slots__ = (
        "initial_events",
        "region",
        "serving",
        "missing",
        "_buf",
        "_pos",
        "_tail",
        "_opened",
        "_parts",
        "_captures",
        "tools",
        "_out",
        "_finalized",
        "_fast",
        "_clean",
        "_growing",
        "_steps",
        "_held_literal",
        "_scanned",
        "_opening",
    )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _derive(cls)

    @classmethod
    def new_message(cls) -> dict[str, Any]:
        """What a parse starts from: a fresh copy of the template's defaults."""
        return cls._copy_defaults()

    def __init__(
        self,
        prefix: str | None = None,
        *,
        tools: Sequence[Any] | None = None,
        serving: Serving | None = None,
    ) -> None:
        if prefix is None:
            raise ValueError(NO_PREFIX)
        self._start(read_tools(tools), serving)
        self.initial_events: list[dict[str, Any]] = []
        self._read_prefix(prefix)

    def _read_prefix(self, prefix: str) -> None:
        """Consume the prompt's text after its last start anchor, events to initial_events."""
        if prefix:
            truncated = oneshot.truncate(self._anchor, prefix)
            if truncated:
                oneshot.read_prefix(self, truncated, self.initial_events)
                self._settle()

    def _start(self, tools: dict[str, dict[str, Any]], serving: Serving | None) -> None:
        """The state of a parser before any text: the implicit region, not yet open."""
        cls = self.__class__
        self.region = cls._implicit
        self.serving = serving
        self.missing: list[str] | tuple[()] = ()
        self._buf = ""
        self._pos = 0
        self._tail: list[str] = []  # consumed chunks the fast path set aside (fast_path.flush)
        self._opened = False
        self._parts: list[str] = []
        self._captures: dict[str, str] = {}
        self._out: dict[str, Any] = cls._copy_defaults()
        self.tools = tools
        self._finalized = False
        # The implicit region opens on its first text (an event): no fast path until then
        # (but a first chunk held whole: see held_first).
        self._fast = cls._region_fast[0] if cls._implicit < 0 else None
        self._clean = False  # held text is a run of lead characters the fast path left
        self._growing: Growing | None = None  # held text is a growing match (growing.grown)
        # (held text, automata, their states, the character before the search position): a
        # pattern's match read as pending (pending.py)
        self._steps: tuple[str, tuple[Any, ...], tuple[Any, ...], str] | None = None
        self._held_literal: tuple[Any, ...] | None = None  # (growing.continues_held_literal)
        # (buffer, search position, region, the state's scan of them): the fast path's last
        # scan, which the general path takes instead of scanning the same buffer again.
        self._scanned: tuple[str, int, int, Any] | None = None
        self._opening = ""

    # -- the reference's API ------------------------------------------------------------------

    feed = feed_step(events=True)

    def finalize(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """End of stream: close what is open, check required fields, return the message."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        events: list[dict[str, Any]] = []
        self._fast = None
        if self._tail:
            flush(self)
        run(self, True, events)
        cls = self.__class__
        if self.serving is not None:
            self.missing = [name for name in cls._required if name not in self._out]
            if self.serving.recover:
                return self._done(oneshot.drop_empty(cls, self._out)), events
        return self._done(oneshot.message(cls, self._out)), events

    # -- the serving contract ----------------------------------------------------------------

    feed_text = feed_step(events=False)

    def feed_declined(self, text: str) -> list[dict[str, Any]]:
        """``feed(text)`` right after ``feed_text(text)`` declined it (returned None): the same
        events, without trying the fast path a second time (the state it read is unchanged)."""
        return self._feed(text)

    def cut(self) -> str:
        """End the current region without a value (a call cut off by the length limit);
        return its raw text so far, the held-back text included."""
        raw = self._opening + "".join(self._parts) + self._buf[self._pos :]
        self._pos = len(self._buf)
        cls = self.__class__
        self.region = cls._implicit
        self._opened = False
        self._parts = []
        self._captures = {}
        self._opening = ""
        self._growing = None
        self._settle()
        return raw

    # -- one-shot parsing (a module's parse_response / parse_batch) ----------------------------

    @classmethod
    def parse_response(
        cls,
        text: str | list[str],
        *,
        prefix: str | list[str] | None = None,
        tools: Sequence[Any] | None = None,
    ) -> Any:
        """Parse a complete generation (or a list of them) into a message dict (or a list)."""
        if text.__class__ is not str and isinstance(text, list):
            return oneshot.parse_list(cls, text, prefix, tools)
        # The reference's checks, in its order: prefix, tools, prefix type, text type.
        if prefix is None:
            raise ValueError(NO_PREFIX)
        read = read_tools(tools)
        if not cls._whole_pass_exact:
            return oneshot.feed_and_finalize(cls, text, prefix, read)
        return oneshot.whole_pass(cls, text, prefix, read)

    @classmethod
    def parse_batch(
        cls,
        texts: Sequence[str],
        *,
        prefix: str | Sequence[str] | None = None,
        tools: Sequence[Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Parse each text on its own: one outcome per text, in order, never raising for one
        text. Each outcome is ``{"message": dict, "error": None}`` or ``{"message": None,
        "error": {"type": "ValueError", "message": "..."}}``; ``prefix`` is one string or one
        per text."""
        from .batch import parse_batch

        return parse_batch(cls.parse_response, texts, prefix, tools)

    # -- internals ---------------------------------------------------------------------------

    def _feed(self, text: str) -> list[dict[str, Any]]:
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        if self._tail:
            flush(self)
        scanned = self._scanned
        self._scanned = None
        if text:
            if not isinstance(text, str):
                raise TypeError(f"feed() takes text (str), got {type(text).__name__}: {text!r:.80}")
            if self._growing is not None and grown(self, text):
                return []  # whitespace grows the held match: nothing to search (see grown)
            extend_buffer(self, text)
        events: list[dict[str, Any]] = []
        found = _routed(self, events, None if scanned is None else _taken(self, scanned))
        if found is not None:
            self._fast = None  # until _settle: the region may change, or the loop raise
            self._clean = False
            self._growing = None
            run(self, False, events, *found)
        settled(self)
        return events

    _settle = settle  # after the loop: see settling.settle
    _held_first = held_first  # where the state has no fast path: see held_first

    def _done(self, message: dict[str, Any]) -> dict[str, Any]:
        self._out = message
        self._finalized = True
        self._fast = None
        # feed() after finalize() falls through to the check that raises.
        return message
