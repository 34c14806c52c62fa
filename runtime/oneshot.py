"""One-shot parsing (a module's ``parse_response``), and what a parse starts and ends with.

``parse_response(text, template, prefix=...)`` in the reference is one ``feed(text)`` and
``finalize()``. Where the compiler proved that one end-of-stream pass commits exactly what a
partial pass followed by it commits (``_whole_pass_exact``), the text is read in that one pass,
with no events; otherwise by ``feed`` and ``finalize``. Either way the prefix's text after the
start anchor is read on its own first, in partial mode, as the reference reads it (a look-ahead
there must not see the generation); what that pass leaves is remembered per template and text
when no region closed in it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from .loop import run

if TYPE_CHECKING:
    from .engine import CompiledParser

NO_PREFIX = (
    "a prefix is required: pass the chat prompt sent to the model before generation "
    "(chat templates often pre-write part of the assistant message, e.g. an opening <think>), "
    'or prefix="" to opt out explicitly'
)

_IMMUTABLE = (str, int, float, bool, type(None))


def copier(defaults: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """What makes a fresh copy of the template's defaults for each parse: deep, as the
    reference copies them, where a value is a list or dict; else a flat copy is the same."""
    for value in defaults.values():
        if value.__class__ not in _IMMUTABLE:
            return partial(copy.deepcopy, defaults)
    return defaults.copy


def truncate(anchor: Any, prefix: Any) -> str:
    """The prefix after the end of the last non-overlapping match of the start anchor (all of
    it when there is none). ``anchor``: a tuple of literals no two occurrences of which can
    overlap (then every occurrence is a match, and the last match is the occurrence that starts
    last), one literal (found again and again), or a compiled pattern."""
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a str, got {type(prefix).__name__}")
    last = -1
    if anchor.__class__ is tuple:
        for literal in anchor:
            i = prefix.rfind(literal)
            if i >= 0 and i + len(literal) > last:
                last = i + len(literal)
    elif anchor.__class__ is str:
        i = prefix.find(anchor)
        while i != -1:
            last = i + len(anchor)
            i = prefix.find(anchor, last)
    else:
        for m in anchor.finditer(prefix):
            last = m.end()
    return prefix if last < 0 else prefix[last:]


def drop_empty(cls: type[CompiledParser], out: dict[str, Any]) -> dict[str, Any]:
    """The message without keys that are not defaults and hold None or an empty str, list or
    dict (usually there are none, and the dict, made for this parse alone, is returned)."""
    keep = cls._defaults
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


def message(cls: type[CompiledParser], out: dict[str, Any]) -> dict[str, Any]:
    """The final message: required fields checked, empty non-default values dropped."""
    required = cls._required
    if required:
        missing = [name for name in required if name not in out]
        if missing:
            raise ValueError(
                f"Required response_template fields missing from parsed output: {missing}"
            )
    keep = cls._defaults
    for k, v in out.items():
        if not v and k not in keep and (v is None or isinstance(v, (list, dict, str))):
            return drop_empty(cls, out)
    return out  # nothing to drop (the usual case): the dict, made for this parse alone


# What the partial-mode pass over a truncated prefix left, by parser class, that text and what
# was asked of the pass (its events; serving's captures in them). That pass is a pure function
# of these and of the tools, and the tools are read only to type a closed region's list or dict
# value (``coerce_tool_calls``). So a prefix whose closed regions stored only immutable values
# (a string, a number, None: ``<think>\n\n</think>\n\n``, the prompt of a hybrid model asked
# not to think) is kept with what it stored: a cached state is exactly what running the pass
# again would give, and nothing in it can be changed by the parser it is handed to. A prefix
# that stored anything else, or gave any other event (a rejected region), is read each time.
# This is how a prefilled prompt (`<think>\n` after the anchor) costs one pass, for a one-shot
# parse and for each stream a server starts. Bounded: short prefixes, a few entries.
_PREFIX_STATES: dict[tuple[Any, ...], tuple[Any, ...]] = {}
MAX_KNOWN_PREFIX = 256
MAX_KNOWN_PREFIXES = 256
_PREFIX_EVENTS = frozenset({"region_open", "region_chunk", "region_close"})
_IMMUTABLE = (str, int, float, bool, type(None))


def read_prefix(
    p: CompiledParser, truncated: str, events: list[dict[str, Any]] | None = None
) -> None:
    """Run a new parser's partial-mode pass over the truncated prefix, its events to
    ``events`` if given, or restore what it left and gave (values closed in it go into the
    parser's message)."""
    cls = p.__class__
    p._buf = truncated
    key = (cls, truncated, events is not None, p.serving is not None)
    known = _PREFIX_STATES.get(key)
    if known is not None:
        p._pos, p.region, p._opened, parts, captures, p._opening, stored, seen = known
        p._parts = list(parts)
        p._captures = dict(captures)
        if stored:
            p._out.update(stored)
        if events is not None:
            events += map(_copy_event, seen)  # a consumer may change what it is handed
        return
    new: list[dict[str, Any]] = []
    run(p, False, new)
    if events is not None:
        events += new
    if len(truncated) <= MAX_KNOWN_PREFIX and all(e["type"] in _PREFIX_EVENTS for e in new):
        stored = _stored(cls, p._out)
        if stored is None:
            return
        if len(_PREFIX_STATES) >= MAX_KNOWN_PREFIXES:
            _PREFIX_STATES.clear()
        seen = tuple(map(_copy_event, new)) if events is not None else ()
        state = (p._pos, p.region, p._opened, tuple(p._parts), dict(p._captures), p._opening)
        _PREFIX_STATES[key] = (*state, stored, seen)


def _stored(cls: type[CompiledParser], out: dict[str, Any]) -> dict[str, Any] | None:
    """What a pass stored in a message that began as the template's defaults (a parser's
    ``_out`` after ``_start``): the entries that are not those defaults, when each is immutable;
    else None. (A pass only sets entries: it never removes one.)"""
    defaults = cls._defaults
    stored = {}
    for name, value in out.items():
        if name in defaults:
            default = defaults[name]
            if value is default or (value.__class__ is default.__class__ and value == default):
                continue
        if not isinstance(value, _IMMUTABLE):
            return None
        stored[name] = value
    return stored


def _copy_event(event: dict[str, Any]) -> dict[str, Any]:
    """A copy of a prefix event that shares nothing mutable (a region_open's captures)."""
    if "captures" in event:
        return {**event, "captures": dict(event["captures"])}
    return dict(event)


def feed_and_finalize(
    cls: type[CompiledParser], text: Any, prefix: Any, tools: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The reference's ``parse_response`` for a template whose one-shot parsing cannot take
    one pass: a parser fed the text, then finalized."""
    p = cls.__new__(cls)
    p._start(tools, None)
    p.initial_events = []
    p._read_prefix(prefix)
    p.feed(text)
    return p.finalize()[0]


def whole_pass(
    cls: type[CompiledParser], text: Any, prefix: Any, tools: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """``parse_response`` of a template whose one-shot parsing takes one end-of-stream pass
    (``_whole_pass_exact``), on a parser object made for it alone: only what the loop reads
    is set."""
    p = cls.__new__(cls)
    p.region = cls._implicit
    p.serving = None
    p._pos = 0
    p._opened = False
    p._parts = []
    p._captures = {}
    p._out = cls._copy_defaults()
    p.tools = tools
    p._opening = ""
    truncated = truncate(cls._anchor, prefix) if prefix else ""
    if truncated:
        read_prefix(p, truncated)
    else:
        p._buf = ""
    if text:
        if not isinstance(text, str):
            raise TypeError(f"feed() takes text (str), got {type(text).__name__}: {text!r:.80}")
        p._buf += text
    run(p, True, None)
    return message(cls, p._out)


def feed_whole(p: CompiledParser, text: str) -> bool:
    """On a parser nothing was fed to (``DeltaStream.parse`` makes one for a whole text):
    take ``text`` as the whole generation, for ``finalize()`` to read in its one end-of-stream
    pass, where that commits what ``feed(text)`` and then ``finalize()`` would
    (``_whole_pass_exact``: the argument by which ``parse_response`` takes one pass, from the
    same state, after the prompt's pass); then True. Else nothing is done (False): feed it. A
    whole text is then searched without allowing for more text (the regex module's partial
    mode can cost the square of a long run of whitespace), each search remembered while ahead."""
    if not p.__class__._whole_pass_exact or p._finalized or not isinstance(text, str):
        return False
    p._buf += text
    return True


def parse_list(
    cls: type[CompiledParser], texts: list[Any], prefix: Any, tools: Sequence[Any] | None
) -> list[dict[str, Any]]:
    """A batch (a declared extension): each text parsed with its prefix, the first failure
    raising."""
    if prefix is None:
        raise ValueError(NO_PREFIX)
    if isinstance(prefix, list):
        if len(prefix) != len(texts):
            raise ValueError(
                f"batch of {len(texts)} texts but {len(prefix)} prefixes: pass one prefix per "
                "text, or a single prefix for all"
            )
        prefixes = prefix
    else:
        prefixes = [prefix] * len(texts)
    return [
        cls.parse_response(t, prefix=p, tools=tools) for t, p in zip(texts, prefixes, strict=True)
    ]
