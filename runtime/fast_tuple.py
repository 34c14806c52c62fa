"""One state's :class:`~rtc.runtime.fast_path.Fast` as the fast path reads it: a flat tuple,
its items in the order the fast path's cases need them (``fast_path.feed_step``), built once
per parser class (``engine._derive``)."""

from __future__ import annotations

from typing import Any

from .fast_path import Fast
from .matching import Starts

__all__ = ["region_tuple"]


def region_tuple(f: Fast, name: str | None, dirty: bool, keep: bool) -> tuple[Any, ...]:
    """One state's Fast as the fast path reads it: first what its common case needs, then
    the rest (see step and held_case). A state is simple when one core character, its lead
    characters, and nothing else decide its common case (no ^ or $ alternative, no consumed
    text kept: the other branch sets it aside): ``feed()`` then tests it first ("" as its
    core character where it is not: "" is in every chunk); one simple but for its core, which
    is two characters, has them as a pair (item 18), tested with it; a state that keeps consumed
    text (and has no $ alternative) has its core characters in item 17, tested next.
    ``keep``: the parser keeps consumed text; this state does unless it drops it
    (``Fast.drops``)."""
    keep = keep and not f.drops
    pending = tuple((literal, led) for held, led in f.pending for literal in _texts((held,)))
    plain = not (f.late or f.dollar or keep)
    simple = plain and isinstance(f.core, str) and len(f.core) == 1
    tested = _tested(f.core)
    pair = tested if plain and isinstance(tested, tuple) else ()
    core_set = frozenset(f.core)
    # (Fast.starts, where nothing else decides: no $ alternative; then the longest of them.
    # Lead characters are then the literals' own, as in \n?</response>, or, with star, those of
    # the delimiters led by \s*: the literals read them.)
    starts, led = _texts(f.starts), _texts(f.starts_led)
    if f.dollar or (f.star and not led):
        starts = led = ()
    return (
        f.core if simple else "",
        # (The lead characters, which a chunk's last character is looked up in on every chunk:
        # as a set, where there are some (a str is searched, and \s holds characters beyond
        # Latin-1, which makes that dearer); "" where there are none (no lookup at all). Item
        # 20 has them as a str, to strip.)
        frozenset(f.lead) if f.lead else "",
        name,
        dirty,
        tested,
        f.star,
        f.dollar,
        f.late,
        f.runs,
        keep,
        core_set,
        pending,
        f.behind,
        f.literals,
        f.patterns,
        # (Fast.starts and starts_led, read by matching.Starts; None where there are none.)
        Starts(starts, led) if starts or led else None,
        max(map(len, starts + led), default=0),
        # (A state that keeps consumed text, without a $ alternative: its core characters, for
        # the common case feed() tests second; None elsewhere.)
        core_set if keep and not f.dollar else None,
        pair,
        f.steps if f.patterns else (),
        f.lead,
        # (For feed_step's simple variant, which a class gets where every named region's state
        # is like this: the core character, or the pair, of a simple state without lead
        # characters whose region is named; "" and () elsewhere.)
        f.core if simple and not f.lead and name is not None else "",
        pair if not f.lead and name is not None else (),
    )


def _texts(found: tuple[Any, ...]) -> tuple[str, ...]:
    """Literals (``str``) and literal lists (``matching.Literals``) as the literals they hold."""
    return tuple(
        x for item in found for x in ((item,) if isinstance(item, str) else (y[0] for y in item))
    )


def _tested(core: str | frozenset[str]) -> str | tuple[str, ...] | frozenset[str]:
    """A core as the fast path tests a chunk for it: one character (a str), two (a tuple:
    two ``in`` tests cost less than ``frozenset.isdisjoint`` on a short chunk), or more."""
    if isinstance(core, frozenset) and len(core) == 2:
        return tuple(sorted(core))
    return core
