"""How each delimiter is searched: the ``Watch`` for one open or close in one state.

The reference searches every delimiter with the ``regex`` module, in partial mode while
streaming (complete matches first, else the leftmost partial one) and plainly at the end of
the stream. Where a delimiter has a known shape it is found instead with ``str.find`` and its
relatives, in both modes, each shape with its argument:

- a single literal, or a pattern that is only a literal (``literal_text``): ``find``; while
  streaming, the leftmost partial match is the longest suffix of the text that is a proper
  prefix of the literal (``literal_tail``). A literal delimiter's complete match is final at
  once; a pattern's waits at the buffer's end (the reference's "can grow" rule);
- ``L\\s*`` (``literal_then_spaces``): ``find`` of L, then the whitespace run after it (greedy,
  and nothing follows it); its partial match is L's;
- a literal list, or an alternation of literals none of which is a prefix of another
  (``literal_alternatives``): the leftmost occurrence of any, the longest there
  (``matching.find_any``); while streaming, complete-first, then the leftmost partial of any
  (``tail_any``). A long list (more than ``MAX_FIND_LITERALS``) is one regex search;
- ``(?=[\\s\\S]*?L)`` (``lookahead_literal``): an empty match at the search position when L
  occurs ahead, else (streaming) a partial match holding everything from there;
- ``\\s*REST`` (``whitespace_led``): REST's match (complete or partial), extended back over the
  whitespace before it. REST cannot begin with whitespace, so the whitespace before a later
  match of REST cannot reach back past an earlier one: the leftmost match of the whole is
  REST's leftmost, extended; and a partial match of the whole is whitespace, then a partial
  match of REST (possibly empty at the end), the leftmost being REST's leftmost, extended;
- ``R|$`` and ``R|\\Z`` (``dollar_alternative``): R's match when it starts at or before the
  first position where the end alternative holds (``$``: before a final newline, else at the
  end; ``\\Z``: at the end), else the empty match there. While streaming, the end alternative
  always gives a complete match, so R's partial matches never count (complete-first): R's
  complete match decides, as at the end of the stream;
- anything else: the pattern itself, with the regex module (at the end of the stream its ``re``
  twin where it has one, and over long text a jump between occurrences of its literal prefix).

Also what the fast path of ``feed()`` may assume of the delimiter (``Facts``): the characters
every match contains, and those that may come before the first of them (``pattern_facts``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import TypedDict

from rtc.runtime.matching import SPACE_CHARS

from ..literals import comment_text
from ..model import Delimiter, Field
from ..plan import Growing, Shape, Watch
from ..regex_syntax import CharSet, parse, start_sensitive
from ..regex_syntax import nodes as rn
from ..regex_syntax.fast_paths import (
    dollar_alternative,
    first_fragments,
    literal_alternatives,
    literal_text,
    literal_then_spaces,
    lookahead_literal,
    whitespace_led,
)
from ..regex_syntax.growth import growths
from ..regex_syntax.literal import leading_literals
from ..regex_syntax.needs import needs
from ..regex_syntax.runs import run_led, run_skipping, runs_stay
from .context import jumps_back
from .namespace import Namespace

MAX_FIND_LITERALS = 8
"""Literal lists longer than this are searched by the regex module (one scan of the text)
rather than by one ``str.find`` per literal."""


@dataclass(frozen=True)
class Facts:
    """What the fast path may assume of one delimiter (see ``rtc.runtime.fast_path.Fast``):
    every match needs one of ``core`` (in it, or just after it for a look-ahead), and a match
    attempt reads only ``lead`` characters before it. ``star``: an alternative is led by
    ``\\s*`` (``regex_syntax.runs.run_led``), so in text without ``core`` a partial match
    starts exactly where a trailing whitespace run does.
    ``dollar``: a ``$`` alternative, which also matches before a final newline."""

    core: frozenset[str]
    lead: frozenset[str] = frozenset()
    star: bool = False
    dollar: bool = False
    late: bool = False  # an alternative begins with ^: it can match at the buffer's start only
    runs: bool = False  # a held whitespace run stays held (regex_syntax.runs.runs_stay)
    ends: bool = False  # an alternative is $ or \Z: the whole pattern matches at the end
    # The characters one of which stands just before the match of an alternative that begins
    # with a guard (pattern_facts); empty for none.
    behind: frozenset[str] = frozenset()
    # The facts with guards, where they differ (lowering.states picks per state).
    guarded: Facts | None = None


class _Placing(TypedDict):
    """The ``Watch`` fields every shape sets alike: where it sits among the state's watches."""

    comment: str
    target: int
    rank: int
    memo: int


class _PatternFlags(TypedDict):
    """The ``Watch`` fields a pattern's rewriting decides (``\\s*`` lead, end alternative)."""

    back_over_ws: bool
    end: str
    captures: bool
    can_be_empty: bool


def describe(delim: Delimiter) -> str:
    """A delimiter as comments show it (shortened, escaped by ``comment_text``)."""
    if delim.single_literal is not None:
        return f"literal {comment_text(delim.single_literal)}"
    if delim.is_literal:
        shown = ", ".join(comment_text(x, 30) for x in delim.literals[:6])
        more = ", ..." if len(delim.literals) > 6 else ""
        return f"literals [{shown}{more}]"
    return f"pattern {comment_text(delim.pattern)}"


def watch(
    ns: Namespace, delim: Delimiter, role: str, f: Field, target: int, rank: int, memo: int
) -> tuple[Watch, Facts | None]:
    """The watch of ``delim`` (``role``: "open" or "close" of ``f``), opening ``target``; and
    what the fast path may assume of it (None: nothing), with whether a whitespace run it holds
    stays held (``Facts.runs``, read from the delimiter's whole pattern, whatever its shape:
    ``regex_syntax.runs.runs_stay``)."""
    w, facts = _shaped_watch(ns, delim, role, f, target, rank, memo)
    if facts is not None and runs_stay(delim.pattern):
        guarded = facts.guarded and replace(facts.guarded, runs=True)
        facts = replace(facts, runs=True, guarded=guarded)
    return replace(w, growing=_growing(ns, delim, w, f"{role}_{f.name}")), facts


def _growing(ns: Namespace, delim: Delimiter, w: Watch, stem: str) -> tuple[Growing, ...]:
    """How the runtime checks that the delimiter's held match keeps growing through appended
    whitespace (``regex_syntax.growth``), with the compiled pattern each check needs (the
    watch's own where it searches the whole delimiter)."""
    out: list[Growing] = []
    for found in growths(delim.pattern):
        if found.complete and not w.grows:
            continue  # (a complete match at the end that is not held holds nothing)
        ns.imports.add("engine", "Growing")
        run = None
        if found.run:
            comment = f"{w.comment}: what its held match grows by"
            suffix = "_run" if not out else f"_run_{len(out) + 1}"
            run = ns.pattern(f"{stem}{suffix}", comment, f"(?:{found.run})*").name
        if found.pattern is None:
            out.append(Growing(literals=found.literals, stops=found.stops, run=run))
            continue
        own = w.streamed
        if found.whole and own is not None and own.source == repr(delim.pattern):
            out.append(Growing(pattern=own.name, stops=found.stops, run=run))
            continue
        comment = f"{w.comment}: held while what follows keeps it growing"
        suffix = "_grows" if not out else f"_grows_{len(out) + 1}"
        name = ns.pattern(f"{stem}{suffix}", comment, found.pattern).name
        out.append(
            Growing(pattern=name, prefix=found.prefix, stops=found.stops, run=run, skip=found.skip)
        )
    return tuple(out)


def _shaped_watch(
    ns: Namespace, delim: Delimiter, role: str, f: Field, target: int, rank: int, memo: int
) -> tuple[Watch, Facts | None]:
    """``watch`` by the delimiter's shape (literal, literal list, pattern...)."""
    comment = f"{role} {comment_text(f.name)}: {describe(delim)}"
    stem = f"{role}_{f.name}"
    base = _Placing(comment=comment, target=target, rank=rank, memo=memo)
    single = delim.single_literal
    if single is not None:
        const = ns.literal_const(stem, comment, single)
        ns.imports.add("matching", "LONG_SPAN", "literal_tail")
        ns.imports.add("ahead", "find_rare_ahead")
        w = Watch(
            shape=Shape.LITERAL,
            literal=const,
            grows=False,
            can_be_empty=False,
            how="str.find",
            **base,
        )
        return w, Facts(frozenset(single[0]))
    if delim.is_literal:
        if len(delim.literals) <= MAX_FIND_LITERALS:
            found = ns.literal_list(f"{stem}_literals", comment, delim.literals)
            ns.imports.add("matching", "LONG_SPAN", "find_any", "tail_any")
            w = Watch(
                shape=Shape.LITERALS,
                literals=found,
                grows=delim.can_extend,
                can_be_empty=False,
                how="str.find of each literal",
                **base,
            )
        else:
            pattern = ns.pattern(stem, comment, delim.pattern)
            w = Watch(
                shape=Shape.REGEX_LITERALS,
                pattern=pattern,
                streamed=pattern,
                maxlen=max(map(len, delim.literals)),
                grows=delim.can_extend,
                can_be_empty=False,
                how="the regex module",
                **base,
            )
        return w, Facts(frozenset(x[0] for x in delim.literals))
    ahead = lookahead_literal(delim.pattern)
    if ahead is not None:
        const = ns.literal_const(f"{stem}_ahead", f"{comment}: the literal it looks for", ahead)
        ns.imports.add("matching", "LONG_SPAN", "find_literal")
        return Watch(shape=Shape.LOOKAHEAD, literal=const, how="str.find", **base), None
    return _pattern_watch(ns, delim, role, stem, comment, base)


def _pattern_watch(
    ns: Namespace, delim: Delimiter, role: str, stem: str, comment: str, base: _Placing
) -> tuple[Watch, Facts | None]:
    source = delim.pattern
    end = ""
    back_over_ws = False
    alternative = dollar_alternative(source)
    if alternative is not None:
        source, is_dollar = alternative
        end = "$" if is_dollar else "Z"
        stem, comment = f"{stem}_alternative", f"{comment}, its first part"
    rest = whitespace_led(source)
    if rest is not None:
        source, back_over_ws = rest, True
        stem, comment = f"{stem}_after_ws", f"{comment}, after its leading \\s*"
        ns.imports.add("matching", "SPACE_CHARS")
    groups = bool(delim.group_names) and role == "open"
    flags = _PatternFlags(
        back_over_ws=back_over_ws,
        end=end,
        captures=groups,
        can_be_empty=first_fragments(delim.pattern) is None,
    )
    how = ""
    literal = literal_then_spaces(source)
    shape = Shape.REGEX
    w: Watch
    if literal is not None:
        const = ns.literal_const(stem, f"{comment}: its literal", literal)
        ns.imports.add("matching", "LONG_SPAN", "literal_tail", "match_spaces")
        ns.imports.add("ahead", "find_rare_ahead")
        shape, how = Shape.LITERAL_SPACES, "str.find, then the whitespace after it"
        w = Watch(shape=shape, literal=const, **flags, **base)
        core: frozenset[str] | None = frozenset(literal[0])
    elif (literal := literal_text(source)) is not None:
        const = ns.literal_const(stem, f"{comment}: a literal", literal)
        ns.imports.add("matching", "LONG_SPAN", "literal_tail")
        ns.imports.add("ahead", "find_rare_ahead")
        shape, how = Shape.LITERAL_PATTERN, "str.find"
        w = Watch(shape=shape, literal=const, **flags, **base)
        core = frozenset(literal[0])
    elif (alternatives := literal_alternatives(source)) is not None and len(
        alternatives
    ) <= MAX_FIND_LITERALS:
        found = ns.literal_list(f"{stem}_literals", f"{comment}: its literals", alternatives)
        ns.imports.add("matching", "LONG_SPAN", "find_any", "tail_any")
        shape, how = Shape.LITERALS, "str.find of each literal"
        w = Watch(shape=shape, literals=found, **flags, **base)
        core = frozenset(x[0] for x in alternatives)
    else:
        # Behind a guard that skips the inside of whitespace runs where that is proved to
        # find the same matches (regex_syntax.runs): a run then costs one pass, not n²/2.
        guarded = run_skipping(source, parse(source))
        if guarded is not None and jumps_back(guarded) != jumps_back(source):
            guarded = None
        plain = guarded is None
        pattern = ns.pattern(stem, comment, guarded or source, led=plain, twin=plain)
        engine = "the regex module" + ("" if plain else " (inside whitespace runs skipped)")
        if pattern.twin is not None:
            engine += (
                " (its re twin on ASCII text)" if pattern.twin.ascii_only else " (its re twin)"
            )
        how = engine + (" (long text: between its literal prefix)" if pattern.prefix else "")
        searched = guarded or source
        # Remembered over a long span only where a match at a position depends on nothing
        # but the text (rtc.runtime.ahead): not where it depends on where the search started.
        remembered = not start_sensitive(parse(searched)) and not jumps_back(searched)
        w = Watch(
            shape=shape,
            pattern=pattern,
            streamed=pattern,
            remembered=remembered,
            **flags,
            **base,
        )
        core = None
    if back_over_ws:
        how += ", back over leading whitespace"
    if end:
        how += ", or the empty match at the end"
    w = replace(w, how=how)
    facts = Facts(core) if core is not None else pattern_facts(source)
    if facts is None:
        return w, None
    if shape is Shape.REGEX:
        w = replace(w, needs=skippable(w, facts))
    if core is None and not end and not back_over_ws:
        # The fast path may count a look-behind's character (see pattern_facts); the skipped
        # search may not: it reads from the search position on.
        with_guards = pattern_facts(source, guards=True)
        if with_guards is not None and with_guards != facts:
            facts = replace(facts, guarded=with_guards)
    if end:
        # R|$: R's partial matches never count (see the module docstring), so nothing leads.
        return w, Facts(facts.core, dollar=end == "$", late=facts.late)
    if back_over_ws:
        # \s*REST: whitespace, then a match of REST (which cannot begin with whitespace).
        lead = facts.lead | SPACE_CHARS
        return w, Facts(facts.core, lead, star=not facts.lead, late=facts.late)
    return w, facts


def skippable(w: Watch, facts: Facts) -> tuple[str, str] | None:
    r"""When a pattern's partial-mode search (the costliest step of a streaming scanner: a
    regex call with a keyword argument, about three times a plain search) may be skipped:
    (core, lead) characters, or None.

    The fast path's argument (``runtime.fast_path.Fast``), for one delimiter and the text from the
    search position: every match of the searched pattern needs a ``core`` character, and an
    attempt reads only ``lead`` characters before one. So where that text holds no core
    character, nothing matches completely; and a partial match (which runs to the end of the
    text) covers only lead characters, so it is empty unless the text ends in one. The regex
    module then finds the empty partial match at the end, which neither holds nor commits
    anything: skipping the search, as if it had found nothing, is the same. Not where an
    alternative is ``^`` (not in ``core``), ``$`` or ``\Z`` (a complete empty match at the
    end), nor where the watch uses the match's position beyond that (``\s*REST``: whitespace
    before an empty partial match is held; ``R|$``), nor for more than four core characters
    (one ``str.find`` each)."""
    if facts.late or facts.ends or facts.dollar or w.back_over_ws or w.end:
        return None
    if len(facts.core) > MAX_SKIP_CORE:
        return None
    return "".join(sorted(facts.core)), "".join(sorted(facts.lead))


MAX_SKIP_CORE = 4
"""The most core characters a skippable search is tested for (one ``str.find`` each)."""

MAX_LEAD = 64
"""A lead of more characters than this (``[^<]*``, ``\\w+``...) gives no fast path: a chunk
would end in one of them nearly always."""


@functools.lru_cache(maxsize=512)
def pattern_facts(pattern: str, guards: bool = False) -> Facts | None:
    r"""What every match of ``pattern`` needs (``regex_syntax.needs``), or None where that is
    not known. A top-level alternative ``$`` matches at the end of the text or before a final
    newline, ``\Z`` at the end only: either makes the whole pattern match at the end, so none
    of its partial matches counts (complete-first) and nothing of it leads. ``star``: some
    alternative is led by ``\\s*`` (``regex_syntax.runs.run_led``). An alternative that
    begins with ``^`` (no MULTILINE) can only match at the buffer's start: once text was
    consumed, the search position is past it for good (the parser then keeps context, at least
    one character, before it: ``^`` reads there), so the fast path may ignore it (``late``).

    With ``guards`` (the facts of the fast path of ``feed()``, not of a skipped search):
    alternatives of a group that begins a branch count as branches of their own, each followed
    by the rest of it (``(?:A|B)C`` is ``AC|BC``: the same matches, read in the same order), so
    that a ``^`` or a look-behind there begins one. A branch that begins with a look-behind
    reading one character of a few (``(?<=\})``, ``(?<=[}"])``: ``_guard``) matches only just
    after one of them: those are its core, and it leads nothing (``behind``). The fast path
    then also needs the character before the text it passes not to be one of them: every chunk
    it commits holds none, and after the general path the parser checks the last consumed
    character (``rtc.runtime.engine.CompiledParser._settle``). So ``(?<=\})\s*,`` needs a
    ``}`` where it needed a ``,`` led by whitespace, which prose ends chunks with."""
    tree = parse(pattern)
    if tree.error or not tree.known:
        return None
    root = tree.root
    while isinstance(root, rn.Group) and root.kind in (rn.GROUP, rn.CAPTURE, rn.ATOMIC):
        root = root.body  # (?:A|B) alone is A|B for what its matches need
    branches = root.branches if isinstance(root, rn.Alt) else (root,)
    if guards:
        branches = _distributed(branches)
    core: set[str] = set()
    lead: set[str] = set()
    ends = dollar = late = star = False
    behind: set[str] = set()
    for branch in branches:
        if isinstance(branch, rn.Assert) and branch.kind in (rn.END, rn.END_OR_NEWLINE):
            ends = True
            dollar = dollar or branch.kind == rn.END_OR_NEWLINE
            continue
        head = branch.items[0] if isinstance(branch, rn.Seq) and branch.items else branch
        if isinstance(head, rn.Assert) and head.kind == rn.START:
            late = True
            continue
        guard = _guard(head) if guards else None
        if guard is not None:
            core |= guard
            behind |= guard
            continue
        found = needs(replace(tree, root=branch))
        if found is None:
            return None
        chars = _finite(found.lead)
        if chars is None:
            return None
        core |= found.core
        lead |= chars
        star = star or run_led(tree, branch)
    if not core or len(lead) > MAX_LEAD:
        return None
    if ends:
        return Facts(frozenset(core), dollar=dollar, late=late, ends=True, behind=frozenset(behind))
    return Facts(frozenset(core), frozenset(lead), star=star, late=late, behind=frozenset(behind))


@functools.lru_cache(maxsize=512)
def unguarded_starts(pattern: str) -> tuple[tuple[str, ...], frozenset[str], bool] | None:
    r"""For ``Fast.starts``, where some branch of ``pattern`` begins with ``^`` or a guard
    (distributed as :func:`pattern_facts` with ``guards`` reads them): the literals every match
    of each other branch begins with (``regex_syntax.literal.leading_literals``), the guards'
    characters, and whether a ``^`` branch was set aside; None where a branch has no leading
    literals, or none is left.

    The branches set aside are the fast path's to rule out: a ``^`` branch matches only at the
    buffer's start (``Fast.late``: the fast path waits until text is consumed), and a guard's
    branch only just after one of its characters (``Fast.behind``: where none is in the text
    from the search position, nor just before it, no match of it, complete or partial, begins
    there). The other branches' matches then begin with their literals, as ``start_literals``
    reads them (``(?:A|B)C`` is ``AC|BC``: the same matches, read in the same order)."""
    tree = parse(pattern)
    if tree.error or not tree.known:
        return None
    root = tree.root
    while isinstance(root, rn.Group) and root.kind in (rn.GROUP, rn.CAPTURE):
        root = root.body
    branches = _distributed(root.branches if isinstance(root, rn.Alt) else (root,))
    literals: list[str] = []
    guards: set[str] = set()
    late = False
    for branch in branches:
        head = branch.items[0] if isinstance(branch, rn.Seq) and branch.items else branch
        if isinstance(head, rn.Assert) and head.kind == rn.START:
            late = True
            continue
        guard = _guard(head)
        if guard is not None:
            guards |= guard
            continue
        found = leading_literals(replace(tree, root=branch))
        if found is None:
            return None
        literals += found
    if not literals:
        return None
    return tuple(dict.fromkeys(literals)), frozenset(guards), late


_DISTRIBUTED = 64
"""At most this many branches come of distributing groups (``(?:a|b)(?:c|d)...`` multiplies)."""


def _distributed(branches: tuple[rn.Node, ...]) -> tuple[rn.Node, ...]:
    """The branches, each whose first item is a plain group of alternatives replaced by one
    branch per alternative followed by the rest of it, again for those; as they were if that
    makes more than ``_DISTRIBUTED``."""
    out: list[rn.Node] = []
    todo = list(reversed(branches))
    while todo:
        branch = todo.pop()
        items = branch.items if isinstance(branch, rn.Seq) else (branch,)
        head = items[0] if items else None
        if isinstance(head, rn.Group) and head.kind in (rn.GROUP, rn.CAPTURE):
            body = head.body
            if isinstance(body, rn.Alt):
                for alt in reversed(body.branches):
                    first = alt.items if isinstance(alt, rn.Seq) else (alt,)
                    todo.append(rn.Seq(branch.start, branch.end, (*first, *items[1:])))
                if len(out) + len(todo) > _DISTRIBUTED:
                    return branches
                continue
            if isinstance(body, rn.Seq):  # (?:AB)C is ABC
                todo.append(rn.Seq(branch.start, branch.end, (*body.items, *items[1:])))
                continue
        out.append(branch)
    return tuple(out)


_GUARD_CHARS = 4
"""A look-behind of more characters than this gives no guard (too many chunks would hold one)."""


def _guard(head: rn.Node) -> frozenset[str] | None:
    r"""The characters one of which stands just before every match of a branch that begins
    with ``head``: a look-behind whose every match ends with one character of a few
    (``(?<=\})``, ``(?<=[}"])``, the ``>`` of ``(?<=</think>)``); None for any other."""
    if not (isinstance(head, rn.Group) and head.kind == rn.BEHIND):
        return None
    body = head.body
    last = body.items[-1] if isinstance(body, rn.Seq) and body.items else body
    if isinstance(last, rn.Char) and not last.fold:
        return frozenset(last.char)
    if isinstance(last, rn.Class) and last.is_set and not last.negated and not last.fold:
        chars = _finite(CharSet.of(last))
        if chars and len(chars) <= _GUARD_CHARS:
            return chars
    return None


def _finite(chars: CharSet) -> frozenset[str] | None:
    r"""The characters of a set, when it is a small finite one (whitespace, a short bracket);
    None for the others (a negated set, \w...)."""
    found = set(chars.chars)
    for member in chars.classes:
        if member == "\\s":
            found |= SPACE_CHARS
            continue
        node = parse(member).root
        if not isinstance(node, rn.Class) or not node.is_set or node.negated or node.fold:
            return None
        for item in node.items:
            if item.escape == "\\s":
                found |= SPACE_CHARS
            elif item.escape or not item.lo or ord(item.hi) - ord(item.lo) > MAX_LEAD:
                return None
            else:
                found.update(chr(c) for c in range(ord(item.lo), ord(item.hi) + 1))
    return frozenset(found)
