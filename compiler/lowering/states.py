"""The parser's states: which delimiters each one watches, in which order, and its fast path.

State "outside" (the implicit field, or the null sink when there is none) watches every open
and the implicit field's close; the state inside an explicit field watches only its close.
Decides the tie-break rank of each watch (as the reference breaks ties: opens first, then by
field name), the order searches run in (cheapest first), each watch's slot in the
end-of-stream memo, whether nothing can match at the end of the text, and what lets ``feed()``
pass a chunk straight through (``Fast``).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from rtc.runtime.matching import SPACE_CHARS

from ..literals import comment_text
from ..model import Delimiter, Template
from ..plan import CLOSE, Combined, Fast, Shape, State, Watch
from ..regex_syntax import context_bound, min_length, parse
from ..regex_syntax.literal import leading_literals
from .delimiters import MAX_SKIP_CORE, Facts, unguarded_starts, watch
from .namespace import Namespace, identifier

# Cheapest first, as a candidate found early bounds the searches after it: single literals,
# literal lists, other patterns, then patterns led by a literal (skipped when that literal
# cannot start by the candidate). Stable; the rank decides ties anyway.
_ORDER = {
    Shape.LITERAL: 0,
    Shape.LITERAL_PATTERN: 0,
    Shape.LITERAL_SPACES: 0,
    Shape.LITERALS: 1,
    Shape.REGEX_LITERALS: 1,
    Shape.LOOKAHEAD: 2,
    Shape.REGEX: 2,
}
# The shapes found by str.find of one literal (over long text by its rarest character) and held
# by literal_tail of it.
_ONE_LITERAL = (Shape.LITERAL, Shape.LITERAL_PATTERN, Shape.LITERAL_SPACES)
_PARTIAL_SEARCHED = (Shape.REGEX, Shape.REGEX_LITERALS)  # by the regex module in partial mode


def _order(w: Watch) -> int:
    if w.shape is Shape.REGEX and w.pattern is not None and w.pattern.prefix is not None:
        return 3
    return _ORDER[w.shape]


def lower_states(
    ns: Namespace, t: Template, jumpy: bool, context: int | None
) -> tuple[list[State], list[State], int]:
    """The states, the state of each region (by field index + 1; 0: outside explicit
    regions) and the number of memo slots. ``jumpy``: some pattern of the template shows the
    regex module's end-before-start defect (see lowering.context); ``context``: the
    characters of consumed text the parser keeps (``lowering.context``)."""
    memo = 0
    states: list[State] = []
    table: dict[int, State] = {}
    suffixes: set[str] = {"outside"}
    found: list[tuple[Watch, Facts | None]] = []
    # Outside: every open in tie-break order (opens first, then by field name as a plain
    # string), then the implicit field's close.
    opens = sorted((f for f in t.fields if f.open is not None), key=lambda f: f.name)
    for rank, f in enumerate(opens):
        assert f.open is not None
        found.append(watch(ns, f.open, "open", f, f.index, rank, 0))
    if t.implicit is not None and t.implicit.close is not None:
        found.append(watch(ns, t.implicit.close, "close", t.implicit, CLOSE, len(opens), 0))
    where = (
        f"the implicit field {comment_text(t.implicit.name)}"
        if t.implicit
        else "the null sink (no implicit field: text here is dropped)"
    )
    doc = f"Outside explicit regions: {where}."
    delims = [d for f in opens if (d := f.open) is not None]
    if t.implicit is not None and t.implicit.close is not None:
        delims.append(t.implicit.close)
    outside, memo = _state(ns, found, "outside", doc, memo, jumpy, drops(delims, context))
    states.append(outside)
    table[-1] = outside
    for f in t.fields:
        if f.implicit:
            table[f.index] = outside
            continue
        suffix = identifier(f.name, suffixes, "in_")
        found = []
        if f.close is not None:
            found.append(watch(ns, f.close, "close", f, CLOSE, 0, 0))
            doc = f"Inside {comment_text(f.name)}: only its close is watched."
        else:
            doc = f"Inside {comment_text(f.name)}: no close, the region runs to the end."
        delims = [] if f.close is None else [f.close]
        state, memo = _state(ns, found, suffix, doc, memo, jumpy, drops(delims, context))
        states.append(state)
        table[f.index] = state
    return states, [table[i] for i in range(-1, len(t.fields))], memo


def _state(
    ns: Namespace,
    found: list[tuple[Watch, Facts | None]],
    suffix: str,
    doc: str,
    memo: int,
    jumpy: bool,
    dropped: bool,
) -> tuple[State, int]:
    ordered = sorted(found, key=lambda pair: _order(pair[0]))
    watches = []
    for w, _ in ordered:
        watches.append(replace(w, memo=memo))
        memo += 1
    _import_ahead(ns, watches)
    facts = [facts for _, facts in ordered]
    fast = _fast(facts)
    if any(f is not None and f.guarded is not None for f in facts):
        # With a look-behind's character counted (lowering.delimiters.pattern_facts), fewer
        # chunks leave the fast path. But after the general path consumed that character, the
        # next chunk takes the general path again: a whitespace run held right after it would
        # be searched anew at every chunk. Where the state holds runs without a search (star,
        # runs), it keeps the facts without guards.
        if fast is None or not (fast.star or fast.runs):
            fast = _fast([f if f is None or f.guarded is None else f.guarded for f in facts])
    if fast is not None:
        pending = pending_literals(watches)
        fast = replace(fast, pending=pending)
        if literals_only(watches, pending):
            fast = replace(fast, literals=True, why=fast.why + "; its literals found there")
        if not jumpy:
            fast = replace(fast, patterns=pending_patterns(watches))
        if fast.patterns:
            fast = replace(fast, steps=pending_steps(ns, watches))
        starts = start_literals(watches, fast.behind, fast.late)
        if starts is not None:
            why = "; with one, what comes before where a delimiter's leading literal may begin"
            fast = replace(
                fast,
                starts=starts[0],
                starts_text=starts[1],
                starts_led=starts[2],
                starts_led_text=starts[3],
                why=fast.why + why,
            )
        if dropped:
            fast = replace(fast, drops=True, why=fast.why + "; consumed text is not kept here")
    skip = scan_skip(watches)
    if skip and len(watches) > 1:
        # (The streaming scanner of several watches tests the skip first, short spans only, as
        # a pattern's own guard is: where the guard's characters are the skip's, it would test
        # them again, and always pass. Under a memo neither tests.)
        watches = [
            replace(w, needs=None) if w.needs is not None and w.needs[0] == skip else w
            for w in watches
        ]
    state = State(
        suffix=suffix,
        doc=doc,
        watches=tuple(watches),
        fast=fast,
        empty_at_end=bool(watches) and not jumpy and not any(w.can_be_empty for w in watches),
        long_text=any(w.shape in _ONE_LITERAL for w in watches),
        combined=_combined(ns, suffix, watches),
        growing=tuple(g for w in watches for g in w.growing),
        streamed=streamed(watches),
        skip=skip,
    )
    return state, memo


def scan_skip(watches: list[Watch]) -> str:
    r"""The characters (sorted) one of which a state's streaming scanner needs in the text from
    the search position on to find anything: "" where it always searches.

    A literal's complete match begins with its first character, and so does a partial one (a
    proper prefix of it at the end of the text, ``matching.literal_tail``): where the text
    from the search position holds none of a literal's (or a literal list's) first characters,
    the scanner finds neither, and holds nothing for it. A pattern's search is skipped where
    none of its core characters occurs and no lead character ends the text
    (``delimiters.skippable``); with no lead characters, the same test. So where every watch
    of the state is one of those and no character of the union occurs, the scanner's answer
    is known: nothing to hold (``hold`` is the end of the text) and no candidate; it returns
    that at once, before any search. Not where a watch matches the empty string at the end
    (``R|$``), reads back over whitespace (``\s*REST``), has lead characters or another shape,
    nor for more than four characters (one ``str.find`` each)."""
    chars: set[str] = set()
    for w in watches:
        if w.end or w.back_over_ws:
            return ""
        if w.literal is not None and w.shape in _ONE_LITERAL and w.literal.text:
            chars.add(w.literal.text[0])
        elif w.literals is not None and w.shape is Shape.LITERALS and all(w.literals.texts):
            chars.update(text[0] for text in w.literals.texts)
        elif w.shape is Shape.REGEX and w.needs is not None and w.needs[0] and not w.needs[1]:
            chars.update(w.needs[0])
        else:
            return ""
    return "".join(sorted(chars)) if len(chars) <= MAX_SKIP_CORE else ""


def streamed(watches: list[Watch]) -> tuple[Watch, ...]:
    """The order of a state's searches while streaming: the patterns searched in partial mode
    first, then the others (each group in the end-of-stream order).

    The streaming scanner's answer does not depend on the order (a candidate is kept by its
    span and rank, the hold is the least start). But once one delimiter's match is pending
    from the search position, the answer is known: nothing can be committed (every candidate
    starts there or later, at or after the hold), and the scanner returns at once (search.j2).
    Text held from the search position is most often the growing partial match of a pattern
    (a call's opening written token by token; text held as the start of a literal stays held
    before the scanner runs: ``pending_literals``), and such a search is the costliest of a
    state, so it goes first. At the end of the stream, the cheapest go first (``_ORDER``):
    what they find bounds the searches after them."""
    first = [w for w in watches if w.shape in _PARTIAL_SEARCHED and not w.end]
    return (*first, *(w for w in watches if w not in first))


def drops(delims: list[Delimiter], context: int | None) -> bool:
    """Whether a state watching ``delims`` may drop the consumed text that a parser keeping
    ``context`` characters of it (``lowering.context``) keeps elsewhere (``Fast.drops``).

    Consumed text is read by later searches only: this state's own (none of its delimiters
    reads before its search position: a ``context_bound`` of 0), and those of the states after
    it. The state is left only by a match of one of its delimiters, found by a search in the
    buffer from the search position; that match consumed at least ``min_length`` characters of
    the buffer (look-arounds and ``\\K`` count for nothing: what the attempt consumed from
    where it began). The next state's searches start at its end or later and read at most
    ``context`` characters back: inside that match when every delimiter consumes at least
    ``context``. So what was consumed before the search position is never read again, and the
    state keeps none of it, as a parser of context 0 does. A field without a close is never
    left: nothing reads after it. ``^`` (which a kept character keeps from matching at a
    trimmed buffer's start) has a context bound of 1: its state keeps text; the state after a
    match of a delimiter searches from past that match's first character, where ``^`` fails.
    """
    if not context:
        return False  # 0: nothing is kept anywhere; None: everything is (no bound is known)
    for d in delims:
        tree = parse(d.pattern)
        if context_bound(tree) != 0 or min_length(tree) < context:
            return False
    return True


def _import_ahead(ns: Namespace, watches: list[Watch]) -> None:
    """The ``rtc.runtime.ahead`` helpers the state's searches call (see search.j2): where it
    watches several delimiters (one watch alone needs no memo: what it finds ends its region,
    or the pass), and always for ``R|$``/``R|\\Z`` and for the literal a look-ahead looks for
    (searched by the same code in both kinds of state)."""
    for w in watches:
        if not (len(watches) > 1 or w.end or w.shape is Shape.LOOKAHEAD):
            continue
        if w.shape is Shape.LITERALS:
            ns.imports.add("ahead", "any_ahead")
        elif w.literal is not None:
            ns.imports.add("ahead", "find_rare_ahead")
        elif w.remembered:
            ns.imports.add("ahead", "search_ahead")


_ONE_SEARCH = (*_ONE_LITERAL, Shape.LITERALS)


def pending_literals(watches: list[Watch]) -> tuple[tuple[str, bool], ...]:
    r"""The literal-shaped watches of a state that keep held text held (``Fast.pending``): the
    constant each searches, and whether it is led by ``\s*``.

    After the general path, the held text starts at the search position (everything before it
    was routed). If the held text and the next chunk together are (after leading whitespace, for
    a ``\s*``-led watch) a proper prefix of one of a watch's literals, that watch reports a
    partial match starting at the search position: no complete occurrence of its own literals
    hides it (a literal list qualifies only when none of its literals occurs inside another;
    not ``R|$`` nor ``R|\Z``, whose end alternative hides R's partial matches),
    so the state's hold is the search position, and every complete match of any delimiter,
    which starts there or later, waits (the reference's rule: a match at or after a pending one
    is not committed). The general path would then route nothing and commit nothing: the fast
    path appends the chunk to the held text instead (``runtime.fast_path.held_case``).

    A pattern every match of which begins with a literal (its ``_PREFIX``, from
    ``regex_syntax.fast_paths.literal_prefix``: a pattern in the subset without assertions)
    counts the same way: text that is a proper prefix of that literal holds no complete match
    (each is longer), so the regex module's partial-mode search, which prefers a complete
    match anywhere, finds none and reports the partial match at the search position, where
    the pattern runs into the end of the text inside its literal."""
    found = []
    for w in watches:
        if w.end:
            continue  # (R|$, R|\Z: R's partial matches never count while streaming)
        if w.shape is Shape.REGEX and w.pattern is not None and w.pattern.prefix is not None:
            found.append((w.pattern.prefix.name, w.back_over_ws))
            continue
        if w.shape not in _ONE_SEARCH:
            continue
        name, texts = _searched(w)
        if any(a != b and a in b for a in texts for b in texts):
            continue
        found.append((name, w.back_over_ws))
    return tuple(found)


def pending_patterns(watches: list[Watch]) -> bool:
    r"""Whether a pattern watch of the state may hold text at the search position
    (``Fast.patterns``): a partial match there (after whitespace only, for a ``\s*``-led one),
    or a complete one there that reaches the end and may still grow. After the general path,
    the held text starts at the search position ``h``; the fast path then asks the state's own
    scanner, on the held text and the chunk, and where it holds everything from ``h`` with
    nothing to commit, the general path would route and commit nothing. Not for ``R|$`` nor
    ``R|\Z`` alone (R's partial matches never count), nor a template with a pattern whose match
    can end before its start (``jumpy``: its partial matches are read apart)."""
    return any(
        w.shape in (Shape.REGEX, Shape.REGEX_LITERALS) and not w.end and w.streamed for w in watches
    )


def pending_steps(ns: Namespace, watches: list[Watch]) -> tuple[str, ...]:
    """The position automata (``regex_syntax.positions``) of the pattern watches
    ``pending_patterns`` counts, where they have one: the pattern each searches while streaming
    (``Watch.streamed``). Where one reads the held text from the search position as a match
    pending there, the state's scanner returns at once holding everything (its partial-mode
    search of that watch reports the match there: ``rtc.runtime.pending``), so the fast path
    need not run it. One automaton suffices; the others are not needed for the answer."""
    names = []
    for w in watches:
        if w.shape in _PARTIAL_SEARCHED and not w.end and w.streamed is not None:
            name = ns.pattern_steps(w.streamed, lead=w.back_over_ws)
            if name is not None and name not in names:
                names.append(name)
    return tuple(names)


# The literal shapes whose every match begins with the literal (or one of the list) searched.
_STARTS_LITERAL = (Shape.LITERAL, Shape.LITERALS, Shape.LITERAL_PATTERN, Shape.LITERAL_SPACES)
# The most literals Fast.starts checks a chunk for, one str.find each (a template's list of
# thousands of literals is searched by the general path's windowed search instead).
MAX_STARTS = 16


def start_literals(
    watches: list[Watch], behind: str = "", late: bool = False
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None:
    r"""The literals every match of every watch, complete or partial, begins with, for
    ``Fast.starts``: the constants of the literal watches (names) and the leading literals of
    the pattern watches (text); then the same for the watches led by ``\s*``. None where that
    is not known for some watch.

    A literal or literal list (no end alternative; also a pattern that is one literal, and a
    literal followed by ``\s*``) begins each match with one of its literals.
    A pattern searched as itself (``Shape.REGEX``, or its rest after ``\s*``) does where it
    has leading literals (``regex_syntax.literal.leading_literals``: ``<a>...``, or
    ``(?:<a>...)?<b>...``). Then, in text from the search position: a match starts at an
    occurrence of one of the literals (led by ``\s*``: at the whitespace run before it); a
    partial match exactly where the text from there is a proper prefix of one (the watch's
    attempt runs into the end of the text inside the literal: a literal's own partial match,
    the pattern's first characters), or, led by ``\s*``, where such a prefix, or the end of the
    text, follows a whitespace run (the run is where it starts).

    So where none of the literals occurs, the general path finds no match: it holds the text
    from the leftmost such start (none: nothing) and commits what comes before
    (``runtime.matching.starts_hold``).

    A pattern some of whose branches begin with ``^`` or a guard look-behind gives the other
    branches' literals (``delimiters.unguarded_starts``) where the state's fast path rules
    those branches out: ``late`` for ``^``, and each guard's characters in ``behind`` (the
    fast path then looks for them: ``runtime.fast_path._core_case``)."""
    found: tuple[list[str], list[str], list[str], list[str]] = ([], [], [], [])
    for w in watches:
        if w.end:
            return None
        led = 2 if w.back_over_ws else 0
        if w.shape in _STARTS_LITERAL:
            found[led].append(_searched(w)[0])
            continue
        if w.shape is not Shape.REGEX or w.pattern is None:
            return None
        source = ast.literal_eval(w.pattern.source)
        leading = leading_literals(parse(source))
        if leading is None:
            unguarded = unguarded_starts(source)
            if unguarded is None:
                return None
            leading, guards, anchored = unguarded
            if not guards <= set(behind) or (anchored and not late):
                return None
        found[led + 1].extend(leading)
    names, texts, led_names, led_texts = (tuple(dict.fromkeys(x)) for x in found)
    count = sum(len(w.literals.texts) for w in watches if w.literals is not None)
    if count + len(names) + len(texts) + len(led_names) + len(led_texts) > MAX_STARTS:
        return None  # a chunk would be searched for each: the general path's search is cheaper
    return names, texts, led_names, led_texts


def literals_only(watches: list[Watch], pending: tuple[tuple[str, bool], ...]) -> bool:
    r"""Whether the fast path may ask the state's scanner over the held text and the chunk
    alone (``Fast.literals``): every watch a literal or literal list searched with
    ``str.find`` (LITERAL, LITERALS), not led by ``\s*`` and without an end alternative, so
    none reads before the search position; each in ``pending`` (none of a list's literals
    inside another), as the held-literal check needs. ``runtime.fast_path.held_case`` then
    routes what the scanner would route, and leaves a match to the general path."""
    if not watches or len(pending) != len(watches):
        return False
    return all(
        w.shape in (Shape.LITERAL, Shape.LITERALS) and not w.back_over_ws and not w.end
        for w in watches
    )


def _searched(w: Watch) -> tuple[str, tuple[str, ...]]:
    """The constant a literal-shaped watch searches for (its name) and the literals it holds."""
    if w.literal is not None:
        return w.literal.name, (w.literal.text,)
    if w.literals is not None:
        return w.literals.name, w.literals.texts
    raise ValueError(f"a {w.shape.name} watch holds no literal")


def _combined(ns: Namespace, suffix: str, watches: list[Watch]) -> Combined | None:
    """One ``re`` search for all of a state's delimiters at the end of the stream, where it is
    provably the reference's choice; else None.

    For delimiters made of literals (each optionally led by ``\\s*`` or followed by ``\\s*``)
    none of which is a prefix of another and, when one is led by ``\\s*``, none of which begins
    with whitespace, at most one delimiter can match at any position: two literals matching at
    one position would make one a prefix of the other, and a match led by whitespace starts
    where no literal can. The reference takes the leftmost match of every delimiter, then the
    earliest (then the longest, then by rank: moot here); the leftmost match of their
    alternation is that one, whichever order the alternatives come in. Literals and ``\\s``
    (written out as the set ``regex`` reads: ``matching.one_search``) read alike in ``re``.
    Long spans keep the searches by literal (``find_literal``), which ``re`` cannot beat.
    """
    if len(watches) < 2 or any(w.shape not in _ONE_SEARCH or w.end or w.captures for w in watches):
        return None
    searched = [_searched(w) for w in watches]
    texts = [text for _, held in searched for text in held]
    # Sorted, the texts a literal is a prefix of come right after it: adjacent pairs suffice
    # (a state of a template with thousands of fields watches thousands of opens).
    ordered = sorted(texts)
    if any(b.startswith(a) for a, b in zip(ordered, ordered[1:], strict=False)):
        return None
    if any(w.back_over_ws for w in watches) and any(t[0] in SPACE_CHARS for t in texts):
        return None
    parts = [
        (const, w.back_over_ws, w.shape is Shape.LITERAL_SPACES)
        for w, (const, _) in zip(watches, searched, strict=True)
    ]
    ns.imports.add("matching", "LONG_SPAN", "one_search")
    name = ns.name(f"eos_{suffix}", "_TARGETS")
    return Combined(name, tuple(parts), tuple(w.target for w in watches))


def _fast(facts: list[Facts | None]) -> Fast | None:
    """The state's fast path: the union of its delimiters' facts, when each has them. The
    trailing run of lead characters is held back exactly (``star``) where every lead character
    is whitespace and some delimiter is led by ``\\s*`` (``Facts.star``): in text without a
    core character, that delimiter's partial match starts where the trailing whitespace run
    does, and no partial match can start before it (it covers only lead characters); else a
    chunk ending in a lead character takes the general path."""
    if any(f is None for f in facts):
        return None
    known = [f for f in facts if f is not None]
    core = "".join(sorted(set().union(*(f.core for f in known))))
    lead = "".join(sorted(set().union(*(f.lead for f in known))))
    star = bool(lead) and set(lead) <= SPACE_CHARS and any(f.star for f in known)
    # A held whitespace run stays held (Fast.runs): every delimiter's alternatives fail at
    # whitespace or are led by \s* after look-behinds, and whitespace is never needed. (With
    # star the fast path holds every trailing run itself.)
    runs = (
        not star
        and bool(lead)
        and set(lead) <= SPACE_CHARS
        and not set(core) & SPACE_CHARS
        and all(f.runs for f in known)
    )
    dollar = any(f.dollar for f in known)
    late = any(f.late for f in known)
    # Only a guard's characters matter just before the search position: every other match
    # needs its core character at or after its own start (see Fast.behind).
    behind = "".join(sorted(set().union(*(f.behind for f in known))))
    if not known:
        why = "nothing is watched"
    else:
        why = f"a chunk without {comment_text(core)} cannot complete a delimiter"
        if star:
            why += "; trailing whitespace may begin one: it waits"
        elif runs:
            why += "; a whitespace run held back stays held while whitespace follows"
        elif lead:
            why += f"; one ending in {comment_text(lead, 20)} may begin one: the general path"
        if dollar:
            why += "; a final newline may be where $ matches"
        if late:
            why += "; a ^ alternative counts until text is consumed"
        if behind:
            what = comment_text(behind) if len(behind) == 1 else f"one of {comment_text(behind)}"
            why += f"; nor one right after a consumed {what} (a look-behind reads it)"
    return Fast(core, lead, star, dollar, late, why, runs, behind=behind)
