"""Catastrophic backtracking: patterns that can match one text in very many ways.

A backtracking regex engine that fails to match (or is asked for a partial match) may try every
way the pattern can consume the text. The analysis builds the pattern's position automaton
(one state per character test, as in Glushkov's construction; look-arounds and anchors are
treated as always true, which can only add ways) and counts, by dynamic programming, the
distinct paths that consume a *pump* string repeated k times. Pumps are the samples of every
repeated sub-pattern's body. Path counts are exact for the automaton and deterministic: when
they grow exponentially with k (``(a|aa)+``: Fibonacci), or as a high power of k (``(.*?,){11}``),
the pattern is reported. No timing is involved; the ``regex`` module guards some of these shapes
(``(a+)+`` stays linear there), so the finding says what a backtracking engine *may* do. A
pattern with calls (``(?&name)``: recursion) has no position automaton and is not analysed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import regex

from ..regex_syntax import Tree, accepts, parse
from ..regex_syntax import nodes as n
from ..regex_syntax.fast_paths import whitespace_led
from ..regex_syntax.literal import literal_suffix
from ..regex_syntax.samples import plainest, text_before

UNROLL = 12
"""Bounded repeats are unrolled up to this many optional copies, beyond that made unbounded."""
MAX_STATES = 600
MAX_PUMP = 40
PUMP_COUNTS = (4, 8, 16)
EXPONENTIAL = 2**10
"""Paths at k=16 from which growth that keeps accelerating counts as exponential."""


@dataclass
class _Nfa:
    tests: list[n.Char | n.Class | None] = field(default_factory=list)  # state -> its test
    eps: list[list[int]] = field(default_factory=list)
    step: list[int] = field(default_factory=list)  # state -> state after its character
    spans: dict[int, range] = field(default_factory=dict)  # id(repeat) -> its states

    def new(self, test: n.Char | n.Class | None = None) -> int:
        if len(self.tests) >= MAX_STATES:
            raise OverflowError
        self.tests.append(test)
        self.eps.append([])
        self.step.append(-1)
        return len(self.tests) - 1


class _Recursive(Exception):
    """Calls: recursion has no position automaton."""


def _build(nfa: _Nfa, node: n.Node, start: int) -> int:
    """Add ``node`` after state ``start``; return the state where it ends."""
    if isinstance(node, (n.Char, n.Class)):
        test = nfa.new(node)
        after = nfa.new()
        nfa.eps[start].append(test)
        nfa.step[test] = after
        return after
    if isinstance(node, n.Seq):
        here = start
        for item in node.items:
            here = _build(nfa, item, here)
        return here
    if isinstance(node, n.Group):
        return start if node.is_lookaround else _build(nfa, node.body, start)
    if isinstance(node, (n.Alt, n.Cond)):
        end = nfa.new()
        for branch in node.branches if isinstance(node, n.Alt) else (node.yes, node.no):
            entry = nfa.new()
            nfa.eps[start].append(entry)
            nfa.eps[_build(nfa, branch, entry)].append(end)
        return end
    if isinstance(node, n.Repeat):
        first = len(nfa.tests)
        end = _repeat(nfa, node, start)
        nfa.spans.setdefault(id(node), range(first, len(nfa.tests)))
        return end
    if isinstance(node, (n.Call, n.Unknown)):
        raise _Recursive
    return start  # anchors, look-arounds, back-references, DEFINE: zero width, always true here


def _repeat(nfa: _Nfa, node: n.Repeat, start: int) -> int:
    """``body{low,high}``: the mandatory copies, then a loop or the optional copies."""
    low, high, body = node.low, node.high, node.body
    here = start
    for _ in range(min(low, UNROLL)):
        here = _build(nfa, body, here)
    if high is None or high - low > UNROLL:
        loop = nfa.new()
        nfa.eps[here].append(loop)
        entry = nfa.new()
        nfa.eps[loop].append(entry)
        nfa.eps[_build(nfa, body, entry)].append(loop)
        return loop
    end = nfa.new()
    for _ in range(high - min(low, UNROLL)):
        nfa.eps[here].append(end)
        here = _build(nfa, body, here)
    nfa.eps[here].append(end)
    return end


def _closures(nfa: _Nfa) -> list[list[int]]:
    """For each state, the character-test states reachable through empty moves."""
    out = []
    for state in range(len(nfa.tests)):
        seen = {state}
        stack = [state]
        tests = []
        while stack:
            s = stack.pop()
            if nfa.tests[s] is not None:
                tests.append(s)
            for t in nfa.eps[s]:
                if t not in seen:
                    seen.add(t)
                    stack.append(t)
        out.append(sorted(tests))
    return out


@dataclass(frozen=True)
class Blowup:
    """A pump string and the number of ways the pattern consumes it repeated k times."""

    pump: str
    ways: tuple[int, ...]  # for each k in PUMP_COUNTS
    exponential: bool
    head: str  # text that leads the pattern up to the repeat

    @property
    def degree(self) -> float:
        """Growth per doubling of k, as a power: ways ~ k ** degree."""
        import math

        low, high = self.ways[-2], self.ways[-1]
        return math.log2(high / low) if low and high else 0.0  # no ways at all: no growth


def _count(nfa: _Nfa, closures: list[list[int]], text: str, starts: range) -> int:
    """Paths consuming ``text`` from any character test in ``starts`` (a repeat's states)
    to anywhere in the automaton."""
    ways = {s: 1 for s in starts if nfa.tests[s] is not None}
    for ch in text:
        following: dict[int, int] = {}
        for state, count in ways.items():
            test = nfa.tests[state]
            if test is None or not accepts(test, ch):
                continue
            for nxt in closures[nfa.step[state]]:
                following[nxt] = following.get(nxt, 0) + count
        ways = following
        if not ways:
            return 0
    return sum(ways.values())


def _pumps(tree: Tree) -> list[tuple[str, n.Repeat]]:
    """Candidate pumps (with the repeat they come from): a sample of the body of every
    repeat, and of every alternative inside it."""
    found: dict[tuple[str, int], n.Repeat] = {}
    for node in n.walk(tree.root):
        if not isinstance(node, n.Repeat) or (node.high is not None and node.high < 4):
            continue
        found.setdefault((plainest(tree, node.body), id(node)), node)
        for inner in n.walk(node.body):
            if isinstance(inner, n.Alt):
                for branch in inner.branches:
                    found.setdefault((plainest(tree, branch), id(node)), node)
    return [(p, node) for (p, _), node in found.items() if 0 < len(p) <= MAX_PUMP][:24]


def analyse(pattern: str) -> Blowup | None:
    """The worst pump of ``pattern`` if its ways grow exponentially or as k**3 or more."""
    tree = parse(pattern)
    if tree.error is not None:
        return None
    nfa = _Nfa()
    try:
        nfa.new()
        _build(nfa, tree.root, 0)
    except (OverflowError, RecursionError, _Recursive):
        return None
    closures = _closures(nfa)
    worst: Blowup | None = None
    for pump, node in _pumps(tree):
        starts = nfa.spans.get(id(node), range(0))
        ways = tuple(_count(nfa, closures, pump * k, starts) for k in PUMP_COUNTS)
        if ways[0] == 0:
            continue
        accelerating = ways[2] * ways[0] > ways[1] * ways[1] * 2
        exponential = accelerating and ways[2] >= EXPONENTIAL
        blowup = Blowup(pump, ways, exponential, text_before(tree, node))
        if not blowup.exponential and blowup.degree < 3:
            continue
        if worst is None or blowup.ways[-1] > worst.ways[-1]:
            worst = blowup
    return worst


EXAMPLE_PUMPS = 8
"""Pump repetitions in a finding's example: enough to show the shape, quick to parse."""


def _patterns(ctx: Any) -> list[tuple[Any, str, str, Any]]:
    """(field, key, pattern, delimiter or None) for every pattern a template runs."""
    out = []
    for f in ctx.model.fields:
        for delim in (f.open, f.close):
            if delim is not None and not delim.is_literal:
                out.append((f, delim.key, delim.pattern, delim))
        args = f.content_args if isinstance(f.content_args, dict) else {}
        if isinstance(args.get("tag_pattern"), str):
            out.append((f, "content_args.tag_pattern", args["tag_pattern"], None))
    return out


LOOP_SIZE = 150
"""Characters of the shorter looping text a pattern is searched in (the longer: four times)."""
LOOP_GROWTH = 6.0
"""Most the characters examined may grow for four times the text (linear: 4, quadratic: 16)."""


@dataclass(frozen=True)
class Loop:
    """A fragment whose repetition makes a pattern's searches read on to the end of the text."""

    fragment: str
    work: tuple[int, int]  # characters examined for the shorter and the longer text
    times: int  # repetitions in the shorter text


def looping(pattern: str, fragments: list[str]) -> Loop | None:
    """The fragment whose repetition (a looping model, ``repetitions.repeated``) makes the
    search of ``pattern`` through the text, match after match, cost more than linear work
    (counted by ``work.search_work``, exact), the worst first; None if none does."""
    from .repetitions import OPENING, repeated, times_for
    from .work import WorkLimit, reads_on, search_work

    worst: Loop | None = None
    for fragment in fragments:
        times = times_for(fragment, LOOP_SIZE)
        try:
            if not reads_on(pattern, repeated(fragment, times), len(OPENING), len(fragment)):
                continue  # no attempt in the first repetition reads far: searches stay short
            small = search_work(pattern, repeated(fragment, times))
            try:
                search_work(pattern, repeated(fragment, 4 * times), int(LOOP_GROWTH * small))
                continue  # linear after all
            except WorkLimit as over:
                big = over.count
        except (RecursionError, ValueError, regex.error):
            continue  # a pattern regex refuses is reported by validation, not here
        if worst is None or big / small > worst.work[1] / worst.work[0]:
            worst = Loop(fragment, (small, big), times)
    return worst


def _looping_finding(ctx: Any, f: Any, key: str, pattern: str, delim: Any, found: list[Any]) -> Any:
    """A catastrophic-backtracking finding for a pattern that reads on to the end of the text
    from every repetition of a fragment of its field (or of whitespace), or None. ``found``:
    the template's fragments (``repetitions.fragments``)."""
    from .context import quote
    from .findings import WARNING
    from .repetitions import OPENING

    texts = list(
        dict.fromkeys(
            x.text
            for x in found
            if x.source.startswith(f"fields.{f.name}") or x.source == "whitespace runs"
        )
    )
    if whitespace_led(pattern) is not None:
        # rtc searches what follows the leading \s* and reads a run of whitespace once.
        texts = [x for x in texts if x.strip()]
    if delim is None and literal_suffix(parse(pattern)) is not None:
        return None  # a tag loop stops after the last text every match ends with
    if not texts:
        return None
    loop = looping(pattern, texts)
    if loop is None:
        return None
    head = ""
    if not f.implicit and delim is not f.open:
        # A close or a tag pattern is read inside the region: open it, with a value in it.
        part = ctx.corpus.part(f.name)
        opens = ctx.corpus.by_name[f.name].opens()
        head = part.head if part is not None else (opens[0].witness if opens else "")
    text = OPENING + head + loop.fragment * EXAMPLE_PUMPS
    small, big = loop.work
    return ctx.finding(
        "catastrophic-backtracking",
        WARNING,
        ctx.field_path(f, *key.split(".")),
        f"{quote(pattern)} reads on from each repetition of {quote(loop.fragment)}: on a "
        "generation that loops on it, each search reads the rest of the text, and the time "
        f"grows with the square of its length (characters its searches examine: {small:,} "
        f"for {loop.times} repetitions, over {big:,} for {4 * loop.times}).",
        ctx.example(text),
        "bound what the pattern reads past its delimiter: a look-ahead for the close can stop "
        "at the next open ((?:(?!OPEN)[\\s\\S])*? instead of [\\s\\S]*?), a grammar can refuse "
        "what a repetition starts with",
    )


def catastrophic_backtracking(ctx: Any) -> list[Any]:
    """Patterns a backtracking engine may take exponential (or high-power) time on, and
    patterns whose searches read the rest of the text at every repetition of a fragment of
    their own field (a looping model)."""
    from .context import quote
    from .findings import WARNING
    from .repetitions import fragments

    out = []
    corpus = ctx.corpus
    found = fragments(ctx.model)
    for f, key, pattern, delim in _patterns(ctx):
        blowup = analyse(pattern)
        if blowup is None:
            finding = _looping_finding(ctx, f, key, pattern, delim, found)
            if finding is not None:
                out.append(finding)
            continue
        run = blowup.head + blowup.pump * EXAMPLE_PUMPS
        text = run
        if not f.implicit and delim is not f.open:
            # A close or a tag pattern is read inside the region: open it first.
            shape = corpus.by_name[f.name]
            opens, closes = shape.opens(), shape.closes()
            text = (opens[0].text if opens else "") + run
            if delim is None and closes:
                text += closes[0].witness
        counts = ", ".join(f"{w:,} at ×{k}" for k, w in zip(PUMP_COUNTS, blowup.ways, strict=True))
        growth = (
            "exponentially"
            if blowup.exponential
            else f"as about the {round(blowup.degree)}th power of its length"
        )
        out.append(
            ctx.finding(
                "catastrophic-backtracking",
                WARNING,
                ctx.field_path(f, *key.split(".")),
                f"{quote(pattern)} can consume {quote(blowup.pump)} repeated k times in very "
                f"many ways ({counts}): on such text that then fails to match, a backtracking "
                f"regex engine may try them all, and the time grows {growth} with the run.",
                ctx.example(text),
                "make the alternatives or the nested repeats inside the repeat exclusive, so "
                "that each text can be matched in one way only",
            )
        )
    return out
