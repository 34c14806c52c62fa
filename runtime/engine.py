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
from .loop import CLOSE, NONE, Eos, LoopError, Scan, run
from .oneshot import NO_PREFIX
from .tools import read_tools

__all__ = ["CLOSE", "NONE", "CompiledParser", "Fast", "FieldInfo", "LoopError", "Serving"]

# With a bounded context, consumed text is trimmed once this much more than the context has
# piled up: one slice every so often instead of one per chunk.
_TRIM_SLACK = 4096
# Contexts up to this many characters are kept by the fast path as a slice of each chunk.
_SLICED_CONTEXT = 64


class Fast(NamedTuple):
    """What lets ``feed()`` pass a chunk straight through in one parser state.

    The compiler proves, for every delimiter watched in the state, that each of its matches
    needs a character of ``core`` (consumes it, or looks ahead at it), and that a match
    attempt reads only ``lead`` characters before one (``regex_syntax.needs``). So when neither
    the held-back text nor the chunk holds a ``core`` character, no delimiter can complete, and
    a partial match can only be a run of ``lead`` characters at the very end: if the last
    character is not a ``lead`` one, everything is committed. If it is: with ``star`` (every
    lead character is whitespace and a delimiter is led by ``\\s*``), the partial match starts
    where that trailing run starts, which is held back; otherwise the general path decides.
    ``dollar``: a delimiter ends with a ``$`` alternative, which also matches before a final
    newline: a chunk ending in one takes the general path. ``late``: an alternative begins with
    ``^``, which only matches at the buffer's start: the fast path waits until text was
    consumed.
    ``runs``: every lead character is whitespace, none is in ``core``, and each delimiter's
    alternatives either fail at whitespace or are led by ``\\s*`` after look-behinds
    (``regex_syntax.runs.runs_stay``): a whitespace run the general path left held (a partial
    match starts where it does) stays held while chunks of whitespace are appended.
    """

    core: Any  # one character (a str), or a frozenset of them
    lead: str  # the characters that may lead a match ("" for none)
    star: bool
    dollar: bool
    late: bool = False
    runs: bool = False


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


def _fast_path(events: bool, text_class: type = str) -> Any:
    """``feed()`` (``events``) or ``feed_text()``: one body for both, the fast path written
    once, each without a call into the other (this is the hottest code of a stream).

    ``text_class``: the one class of text the fast path takes, exactly (any other text goes
    to the general path, which checks it). Parsers take ``str``; the work counter of
    ``rtc.compiler.lint.work`` makes a copy for its ``str`` subclass that counts what is
    read, so that it measures the path production takes (a closure variable: no cost).
    """

    def step(self: CompiledParser, text: str) -> Any:
        fast = self._fast
        if fast is None or text.__class__ is not text_class or not text:
            return self._feed(text) if events else None
        # See Fast for why this is exact.
        buf = self._buf
        if not buf and fast[0] not in text and text[-1] not in fast[1]:
            # The common case of most states, first (fast[0] is the state's one core
            # character, "" where the state is not that simple: see _region_tuple): nothing
            # held before, no core character, nothing to hold now (the chunk cannot end in
            # the start of a delimiter): the chunk is committed whole.
            name = fast[2]
            dirty = fast[3]
        else:
            _, lead, name, dirty, core, star, dollar, late, _, keep, core_set = fast
            if late and not self._pos:
                return self._feed(text) if events else None  # nothing consumed yet: ^ may match
            if core.__class__ is str:
                if core in text:
                    return self._feed(text) if events else None
            elif core.__class__ is tuple:
                if core[0] in text or core[1] in text:
                    return self._feed(text) if events else None
            elif not core_set.isdisjoint(text):
                return self._feed(text) if events else None
            last = text[-1]
            if not (
                (len(buf) == self._pos if keep else not buf)
                and last not in lead
                and not (dollar and last == "\n")
            ):
                return _held(self, text, fast, events)
            if keep > 0:
                # The patterns look back at most ``keep`` characters (a small bound): the
                # buffer becomes the last of them, all consumed; nothing before them is ever
                # read again (one short slice instead of growing the buffer).
                self._buf = buf = text[-keep:] if len(text) >= keep else (buf + text)[-keep:]
                self._pos = len(buf)
            elif keep:
                buf = ""  # drop this frame's reference: _advance grows the buffer in place
                self._advance(text, len(text))
        # The chunk is committed whole (what the general branch of _held also finds).
        if name is not None:
            self._parts.append(text)
            if events:
                return [{"type": "region_chunk", "field": name, "text": text, "dirty": dirty}]
        return [] if events else text

    if events:
        step.__name__ = step.__qualname__ = "feed"
        step.__doc__ = "Consume the next piece of generated text; return the events it completes."
    else:
        step.__name__ = step.__qualname__ = "feed_text"
        step.__doc__ = (
            "``feed()``'s fast path, without its event: when ``text`` cannot touch a delimiter "
            "watched in the current region (already open, or the null sink), consume it and "
            "return the text this commits to the region (``''`` when all of it is held back as "
            "the possible start of a delimiter); else consume nothing and return None (then "
            "call ``feed()``). The committed text goes to the field ``region`` (dropped in the "
            "null sink, -1)."
        )
    return step


def _held(self: CompiledParser, text: str, fast: tuple[Any, ...], events: bool) -> Any:
    """The fast path's other cases (see Fast): text is held back before the chunk, or the
    chunk ends in a lead character; ``fast`` holds no core character of the chunk. Returns
    what ``feed()`` (``events``) or ``feed_text()`` returns."""
    _, lead, name, dirty, _, star, dollar, _, _, keep, core_set = fast
    buf = self._buf
    last = text[-1]
    held = len(buf) - self._pos if keep else len(buf)  # held back by earlier chunks
    if held and self._clean:
        # What is held is a run of lead characters this path left (or the general path,
        # under runs): no need to read it.
        if last in lead:
            tail = text.rstrip(lead)
            if not tail:
                committed = ""  # the whole chunk joins the run (star, or runs)
            elif not star:
                return self._feed(text) if events else None
            else:
                committed = (buf[self._pos :] if keep else buf) + tail  # a new run
        elif dollar and last == "\n":
            return self._feed(text) if events else None
        else:
            committed = (buf[self._pos :] if keep else buf) + text
        whole_length = held + len(text)
    else:
        whole = (buf[self._pos :] if keep else buf) + text if held else text
        if held and not core_set.isdisjoint(whole):
            return self._feed(text) if events else None
        if last in lead:
            if not star:
                return self._feed(text) if events else None
            committed = whole.rstrip(lead)  # the trailing run of lead characters waits
        elif dollar and last == "\n":
            return self._feed(text) if events else None
        else:
            committed = whole
        whole_length = len(whole)
    # What is left held is a trailing run of lead characters (or nothing).
    kept = whole_length - len(committed)
    if keep:
        # Drop this frame's reference first: _advance then grows the buffer in place
        # (with two references CPython copies it: the whole kept context every chunk).
        buf = ""
        self._advance(text, len(committed))
    elif not kept:
        if held:
            self._buf = ""
    elif committed or not held:
        self._buf = text[len(text) - kept :]
    else:
        self._buf = ""  # so that CPython can grow the run in place
        buf += text
        self._buf = buf
    self._clean = kept > 0
    if committed and name is not None:
        self._parts.append(committed)
        if events:
            return [{"type": "region_chunk", "field": name, "text": committed, "dirty": dirty}]
    return [] if events else committed


def _holds_a_run(p: CompiledParser) -> bool:
    """After the general path: whether ``p`` holds a run of whitespace from where a partial
    match starts, in a state whose held runs stay held while whitespace is appended
    (``Fast.runs``): the fast path then takes such chunks."""
    fast = p._fast
    if fast is None or not fast[8]:  # runs, then lead: fast[1] (see _region_tuple)
        return False
    lead = fast[1]
    buf = p._buf
    pos = p._pos
    return pos < len(buf) and buf[-1] in lead and not buf[pos:].strip(lead)


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
        # What consumed text the fast path keeps: none (0), the last ``_context`` characters
        # (a small bound: sliced off each chunk), or the buffer grown and trimmed now and then
        # (-1: a large or no bound; see _advance).
        context = cls._context
        keep = context if context is not None and context <= _SLICED_CONTEXT else -1
        cls._region_fast = tuple(
            None if f is None else _region_tuple(f, names[i], dirty[i], keep)
            for i, f in enumerate(cls._fasts)
        )


def _region_tuple(f: Fast, name: str | None, dirty: bool, keep: int) -> tuple[Any, ...]:
    """One state's Fast as the fast path reads it: first what its common case needs, then
    the rest (see step and _held). A state is simple when one core character, its lead
    characters, and nothing else decide its common case (no ^ or $ alternative, no consumed
    text kept): ``feed()`` then tests it first ("" as its core character where it is not:
    "" is in every chunk)."""
    simple = isinstance(f.core, str) and len(f.core) == 1 and not (f.late or f.dollar or keep)
    return (
        f.core if simple else "",
        f.lead,
        name,
        dirty,
        _tested(f.core),
        f.star,
        f.dollar,
        f.late,
        f.runs,
        keep,
        frozenset(f.core),
    )


def _tested(core: str | frozenset[str]) -> str | tuple[str, ...] | frozenset[str]:
    """A core as the fast path tests a chunk for it: one character (a str), two (a tuple:
    two ``in`` tests cost less than ``frozenset.isdisjoint`` on a short chunk), or more."""
    if isinstance(core, frozenset) and len(core) == 2:
        return tuple(sorted(core))
    return core


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
        "_opened",
        "_parts",
        "_captures",
        "tools",
        "_out",
        "_finalized",
        "_fast",
        "_clean",
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
                self._buf = truncated
                run(self, False, self.initial_events)
                self._settle()

    def _start(self, tools: dict[str, dict[str, Any]], serving: Serving | None) -> None:
        """The state of a parser before any text: the implicit region, not yet open."""
        cls = self.__class__
        self.region = cls._implicit
        self.serving = serving
        self.missing: list[str] | tuple[()] = ()
        self._buf = ""
        self._pos = 0
        self._opened = False
        self._parts: list[str] = []
        self._captures: dict[str, str] = {}
        self._out: dict[str, Any] = cls._copy_defaults()
        self.tools = tools
        self._finalized = False
        # The implicit region opens on its first text (an event): no fast path until then.
        self._fast = cls._region_fast[0] if cls._implicit < 0 else None
        self._clean = False  # held text is a run of lead characters the fast path left
        self._opening = ""

    # -- the reference's API ------------------------------------------------------------------

    feed = _fast_path(events=True)

    def finalize(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """End of stream: close what is open, check required fields, return the message."""
        if self._finalized:
            raise RuntimeError("ResponseParser already finalized")
        events: list[dict[str, Any]] = []
        self._fast = None
        run(self, True, events)
        cls = self.__class__
        if self.serving is not None:
            self.missing = [name for name in cls._required if name not in self._out]
            if self.serving.recover:
                return self._done(oneshot.drop_empty(cls, self._out)), events
        return self._done(oneshot.message(cls, self._out)), events

    # -- the serving contract ----------------------------------------------------------------

    feed_text = _fast_path(events=False)

    def _advance(self, text: str, committed: int) -> None:
        """The fast path of a parser whose patterns look at consumed text: ``text`` joins the
        buffer and ``committed`` more characters count as consumed; what the patterns can no
        longer see is dropped now and then (all of it is kept where they may see it all)."""
        buf = self._buf
        self._buf = ""  # the only reference left is ours: CPython grows the string in place
        buf += text
        pos = self._pos + committed
        context = self._context
        if context is not None and pos > context + _TRIM_SLACK:
            buf = buf[pos - context :]
            pos = context
        self._buf = buf
        self._pos = pos

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
        self._fast = cls._region_fast[0] if cls._implicit < 0 else None
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
        # One end-of-stream pass (see oneshot), on a parser object made for it alone: only
        # what the loop reads is set.
        p = cls.__new__(cls)
        p.region = cls._implicit
        p.serving = None
        p._pos = 0
        p._opened = False
        p._parts = []
        p._captures = {}
        p._out = cls._copy_defaults()
        p.tools = read
        p._opening = ""
        truncated = oneshot.truncate(cls._anchor, prefix) if prefix else ""
        if truncated:
            oneshot.read_prefix(p, truncated)
        else:
            p._buf = ""
        if text:
            if not isinstance(text, str):
                raise TypeError(f"feed() takes text (str), got {type(text).__name__}: {text!r:.80}")
            p._buf += text
        run(p, True, None)
        return oneshot.message(cls, p._out)

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
        if text:
            if not isinstance(text, str):
                raise TypeError(f"feed() takes text (str), got {type(text).__name__}: {text!r:.80}")
            # Drop the attribute's reference first so CPython can grow the string in place.
            buf = self._buf
            self._buf = ""
            buf += text
            self._buf = buf
        events: list[dict[str, Any]] = []
        self._fast = None  # until _settle: the region may change, or the loop raise
        self._clean = False
        run(self, False, events)
        self._settle()
        self._clean = _holds_a_run(self)
        return events

    def _settle(self) -> None:
        """After the loop: drop consumed text the patterns can no longer look at, and allow
        the fast path once the current region is open."""
        context = self._context
        pos = self._pos
        if context == 0:
            if pos:
                self._buf = self._buf[pos:]
                self._pos = 0
        elif context is not None and pos > context + _TRIM_SLACK:
            self._buf = self._buf[pos - context :]
            self._pos = context
        cur = self.region
        self._fast = self._region_fast[cur + 1] if self._opened or cur < 0 else None

    def _done(self, message: dict[str, Any]) -> dict[str, Any]:
        self._out = message
        self._finalized = True
        self._fast = None
        # feed() after finalize() falls through to the check that raises.
        return message
