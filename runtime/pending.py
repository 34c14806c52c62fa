"""A pattern's match pending from the search position, read one chunk at a time.

While a delimiter's match is pending from the search position (a call's opening written up to
its name), the fast path asked the state's scanner at every chunk whether it still is
(``fast_path.holds_at_pos``): a partial-mode search by the ``regex`` module over the held text,
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

__all__ = ["OUT", "Steps", "pending_states"]

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


class Steps:
    """A pattern's position automaton, read deterministically: state 0 is "nothing read"; each
    state is a set of items ``2 * position + marked`` (marked: the path started at ``pos``).

    ``pieces``: the positions' tests in order, a run of literal characters as one string (a
    position each) and a class as a 1-tuple of its fragment (tested by ``regex``, DOTALL);
    ``jumps``: the positions whose ``follow`` is not just the next one; ``first``, ``last``:
    the positions a match may begin and end at."""

    __slots__ = ("_tests", "_first", "_follow", "_last", "_sets", "_ids", "_moves", "_lock")

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
        self._tests = tuple(tests)
        self._first = first
        self._follow = tuple(jumps.get(p, (p + 1,)) for p in range(len(tests)))
        self._last = frozenset(last)
        start = frozenset({_START})
        self._sets: list[frozenset[int]] = [start]
        self._ids: dict[frozenset[int], int] = {start: 0}
        self._moves: list[dict[str, int]] = [{}]
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

    def _accepts(self, position: int, ch: str) -> bool:
        test = self._tests[position]
        return ch == test if test.__class__ is str else test(ch) is not None

    def _move(self, state: int, ch: str) -> int:
        """The move from ``state`` on ``ch`` (see the module docstring), remembered while the
        bounds allow."""
        items: set[int] = set()
        for item in self._sets[state]:
            if item == _START:
                marked, after = 1, self._first
            else:
                marked, after = item & 1, self._follow[item >> 1]
            items.update(2 * q + marked for q in after if self._accepts(q, ch))
        # A path starting at this character (after pos: unmarked).
        items.update(2 * q for q in self._first if self._accepts(q, ch))
        found = frozenset(items)
        if any(item >> 1 in self._last for item in found) or not any(i & 1 for i in found):
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
            if sum(map(len, self._moves)) < MAX_MOVES:
                self._moves[state][ch] = to
        return to


def pending_states(
    p: CompiledParser, whole: str, text: str, steps: tuple[Steps, ...]
) -> tuple[int, ...] | None:
    """For held text ``whole`` (the text from the search position, ``text`` its last chunk):
    each of ``steps``' states after it, when some pattern's match is pending from the search
    position (the scanner would return at once, holding everything); else None. What was read
    of the held text before ``text`` is kept on the parser (``_steps``) and read on from."""
    kept = p._steps
    if (
        kept is not None
        and kept[1] is steps
        and len(kept[0]) + len(text) == len(whole)
        and whole.startswith(kept[0])
    ):
        states: tuple[int, ...] | None = kept[2]
        read = text
    elif len(whole) > MAX_HELD:
        return None
    else:
        states, read = None, whole
    if len(steps) == 1:  # (most states: one pattern watch)
        state = steps[0].read(states[0] if states else 0, read)
        if state == OUT:
            return None
        after: tuple[int, ...] = (state,)
    else:
        found = []
        for k, automaton in enumerate(steps):
            state = states[k] if states else 0
            found.append(OUT if state == OUT else automaton.read(state, read))
        if all(state == OUT for state in found):
            return None
        after = tuple(found)
    p._steps = (whole, steps, after)
    return after
