"""The fast path of ``feed()``: a chunk that cannot touch a delimiter watched in the current
state is committed (or held back) without the parsing loop.

:class:`Fast` is what the compiler proves per state; ``feed_step`` builds ``feed()`` and
``feed_text()`` of :class:`rtc.runtime.engine.CompiledParser` from it. A parser whose patterns
look back at consumed text sets aside the chunks the fast path commits whole (``flush`` joins
them onto the buffer when something reads it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .ahead import NO_MEMO
from .growing import (
    TAIL_CHUNKS,
    Growing,
    advance,
    continues_held_literal,
    continues_pending,
    extend_buffer,
    flush,
    grown,
    grows_held,
    holds_at_pos,
    unread,
)
from .matching import SPACE_STR, still_pending
from .pending import pending_states

if TYPE_CHECKING:
    from .engine import CompiledParser

__all__ = [
    "Fast",
    "Growing",
    "extend_buffer",
    "feed_step",
    "flush",
    "grown",
    "grows_held",
    "unread",
]


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
    # Per literal-shaped watch: its literal (a str) or literal list (``matching.Literals``),
    # and whether it is led by \s*; per pattern whose every match begins with a literal, that
    # literal (see ``rtc.compiler.lowering.states.pending_literals``).
    pending: tuple[tuple[Any, bool], ...] = ()
    # The parser keeps consumed text (its patterns look behind), but this state need not: no
    # delimiter it watches looks behind, and each consumes at least the parser's context, so
    # the states after it read only text after what is consumed here
    # (``rtc.compiler.lowering.states.drops``). Consumed text is then dropped, as in a parser
    # that keeps none.
    drops: bool = False
    # Some delimiter's alternative begins with a look-behind whose every match ends with one of
    # these characters (``(?<=\})\s*,``, the ``>`` of ``(?<=</think>)``: a guard, see
    # ``rtc.compiler.lowering.delimiters.pattern_facts``); "" for none. Such a match begins
    # just after one of them, which the search position may have passed, so the character
    # before the text passed through must not be one either: no text the fast path commits
    # holds one (they are core characters; the literal starts below check for them), and
    # ``settle`` checks the last consumed character after the general path. Only these: every
    # other match needs a core character at or after its own start, which is at or after the
    # search position.
    behind: str = ""
    # Every delimiter the state watches is a literal or literal list, not led by \s* and
    # without an end alternative (``rtc.compiler.lowering.states.literals_only``): none reads
    # before the search position, so the state's scanner run over the held text and the chunk
    # alone answers as over the buffer; the fast path asks it for text with a core character
    # (``held_case``) and routes what it would route.
    literals: bool = False
    # Some pattern watch may hold text at the search position
    # (``rtc.compiler.lowering.states.pending_patterns``): for held text with a core character
    # the fast path asks the state's scanner, over the buffer and the chunk, whether the hold
    # stays at the search position with nothing to commit (``held_case``).
    patterns: bool = False
    # The literals (and literal lists) every match of every watch begins with, where a partial
    # match is exactly a proper prefix of one at the end of the text
    # (``rtc.compiler.lowering.states.start_literals``): in text with a core character where
    # none of them occurs, the general path's hold is read off them
    # (``matching.starts_hold``) and what comes before is committed. A branch that begins with
    # ``^`` or a guard may have no literal: the fast path then runs once text was consumed
    # (``late``), and where no character of ``behind`` is in the text (nor, by ``settle`` and
    # the above, just before it).
    starts: tuple[Any, ...] = ()
    # The same for the delimiters led by \s*: a match begins with a whitespace run, then one.
    starts_led: tuple[Any, ...] = ()
    # With ``patterns``: the position automata (``pending.Steps``) of pattern watches whose
    # match may be pending from the search position; where one of them reads the held text
    # and the chunk as pending, the scanner need not run (``pending.pending_states``).
    steps: tuple[Any, ...] = ()


def feed_step(events: bool, text_class: type = str, simple: bool = False) -> Any:
    """``feed()`` (``events``) or ``feed_text()``: one body for both, the fast path written
    once, each without a call into the other (this is the hottest code of a stream).

    ``simple``: for a parser class whose every named region's state is simple, without lead
    characters (``fast_tuple.region_tuple``'s items 21 and 22; ``engine._derive`` decides):
    the chunk of prose that such a state commits whole is tested first, in the fewest steps,
    and every other chunk goes on to the same body. (Where some state is not like that, its
    every chunk would pay for the first test: measured on the bench's answer streams, 5-10%
    for states with lead characters or consumed text kept. So the choice is per class.)

    ``text_class``: the one class of text the fast path takes, exactly (any other text goes
    to the general path, which checks it). Parsers take ``str``; the work counter of
    ``rtc.compiler.lint.work`` makes a copy for its ``str`` subclass that counts what is
    read, so that it measures the path production takes (a closure variable: no cost).
    Where the state keeps consumed text (``fast_tuple.region_tuple``), a chunk committed whole joins
    ``_tail`` (see flush) instead of being dropped.
    """

    def step(self: CompiledParser, text: str) -> Any:
        fast = self._fast
        if fast is None or text.__class__ is not text_class or not text:
            if fast is None and text and text.__class__ is text_class and self._held_first(text):
                return [] if events else ""
            return self._feed(text) if events else None
        # See Fast for why this is exact.
        if (
            not self._buf
            and (
                fast[0] not in text
                or ((pair := fast[18]) and pair[0] not in text and pair[1] not in text)
            )
            and (not (lead := fast[1]) or text[-1] not in lead)
        ):
            # The common case of most states, first (fast[0] is the state's one core
            # character, "" where the state is not that simple: see fast_tuple; a state
            # simple but for its two core characters, "<" and "[" say, has them in fast[18]):
            # nothing held, no core character, nothing to hold now (the chunk cannot end in
            # the start of a delimiter; most states have no lead character, fast[1] empty):
            # the chunk is committed whole (below).
            pass
        elif (
            (kept := fast[17]) is not None
            and len(self._buf) == self._pos
            and self._pos
            and text[-1] not in fast[1]
            and kept.isdisjoint(text)
        ):
            # The common case of a state that keeps consumed text (fast[17]: its core
            # characters; no $ alternative): nothing held, text consumed already (a ^
            # alternative cannot match), no core character, nothing to hold now. The chunk
            # joins the consumed ones set aside, as other_cases would have it.
            tail = self._tail
            tail.append(text)
            if len(tail) >= TAIL_CHUNKS:
                flush(self)
        else:
            return other_cases(self, text, fast)
        # Either case commits the chunk whole (dropped in the null sink, fast[2] None).
        name = fast[2]
        if name is None:
            return [] if events else text
        self._parts.append(text)
        if events:
            return [{"type": "region_chunk", "field": name, "text": text, "dirty": fast[3]}]
        return text

    def other_cases(self: CompiledParser, text: str, fast: tuple[Any, ...]) -> Any:
        # The rest of step, apart: a function's frame is made and cleared slot by slot for
        # every local it has, and these cases need some twenty; step, with the two common
        # cases alone, has eight (measured: about 1% of an answer stream, in every family).
        buf = self._buf
        if self._held_literal is not None and continues_held_literal(self, text, fast):
            # A held literal's prefix that the chunk continues (held_case's record): held.
            return [] if events else ""
        elif (
            (read := self._steps) is not None
            and read[0] is buf
            and continues_pending(self, text, fast, read)
        ):
            # Held text that a pattern's automaton read last, which reads the chunk as still
            # pending (pending_hold's record): held.
            return [] if events else ""
        else:
            # (The whole tuple, one name each: a slice or a starred name builds a new object.)
            (
                _,
                lead,
                name,
                dirty,
                core,
                star,
                dollar,
                late,
                _,
                keep,
                core_set,
                _,
                _,
                _,
                _,
                _,
                _,
                _,
                _,
                _,
                strip,
                _,
                _,
            ) = fast
            if late and not self._pos and not (keep and self._tail):
                return self._feed(text) if events else None  # nothing consumed yet: ^ may match
            if core.__class__ is str:
                if core in text:
                    return _core_case(self, text, fast, events)
            elif core.__class__ is tuple:
                if core[0] in text or core[1] in text:
                    return _core_case(self, text, fast, events)
            elif not core_set.isdisjoint(text):
                return _core_case(self, text, fast, events)
            last = text[-1]
            if not (
                (len(buf) == self._pos if keep else not buf)
                and last not in lead
                and not (dollar and last == "\n")
            ):
                if keep or not star or self._growing is not None:
                    return held_case(self, text, fast, events)
                # held_case's two commonest cases, written out (the same steps, in the same
                # order; a newline ends most lines of prose): a held run of lead characters
                # this path left, which the chunk ends, is committed with it; with nothing
                # held, a chunk's trailing run of lead characters is held.
                if buf:
                    if not (self._clean and last not in lead and not (dollar and last == "\n")):
                        return held_case(self, text, fast, events)
                    if not self._opened and self.region >= 0:
                        return self._feed(text) if events else None
                    self._buf = ""
                    self._clean = False
                    text = buf + text
                elif last not in lead:
                    return held_case(self, text, fast, events)
                else:
                    committed = text.rstrip(strip)
                    if committed and not self._opened and self.region >= 0:
                        return self._feed(text) if events else None
                    self._buf = text[len(committed) :]
                    self._clean = True
                    if not committed:
                        return [] if events else ""
                    text = committed
            elif keep:
                # Nothing is held (so every chunk set aside is consumed): the chunk joins them.
                tail = self._tail
                tail.append(text)
                if len(tail) >= TAIL_CHUNKS:
                    flush(self)
        # The chunk is committed whole (what the general branch of held_case also finds).
        if name is not None:
            self._parts.append(text)
            if events:
                return [{"type": "region_chunk", "field": name, "text": text, "dirty": dirty}]
        return [] if events else text

    if simple:

        def simple_step(self: CompiledParser, text: str) -> Any:
            # The common case of a simple state without lead characters, in a named region
            # (fast[21]: its one core character, "" elsewhere; fast[22]: its two): nothing
            # held, no core character: nothing can match or be held (see Fast), the chunk is
            # committed whole, as step commits it. Else step decides.
            fast = self._fast
            if (
                fast is not None
                and text.__class__ is text_class
                and (
                    fast[21] not in text
                    or ((pair := fast[22]) and pair[0] not in text and pair[1] not in text)
                )
                and not self._buf
                and text
            ):
                self._parts.append(text)
                if events:
                    return [
                        {"type": "region_chunk", "field": fast[2], "text": text, "dirty": fast[3]}
                    ]
                return text
            return step(self, text)

        chosen = simple_step
    else:
        chosen = step
    if events:
        chosen.__name__ = chosen.__qualname__ = "feed"
        chosen.__doc__ = "Consume the next piece of generated text; return the events it completes."
    else:
        chosen.__name__ = chosen.__qualname__ = "feed_text"
        chosen.__doc__ = (
            "``feed()``'s fast path, without its event: when ``text`` cannot touch a delimiter "
            "watched in the current region (already open, or the null sink), consume it and "
            "return the text this commits to the region (``''`` when all of it is held back as "
            "the possible start of a delimiter); else consume nothing and return None (then "
            "call ``feed()``). The committed text goes to the field ``region`` (dropped in the "
            "null sink, -1)."
        )
    return chosen


def _core_case(self: CompiledParser, text: str, fast: tuple[Any, ...], events: bool) -> Any:
    """A chunk holding a core character: where nothing is held and the state knows the
    literals its matches begin with (``Fast.starts``, and no lead characters; none of a guard's
    characters in the chunk: ``Fast.behind``), committed up to where the general path would
    hold (see ``starts_hold``); else the general path's, but in a state that watches literals
    only (``Fast.literals``), or that holds text a pattern's automaton may read as pending
    (``Fast.steps``), where ``held_case`` finds what the scanner would."""
    if fast[16] and (len(self._buf) == self._pos if fast[9] else not self._buf):
        hold = _literal_hold(text, fast)
        if hold >= 0:
            return _hold_from(self, text, hold, fast, events)
    if fast[13]:
        return held_case(self, text, fast, events)
    if fast[19] and (len(self._buf) > self._pos if fast[9] else self._buf):
        # Held text, where a pattern's match may be pending (Fast.steps): the chunk joins it
        # where an automaton reads the match as pending still (see pending.pending_states).
        return _held_pending(self, text, fast, events)
    return self._feed(text) if events else None


def _held_pending(self: CompiledParser, text: str, fast: tuple[Any, ...], events: bool) -> Any:
    """Held text and a chunk with a core character: where a pattern's match is pending from the
    search position (``Fast.steps``), it joins the held text (``pending_hold``); else the
    general path's."""
    if pending_hold(self, text, fast[19], fast[9]):
        return [] if events else ""
    return self._feed(text) if events else None


def pending_hold(self: CompiledParser, text: str, steps: tuple[Any, ...], keep: bool) -> bool:
    """Where a pattern's match is pending from the search position once ``text`` joins the
    held text (``Fast.steps``), the general path would route and commit nothing (the state's
    scanner returns at once: see ``pending.pending_states``), whatever the chunk holds: the
    chunk joins the held text, and its growth is read as held_case reads it (True). Else
    nothing is done (False)."""
    if keep and self._tail:
        flush(self)
    buf = self._buf
    whole = (buf[self._pos :] if keep else buf) + text
    if pending_states(self, whole, text, steps) is None:
        return False
    buf = ""  # (this frame's reference dropped: the buffer grows in place)
    if keep:
        advance(self, text, 0)
    else:
        # The held text is the buffer: the record's text becomes it, so that the next chunk
        # is read on from the record alone (see continues_pending).
        self._buf = whole
    self._clean = False
    self._growing = unread(self)
    return True


def _literal_hold(whole: str, fast: tuple[Any, ...]) -> int:
    """Where the general path holds ``whole`` (the text from the search position) back, read
    off the state's literals (``Fast.starts``, fast[15]); -1 where they cannot say: one of them
    occurs, or a character a guard's look-behind ends with (``Fast.behind``, fast[12])."""
    for c in fast[12]:
        if c in whole:
            return -1
    hold: int = fast[15].hold(whole)
    return hold


def _hold_from(
    self: CompiledParser, whole: str, hold: int, fast: tuple[Any, ...], events: bool
) -> Any:
    """Commit ``whole`` (the held text and the chunk: everything from the search position)
    up to ``hold`` and hold the rest, as the general path does where no delimiter matches
    (``Fast.starts``); the first text of a region not yet open is left to it. Where the state
    keeps consumed text, it stays in the buffer before the search position (``advance``)."""
    committed = whole[:hold]
    keep = fast[9]
    held = len(self._buf) - self._pos if keep else len(self._buf)
    if committed and not self._opened and self.region >= 0:
        return self._feed(whole[held:]) if events else None
    if not keep:
        self._buf = whole[hold:]
    elif not held and hold == len(whole):
        # Nothing held before or now: the chunk joins the consumed ones set aside (see step).
        tail = self._tail
        tail.append(whole)
        if len(tail) >= TAIL_CHUNKS:
            flush(self)
    else:
        if self._tail:
            flush(self)  # (nothing is held while chunks are set aside: they come first)
        advance(self, whole[held:], hold)
    self._clean = False
    name = fast[2]
    if not committed or name is None:
        return [] if events else committed
    self._parts.append(committed)
    if events:
        return [{"type": "region_chunk", "field": name, "text": committed, "dirty": fast[3]}]
    return committed


def held_case(self: CompiledParser, text: str, fast: tuple[Any, ...], events: bool) -> Any:
    """The fast path's other cases (see Fast): text is held back before the chunk, or the
    chunk ends in a lead character; ``fast`` holds no core character of the chunk, unless the
    state watches literals only (``Fast.literals``). Returns what ``feed()`` (``events``) or
    ``feed_text()`` returns."""
    if self._growing is not None:
        if grown(self, text):
            return [] if events else ""
        # The chunk changes what is held (this path may commit it, or hold more): whether it
        # still grows is read again after the general path.
        self._growing = None
    steps = fast[19]
    if (
        steps
        and (read := self._steps) is not None
        and read[1] is steps
        and len(read[0]) == (len(self._buf) - self._pos if fast[9] else len(self._buf))
        and len(read[0]) >= fast[16]
    ):
        # The held text is what a pattern's automaton read last (a call's opening, written a
        # token at a time): it reads on over the chunk first, the cheapest of the reads below,
        # which find the same hold where it answers (pending_hold; the same argument). (After
        # a growing match, which takes its chunks without reading the held text; and not for
        # held text shorter than a literal the matches begin with: it may be its prefix, which
        # the literals' record continues at less cost, see continues_held_literal.)
        if pending_hold(self, text, steps, fast[9]):
            return [] if events else ""
        steps = ()  # (read: the branch below need not read it again)
    (
        _,
        lead,
        name,
        dirty,
        _,
        star,
        dollar,
        _,
        _,
        keep,
        core_set,
        pending,
        _,
        literals,
        _,
        _,
        _,
        _,
        _,
        _,
        strip,
        _,
        _,
    ) = fast
    if keep and self._tail:
        flush(self)
    buf = self._buf
    last = text[-1]
    held = len(buf) - self._pos if keep else len(buf)  # held back by earlier chunks
    run = True  # what is left held is a run of lead characters (or nothing)
    reread = False
    if held and self._clean:
        # What is held is a run of lead characters this path left (or the general path,
        # under runs): no need to read it.
        if last in lead:
            tail = text.rstrip(strip)
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
        if (
            held
            and pending
            and not core_set.isdisjoint(whole)
            and (literal := still_pending(whole, pending)) is not None
        ):
            # A watch's literal is still pending from the search position: the general path
            # would route and commit nothing (Fast.pending); the chunk joins the held text.
            committed = ""
            run = False
            if not keep and not fast[7]:
                # (feed() checks the next chunk against this literal alone, where the held prefix
                # has a core character: see step.)
                if not literal[1]:
                    self._held_literal = (fast, literal[0], len(whole), len(whole))
                elif literal[0][0] in core_set:
                    length = len(whole.lstrip(SPACE_STR))
                    self._held_literal = (fast, literal[0], len(whole), length)
        elif held and held < fast[16] and (hold := _literal_hold(whole, fast)) >= 0:
            # The held text (from the search position) is shorter than the longest literal (a
            # longer one is a match under way, which the other cases read): the chunk joins
            # it, and the general path's hold is read off the literals (see _core_case).
            buf = ""  # (this frame's reference dropped: a kept buffer grows in place)
            return _hold_from(self, whole, hold, fast, events)
        elif literals and not core_set.isdisjoint(whole):
            # The state's scanner over the held text and the chunk (Fast.literals): a match
            # is committed by the general path; else what comes before its hold is routed,
            # as the general path routes it, and the rest is held.
            found = self._scan[self.region + 1](whole, 0, NO_MEMO)
            hold, _, _, target, _ = found
            if target != -1:
                self._scanned = (whole, 0, self.region, found)  # (see engine._feed)
                return self._feed(text) if events else None
            committed = whole[:hold]
            run = False
        elif held and not core_set.isdisjoint(whole):
            if not (
                fast[14]
                and (
                    (steps and pending_states(self, whole, text, steps) is not None)
                    or holds_at_pos(self, text)
                )
            ):
                return self._feed(text) if events else None
            # A watch's pattern is pending from the search position (Fast.patterns): held as
            # the general path holds it, and its growth read as it would.
            committed = ""
            run = False
            reread = True
        elif last in lead:
            if not star:
                if held < fast[16] and (hold := _literal_hold(whole, fast)) >= 0:
                    # A lead character that begins a literal (the \n of \n?</response>):
                    # the general path's hold is read off the literals (see _core_case).
                    buf = ""  # (this frame's reference dropped: a kept buffer grows in place)
                    return _hold_from(self, whole, hold, fast, events)
                return self._feed(text) if events else None
            committed = whole.rstrip(strip)  # the trailing run of lead characters waits
        elif dollar and last == "\n":
            return self._feed(text) if events else None
        else:
            committed = whole
        whole_length = len(whole)
    if committed and not self._opened and self.region >= 0:
        # The first text of a region not yet open: the loop opens it (settle lets the fast
        # path run there only while text is held, so every commit comes this way).
        return self._feed(text) if events else None
    # What is left held: a trailing run of lead characters (run), or nothing, or (not run) the
    # held text and the chunk.
    kept = whole_length - len(committed)
    if keep:
        # Drop this frame's reference first: advance then grows the buffer in place
        # (with two references CPython copies it: the whole kept context every chunk).
        buf = ""
        advance(self, text, len(committed))
    elif not kept:
        if held:
            self._buf = ""
    elif committed or not held:
        self._buf = text[len(text) - kept :]
    else:
        buf = ""  # (this frame's reference dropped: the run grows in place)
        extend_buffer(self, text)
    self._clean = run and kept > 0
    if reread:
        self._growing = unread(self)
    if committed and name is not None:
        self._parts.append(committed)
        if events:
            return [{"type": "region_chunk", "field": name, "text": committed, "dirty": dirty}]
    return [] if events else committed
