"""Held matches that keep growing: checked once, then each chunk they may grow by joins the
held text without a search (``Growing``, read by :mod:`.fast_path`'s ``held_case``); and a held
prefix of a literal that a chunk continues (``continues_held_literal``).

A delimiter's match that reaches the end of the buffer stays pending while the text after it
may extend it (a call name ``\\w+``, a whitespace run after a literal). The compiler proves, per
delimiter, which characters keep such a match growing (``rtc.compiler.regex_syntax.growth``);
the runtime checks once that the held text is such a match, and then only that each chunk is
made of those characters.

Also how the fast path grows the buffer: in place (``extend_buffer``, ``advance``), and, in a
parser that keeps consumed text, from the chunks it set aside (``flush``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .ahead import NO_MEMO
from .matching import SPACE_STR
from .pending import MAX_HELD, read_on

if TYPE_CHECKING:
    from .engine import CompiledParser

__all__ = [
    "TAIL_CHUNKS",
    "TRIM_SLACK",
    "UNREAD",
    "Growing",
    "advance",
    "continues_held_literal",
    "continues_pending",
    "extend_buffer",
    "flush",
    "grown",
    "grows_held",
    "unread",
]


# With a bounded context, consumed text is trimmed once this much more than the context has
# piled up: one slice every so often instead of one per chunk.
TRIM_SLACK = 4096
# A parser that keeps consumed text (its patterns look behind) sets aside the chunks the fast
# path commits whole, and joins them onto the buffer when something reads it or this many have
# piled up: a list append per chunk instead of a string grown (often copied) per chunk.
TAIL_CHUNKS = 256


class Growing(NamedTuple):
    """How to check, once, that the held text is a match that keeps growing while text of
    one alphabet is appended (``rtc.compiler.regex_syntax.growth`` proves it per delimiter):
    whitespace (``stops`` None), or every character but those in ``stops``, or (``run``, a
    compiled ``(?:CLASS)*``) every character a class of the delimiter accepts.

    The held text is the first of ``literals`` it starts with, then only such characters; or
    ``pattern``'s match at its start ends at the end of the buffer (``prefix`` "", ``skip``
    0); or that match succeeds and the held text is ``prefix``, then only such characters; or
    it succeeds and the held text from ``skip`` characters on is only such characters."""

    literals: tuple[str, ...] = ()
    pattern: Any = None
    prefix: str = ""
    stops: str | None = None
    run: Any = None
    skip: int = 0


def _grows_by(text: str, check: Growing) -> bool:
    """Whether ``text`` is made of the characters ``check``'s held match may grow by."""
    if check.run is not None:
        return check.run.fullmatch(text) is not None
    stops = check.stops
    if stops is None:
        return not text.strip(SPACE_STR)
    for c in stops:
        if c in text:
            return False
    return True


def grows_held(p: CompiledParser) -> Growing | None:
    """After the general path: the check (``Growing``) by which ``p``'s held text is a match
    that keeps growing, if one holds (the match starts where the held text does, so the
    state's hold stays there and nothing can be committed). Read once; then :func:`grown`
    appends such text without a search."""
    buf = p._buf
    pos = p._pos
    for check in _held_checks(p):
        if check.literals:
            for literal in check.literals:
                if buf.startswith(literal, pos):
                    # The first literal the held text starts with is the match's.
                    if _grows_by(buf[pos + len(literal) :], check):
                        return check
                    break
        elif check.skip:
            # (Shorter held text cannot hold a match of the head: it is at least skip long.)
            if (
                len(buf) - pos >= check.skip
                and _grows_by(buf[pos + check.skip :], check)
                and check.pattern.match(buf, pos)
            ):
                return check
        elif check.prefix:
            if (
                buf.startswith(check.prefix, pos)
                and _grows_by(buf[pos + len(check.prefix) :], check)
                and check.pattern.match(buf, pos) is not None
            ):
                return check
        else:
            m = check.pattern.match(buf, pos)
            if m is not None and m.end() == len(buf):
                return check
    return None


# ``_growing`` after the general path left held text in a state with growth checks: the check
# is read (``grows_held``) when the next chunk is text one of them may grow by, on the same
# buffer (nothing changes it in between). Reading it is a search: most such chunks are not.
UNREAD = Growing()


def _held_checks(p: CompiledParser) -> tuple[Growing, ...]:
    """The growth checks of ``p``'s state where it holds text; () where nothing can grow."""
    if not p._grows or p._pos >= len(p._buf):
        return ()
    return p._grows[p.region + 1]


def unread(p: CompiledParser) -> Growing | None:
    """After the general path: ``UNREAD`` where ``p`` holds text in a state with growth
    checks, else None (nothing can grow)."""
    return UNREAD if _held_checks(p) else None


def grown(p: CompiledParser, text: str) -> bool:
    """While ``p`` holds a match that keeps growing (``grows_held``): a chunk it may grow by
    joins the held text, nothing committed (True); else nothing is done (False)."""
    check = p._growing
    if check is UNREAD:
        for c in _held_checks(p):
            if _grows_by(text, c):
                break
        else:
            return False
        check = p._growing = grows_held(p)
    if check is None or not _grows_by(text, check):
        return False
    extend_buffer(p, text)
    return True


def extend_buffer(p: CompiledParser, text: str) -> None:
    """``p._buf += text``, in place where CPython can: with no other reference to the buffer
    (the caller holds none), the string is resized instead of copied, so a held run that keeps
    growing costs its chunks, not its length, per chunk."""
    buf = p._buf
    p._buf = ""  # the only reference left is ours
    buf += text
    p._buf = buf


def continues_held_literal(p: CompiledParser, text: str, fast: tuple[Any, ...]) -> bool:
    """Where the held text (after its leading whitespace, for a \\s*-led watch) is a proper
    prefix of a literal the state watches, with a core character (held_case found it:
    ``_held_literal`` is the state's tuple, the literal, the held text's length and the
    prefix's), and the chunk, which holds none, continues it short of its end: the literal is
    still pending, and held_case would hold the chunk too. It joins the held text (True).
    ``fast``: the state's tuple (``fast_tuple.region_tuple``; item 10, its core characters)."""
    known = p._held_literal
    buf = p._buf
    assert known is not None
    if not (
        known[0] is fast
        and len(buf) == known[2]
        and not p._clean
        and p._growing is None
        and known[3] + len(text) < len(known[1])
        and len(rest := buf if known[3] == known[2] else buf.lstrip(SPACE_STR)) == known[3]
        and known[1].startswith(rest)
        and known[1].startswith(text, known[3])
        and fast[10].isdisjoint(text)
    ):
        # (A record that does not answer is dropped: that never changes what is parsed, and
        # the chunks after this one need not read it again; held_case makes a new one.)
        p._held_literal = None
        return False
    # (step holds the buffer too, so it is copied, not grown in place: it is shorter than the
    # literal.)
    extend_buffer(p, text)
    p._held_literal = (fast, known[1], known[2] + len(text), known[3] + len(text))
    return True


def advance(p: CompiledParser, text: str, committed: int) -> None:
    """The fast path of a parser whose patterns look at consumed text: ``text`` joins the
    buffer and ``committed`` more characters count as consumed; what the patterns can no
    longer see is dropped now and then (all of it is kept where they may see it all)."""
    buf = p._buf
    p._buf = ""  # the only reference left is ours: CPython grows the string in place
    buf += text
    pos = p._pos + committed
    context = p._context
    if context is not None and pos > context + TRIM_SLACK:
        buf = buf[pos - context :]
        pos = context
    p._buf = buf
    p._pos = pos


def flush(p: CompiledParser) -> None:
    """Join the chunks the fast path set aside onto ``p``'s buffer: all consumed (nothing was
    held while they were)."""
    tail = p._tail
    joined = tail[0] if len(tail) == 1 else "".join(tail)
    tail.clear()
    advance(p, joined, len(joined))


def continues_pending(
    p: CompiledParser, text: str, fast: tuple[Any, ...], read: tuple[Any, ...]
) -> bool:
    """Where the held text is what the state's automata read last (``read``, the parser's
    ``_steps``, whose text is the buffer itself: ``fast_path.pending_hold`` makes it so, and a
    string does not change), they read on over the chunk alone; where a match is then still
    pending from the search position, the chunk joins the held text, as ``pending_hold`` has
    it (True: what ``pending.pending_states`` reads on from the same record, without building
    and comparing the held text). Else nothing is done (False). Not in states that keep
    consumed text (the held text is not the buffer there) or have a ``^`` alternative (the fast
    path leaves them to the loop until text is consumed). Past ``pending.MAX_HELD``, a held
    match that keeps growing takes the chunk first (``grown``, as held_case asks it first): it
    grows the buffer in place, where reading on here copies the held text.
    ``fast``: the state's tuple (``fast_tuple.region_tuple``; items 7, 9 and 19)."""
    steps = read[1]
    if steps is not fast[19] or fast[9] or fast[7]:
        return False
    if len(read[0]) >= MAX_HELD and p._growing is not None and grown(p, text):
        return True
    after, sure = read_on(steps, read[2], text)
    whole = read[0] + text
    # What was read, kept either way: where the match is no longer pending, the reads after
    # this one (held_case, _held_pending) find this text in the record and read nothing more.
    p._steps = (whole, steps, after, read[3])
    if not sure:
        return False
    p._buf = whole
    p._clean = False
    p._growing = unread(p)
    return True


def holds_at_pos(p: CompiledParser, text: str) -> bool:
    """Whether, once ``text`` joins ``p``'s buffer, the state's scanner holds everything from
    the search position and finds nothing to commit (``Fast.patterns``): then the general path
    would route and commit nothing (``engine._routed``), and the chunk only joins the held
    text. The scanner is the one the general path runs, on the same buffer and position."""
    pos = p._pos
    buf = p._buf + text
    found = p._scan[p.region + 1](buf, pos, NO_MEMO)
    if found[3] == -1 and found[0] == pos:
        return True
    p._scanned = (buf, pos, p.region, found)  # the general path's scan (see engine._feed)
    return False
