"""A pattern's match pending from the search position, read one chunk at a time.

While a delimiter's match is pending from the search position (a call's opening written up to
its name), the fast path asked the state's scanner at every chunk whether it still is
(``growing.holds_at_pos``): a partial-mode search by the ``regex`` module over the held text,
several microseconds a token. :class:`Steps` reads each chunk once instead, with the pattern's
position automaton (``rtc.compiler.regex_syntax.positions``), made deterministic as it goes.

**Why it is exact.** A state's scanner returns "pending from the search position, nothing to
commit" as soon as one pattern watch's partial-mode search from ``pos`` reports a match starting
at ``pos`` that is partial (or complete and ending at the end, where it may grow). The
``regex`` module's partial-mode search reports a complete match if the text holds one anywhere
from ``pos`` on, the leftmost; else the leftmost partial one: a position from which some path
of the pattern reads every remaining character and wants more. The automaton tracks, after
each character, the positions a match may be at: those of paths started at ``pos`` (marked),
and those of paths started at any later character. :meth:`Steps.read` answers "out" as soon as
a path reaches a last position (a complete match ends there: the search would report it, or
some complete match) or no marked path is left (nothing is partial from ``pos``). Otherwise,
after the whole held text and chunk, no complete match exists from ``pos`` on and a marked path
wants more: the search reports the partial match at ``pos``, and the scanner returns at once.
Negative look-aheads ``(?!Y)``: the paths that may complete read them as passing (more complete
matches: a sound "out"); a marked path reads each one it crosses with ``Y``'s own automaton, made
looser (``Y``'s assertions and look-arounds read as the empty string, so it matches at least
where ``Y`` does), and ends where that matches; it counts as pending only once every look-ahead
it crossed can no longer match (fewer pending paths: a sound "pending"). The regex module
reports such a path partial (a look-ahead still undecided at the end of the text is read as
partial too, which is only counted once decided).
A pattern led by ``\\s*`` is searched without it, and the scanner backs the match's start over
the whitespace before it (``Watch.back_over_ws``): its automaton is built for the rest and given
that whitespace as ``lead``, which the start state reads without moving. That is exact where no
match of the rest begins with a lead character (checked when the automaton is built): then no
match, complete or partial, begins inside the run of them the held text starts with, so the
search from the search position reports what the search from the run's end reports, and the
scanner backs a partial match there over the whole run, to the search position.
``needs`` guards (``lowering.delimiters.skippable``) skip the search only in text where no
match, partial or complete, can begin: a partial one from ``pos`` shows the guard passes.
The automaton's states and moves are shared by every parser of a module (a lock guards their
growth), and bounded: past the bound a new state answers "out" and the scanner decides.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import regex

if TYPE_CHECKING:
    from .engine import CompiledParser

__all__ = ["MAX_HELD", "OUT", "Steps", "begins_with", "pending_states", "read_on"]

OUT = -1
"""What :meth:`Steps.read` answers once the match is not (or no longer) provably pending."""

# At most this many deterministic states per pattern, and moves over all of them: a chunk that
# would need more is answered OUT (the scanner decides), so memory stays bounded whatever text
# arrives (the moves are per character: a name in any script adds some).
MAX_STATES = 512
MAX_MOVES = 1 << 15
# Held text longer than this is left to the scanner: the first reading of held text is
# a step per character, and a long held match is what the growth checks are for.
MAX_HELD = 1024
_START = -1  # the item "nothing read yet, a path starting at pos"


class _Automaton:
    """Positions' tests and moves (see :class:`Steps`)."""

    __slots__ = ("tests", "first", "follow", "last")

    def __init__(
        self,
        pieces: tuple[Any, ...],
        jumps: dict[int, tuple[int, ...]],
        first: tuple[int, ...],
        last: tuple[int, ...],
    ) -> None:
        tests: list[Any] = []
        for piece in pieces:
            if isinstance(piece, str):
                tests.extend(piece)
            else:
                tests.append(regex.compile(piece[0], regex.DOTALL).fullmatch)
        self.tests = tuple(tests)
        self.first = first
        self.follow = tuple(jumps.get(p, (p + 1,)) for p in range(len(tests)))
        self.last = frozenset(last)

    def begins_with(self, chars: str) -> str | None:
        """One of ``chars`` a match may begin with, or None."""
        for ch in chars:
            if any(self.accepts(q, ch) for q in self.first):
                return ch
        return None

    def accepts(self, position: int, ch: str) -> bool:
        test = self.tests[position]
        return ch == test if test.__class__ is str else test(ch) is not None


def begins_with(
    pieces: tuple[Any, ...],
    jumps: dict[int, tuple[int, ...]],
    first: tuple[int, ...],
    last: tuple[int, ...],
    chars: str,
) -> str | None:
    """One of ``chars`` a match of the pattern (given as :class:`Steps` takes it) may begin
    with, or None: where a ``Steps`` given ``chars`` as its ``lead`` refuses the pattern."""
    return _Automaton(pieces, jumps, first, last).begins_with(chars)


class Steps:
    """A pattern's position automaton, read deterministically: state 0 is "nothing read".

    ``pieces``: the positions' tests in order, a run of literal characters as one string (a
    position each) and a class as a 1-tuple of its fragment (tested by ``regex``, DOTALL);
    ``jumps``: the positions whose ``follow`` is not just the next one; ``first``, ``last``:
    the positions a match may begin and end at. ``gated``: the moves (from -1, the start, or a
    position) that cross negative look-aheads, by their indexes in ``gates``, each the
    ``(pieces, jumps, first, last)`` of the look-ahead's body read loosely (its assertions
    and look-arounds as the empty string: it matches at least where the body does).

    A state is a set of items: a position reached by a path started anywhere from the search
    position, all look-aheads read as passing (an int: what may complete, an over-estimate);
    and ``(position, checks)`` for a path started at the search position whose look-aheads
    are read (an under-estimate: ``checks``, the ``(gate, gate position)`` pairs of the
    look-aheads it crossed whose bodies may still match; a body that matches ends the path).
    """

    __slots__ = (
        "_main",
        "_gated",
        "_gates",
        "_sets",
        "_ids",
        "_moves",
        "_kept",
        "_sure",
        "_lock",
    )

    def __init__(
        self,
        pieces: tuple[Any, ...],
        jumps: dict[int, tuple[int, ...]],
        first: tuple[int, ...],
        last: tuple[int, ...],
        gated: dict[tuple[int, int], tuple[int, ...]] | None = None,
        gates: tuple[tuple[Any, ...], ...] = (),
        lead: str = "",
    ) -> None:
        self._main = _Automaton(pieces, jumps, first, last)
        # lead: the characters a leading \s* took (see the module docstring); no match of the
        # rest may begin with one, or the start state could not read them as not moving.
        ch = self._main.begins_with(lead)
        if ch is not None:
            raise ValueError(f"a match may begin with the lead character {ch!r}")
        self._gated = gated or {}
        self._gates = tuple(_Automaton(*gate) for gate in gates)
        start = frozenset({_START})
        self._sets: list[frozenset[Any]] = [start]
        self._ids: dict[frozenset[Any], int] = {start: 0}
        # The start state reads a lead character without moving (the scanner backs over it).
        self._moves: list[dict[str, int]] = [dict.fromkeys(lead, 0)]
        self._kept = len(lead)  # moves remembered, over every state
        # Per state: a path started at the search position has read all its look-aheads as
        # passing (the state is pending, not just not ruled out).
        self._sure: list[bool] = [False]
        self._lock = threading.Lock()

    def read(self, state: int, text: str) -> int:
        """The state after ``text``, or ``OUT``."""
        moves = self._moves
        for ch in text:
            to = moves[state].get(ch)
            if to is None:
                to = self._move(state, ch)
            if to < 0:
                return OUT
            state = to
        return state

    def _checks(self, checks: frozenset[Any], gates: tuple[int, ...], ch: str) -> Any:
        """``checks`` after ``ch``, with ``gates`` started at it: None where a body matched."""
        out = set()
        for g, y in checks:
            gate = self._gates[g]
            for z in gate.follow[y]:
                if gate.accepts(z, ch):
                    if z in gate.last:
                        return None
                    out.add((g, z))
        for g in gates:
            gate = self._gates[g]
            for z in gate.first:
                if gate.accepts(z, ch):
                    if z in gate.last:
                        return None
                    out.add((g, z))
        return frozenset(out)

    def _move(self, state: int, ch: str) -> int:
        """The move from ``state`` on ``ch`` (see the module docstring), remembered while the
        bounds allow."""
        main = self._main
        items: set[Any] = set()
        checks: frozenset[Any]
        for item in self._sets[state]:
            if item == _START:
                p, checks = -1, frozenset()
                after = main.first
            elif item.__class__ is int:
                items.update(q for q in main.follow[item] if main.accepts(q, ch))
                continue
            else:
                p, checks = item
                after = main.follow[p]
            for q in after:
                if main.accepts(q, ch):
                    items.add(q)
                    found = self._checks(checks, self._gated.get((p, q), ()), ch)
                    if found is not None:
                        items.add((q, found))
        # A path starting at this character (after pos: its look-aheads not read).
        items.update(q for q in main.first if main.accepts(q, ch))
        found = frozenset(items)
        last = main.last
        if any(item in last for item in found if item.__class__ is int) or not any(
            item.__class__ is tuple for item in found
        ):
            to = OUT
        else:
            to = self._ids.get(found, -2)
        with self._lock:
            if to == -2:
                if len(self._sets) >= MAX_STATES:
                    return OUT
                to = self._ids.setdefault(found, len(self._sets))
                if to == len(self._sets):
                    self._sets.append(found)
                    self._moves.append({})
                    self._sure.append(
                        any(item.__class__ is tuple and not item[1] for item in found)
                    )
            if self._kept < MAX_MOVES:
                self._moves[state][ch] = to
                self._kept += 1
        return to

    def start(self, p: CompiledParser) -> int:
        """The state before the held text: nothing read (``pending_json.JsonSteps`` reads
        the parser here)."""
        return 0

    def sure(self, state: int) -> bool:
        """Whether ``state`` (not OUT) is pending: a path started at the search position has
        read all its look-aheads as passing."""
        return self._sure[state]


def pending_states(
    p: CompiledParser, whole: str, text: str, steps: tuple[Any, ...]
) -> tuple[Any, ...] | None:
    """For held text ``whole`` (the text from the search position, ``text`` its last chunk):
    each of ``steps``' states after it, when some pattern's match is pending from the search
    position (the scanner would return at once, holding everything); else None. What was read
    of the held text is kept on the parser (``_steps``: the text, the automata, their states,
    and the character before the search position) and read on from, where the held text still
    starts with it."""
    kept = p._steps
    pos = p._pos
    before = p._buf[pos - 1] if pos else ""  # (JsonSteps.start reads it)
    if (
        kept is not None
        and kept[1] is steps
        and len(kept[0]) <= len(whole)
        and kept[3] == before
        and whole.startswith(kept[0])
    ):
        # Read on from what was read: the chunk, or everything appended since (a held match
        # that keeps growing takes chunks without this reading: growing.grown), or nothing (the
        # record is of this very text: growing.continues_pending read it and found it no
        # longer pending).
        states: tuple[Any, ...] | None = kept[2]
        read = text if len(kept[0]) + len(text) == len(whole) else whole[len(kept[0]) :]
    elif len(whole) > MAX_HELD:
        return None
    else:
        states, read = None, whole
    if states is None:
        states = tuple(automaton.start(p) for automaton in steps)
    after, sure = read_on(steps, states, read)
    # Read on from here next time: pending, not yet sure, or OUT (which more text cannot
    # change: a complete match stays in the text, a path that ended stays ended).
    p._steps = (whole, steps, after, before)
    return after if sure else None


def read_on(steps: tuple[Any, ...], states: tuple[Any, ...], text: str) -> tuple[Any, bool]:
    """Each of ``steps``' states after reading ``text`` on from ``states``, and whether some
    pattern's match is then pending from the search position (a state is sure)."""
    if len(steps) == 1:  # (most states: one pattern watch)
        automaton = steps[0]
        state = states[0]
        if state != OUT:
            state = automaton.read(state, text)
        return (state,), state != OUT and automaton.sure(state)
    # (One loop over the automata, reading and asking each: a state watching several
    # patterns reads every held chunk here, and two generators cost more than the reads.)
    sure = False
    moved = []
    for automaton, state in zip(steps, states, strict=True):
        if state != OUT:
            state = automaton.read(state, text)
            if state != OUT and not sure:
                sure = automaton.sure(state)
        moved.append(state)
    return tuple(moved), sure
