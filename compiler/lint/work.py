"""The work a compiled parser does on a text, counted instead of timed.

Timings are noisy on a shared machine and useless in CI; counts are exact and the same on
every run. What is counted is what makes a parser slow on long text: characters examined.

- **String searches.** The text is fed as a :class:`CountedText` (a ``str`` subclass): every
  ``find``, ``rfind``, ``startswith``, ``in``, ``rstrip``, iteration and index or slice the
  parser (its generated module and ``rtc.runtime``) makes on the text, or on the buffer it
  builds from it (``+`` keeps the class), counts the characters it examines (to the occurrence
  found, or to the end of the range when there is none; a slice counts the characters it
  copies). Streamed chunks go through ``feed()``'s fast path as plain ``str`` chunks do (the
  counting module's parser takes its fast path for :class:`CountedText`): what is counted is
  the path production takes.
- **Regular expressions.** Every compiled pattern a generated module holds (``regex`` and
  ``re``: delimiters, their ``re`` twins, tag patterns, prefilters) is replaced, in a private
  copy of the module, by a :class:`CountingPattern`. A search tries a match at each position
  from where it starts up to the match it returns (every position to the end of the range when
  it finds none, or in partial mode when the match is partial: the ``regex`` module looks for
  a complete match first); each attempt counts the characters that decide it, its *extent*:
  the shortest window of text after the position (1, 2, 4, … characters) within which the
  pattern's answer there is already settled (``match`` with ``partial=True`` in that window
  reports no partial match and no match touching its end). An engine cannot settle an attempt
  without reading that far, so this is a lower bound of what any engine reads, and it is the
  work a backtracking engine repeats: a look-ahead over the rest of the text
  (``(?=[\\s\\S]*?</tool_call>)``) tried at each of n occurrences counts n²/2 characters.

Text that is only copied (a region's body handed to its content parser, which reads it once)
and the Python around each call are not counted: they are linear in the text as long as the
searches are, which is what the counts are for. Counting is not thread-safe (one tally at a
time) and much slower than parsing; it is a measuring instrument for tests and the lint.
"""

from __future__ import annotations

import functools
import re
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import regex

from rtc.runtime.fast_path import feed_step
from rtc.runtime.matching import SPACE_CHARS

from ..codegen import build_plan, render
from ..regex_syntax import can_match_empty, first_chars, parse
from ..regex_syntax import nodes as n
from ..regex_syntax.runs import GUARD


class WorkLimit(Exception):
    """The count passed the limit it was given (the parser is doing far too much work);
    ``count``: what was counted when it stopped."""

    def __init__(self, limit: int, count: int) -> None:
        super().__init__(f"more than {limit:,} characters examined")
        self.count = count


@dataclass
class _Tally:
    chars: int = 0
    limit: int | None = None

    def add(self, count: int) -> None:
        self.chars += max(1, count)
        if self.limit is not None and self.chars > self.limit:
            raise WorkLimit(self.limit, self.chars)


_TALLY = _Tally()


def _bounds(n: int, start: Any, end: Any) -> tuple[int, int]:
    """``str`` method range arguments as absolute positions."""
    lo = 0 if start is None else (start if start >= 0 else max(0, n + start))
    hi = n if end is None else (min(n, end) if end >= 0 else max(0, n + end))
    return min(lo, n), hi


class CountedText(str):
    """A ``str`` whose searches count the characters they examine (see the module docstring)."""

    __slots__ = ()

    def __add__(self, other: str) -> CountedText:
        _TALLY.add(len(other))
        return CountedText(str.__add__(self, other))

    def __radd__(self, other: str) -> CountedText:
        _TALLY.add(len(self))
        return CountedText(str.__add__(other, self))

    def __getitem__(self, key: Any) -> str:
        got = str.__getitem__(self, key)
        _TALLY.add(len(got))
        return got

    def __contains__(self, sub: object) -> bool:
        return self.find(sub) >= 0  # type: ignore[arg-type]

    def find(self, sub: str, start: Any = None, end: Any = None) -> int:
        lo, hi = _bounds(len(self), start, end)
        i = str.find(self, sub, start, end)
        _TALLY.add((i + len(sub) - lo) if i >= 0 else hi - lo)
        return i

    def rfind(self, sub: str, start: Any = None, end: Any = None) -> int:
        lo, hi = _bounds(len(self), start, end)
        i = str.rfind(self, sub, start, end)
        _TALLY.add((hi - i) if i >= 0 else hi - lo)
        return i

    def startswith(self, prefix: Any, start: Any = None, end: Any = None) -> bool:
        _TALLY.add(len(prefix) if isinstance(prefix, str) else max(map(len, prefix), default=1))
        return str.startswith(self, prefix, start, end)

    def endswith(self, suffix: Any, start: Any = None, end: Any = None) -> bool:
        _TALLY.add(len(suffix) if isinstance(suffix, str) else max(map(len, suffix), default=1))
        return str.endswith(self, suffix, start, end)

    def rstrip(self, chars: Any = None) -> str:
        got = str.rstrip(self, chars)
        _TALLY.add(len(self) - len(got) + 1)  # the run stripped and the character ending it
        return got

    def __iter__(self) -> Iterator[str]:
        # Whatever iterates over the text (``frozenset.isdisjoint``) may read all of it.
        _TALLY.add(len(self))
        return str.__iter__(self)


class CountingPattern:
    """A compiled pattern that counts the characters its searches examine (module docstring).

    It answers exactly like the pattern it wraps; ``regex``'s answers with ``partial=True``
    measure each attempt (for an ``re`` pattern, the same pattern compiled by ``regex``).
    """

    def __init__(self, compiled: Any) -> None:
        self._compiled = compiled
        if isinstance(compiled, re.Pattern):
            flags = (regex.DOTALL if compiled.flags & re.DOTALL else 0) | (
                regex.ASCII if compiled.flags & re.ASCII else 0
            )
            self._probe = regex.compile(compiled.pattern, flags)
        else:
            self._probe = compiled
        source = compiled.pattern
        # The regex module first looks for a literal every match contains (its "required
        # string"): without one ahead, a search costs that one scan (re has no such step).
        self._required = None if isinstance(compiled, re.Pattern) else required_literal(source)
        # A pattern led by \G only ever tries where the search starts.
        self._anchored = source.startswith("\\G")
        # A pattern behind the guard of regex_syntax.runs fails at once inside a whitespace
        # run (reading the two characters there), except where the search starts.
        self._guarded = source.startswith(GUARD)
        # The characters a match can begin with (look-arounds and anchors taken as true, so a
        # superset): an attempt at any other character fails there, reading one character.
        self._first = first_characters(source)
        self._starts: dict[str, bool] = {}
        self._finder: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._compiled, name)

    # -- measuring ---------------------------------------------------------------------------

    def _extent(self, text: str, i: int, end: int) -> int:
        """Characters from ``i`` within which an attempt at ``i`` is settled."""
        width = 1
        while True:
            stop = min(i + width, end)
            try:
                m = self._probe.match(text, i, stop, partial=True)
            except (RecursionError, ValueError):
                return max(1, stop - i)
            if stop >= end or m is None or (not m.partial and m.end() < stop):
                return max(1, stop - i)
            width *= 2

    def _candidates(self, window: str) -> Any:
        """A pattern finding the characters of ``window`` a match may begin with."""
        fresh = set(window).difference(self._starts)
        if fresh or self._finder is None:
            for char in fresh:
                self._starts[char] = self._first is None or self._first(char)
            chars = sorted(c for c, starts in self._starts.items() if starts)
            self._finder = re.compile(
                "[" + "".join(map(re.escape, chars)) + "]" if chars else "(?!)"
            )
        return self._finder

    def _attempts(self, text: str, start: int, stop: int, end: int) -> int:
        """Total extent of the attempts at ``start`` … ``stop`` (inclusive, within ``end``):
        one character for each position whose character no match begins with, found in one
        scan, and the extent of the others."""
        if self._anchored:
            return self._extent(text, start, end) if start <= end else 1
        last = min(stop, end)
        if last < start:
            return 1
        total = last - start + 1
        first = start
        finder = self._candidates(str.__getitem__(text, slice(start, last + 1)))
        if start == 0 < last:
            total += self._extent(text, 0, end) - 1  # ^ and \A may match only there
            start = 1
        guarded = self._guarded
        for m in finder.finditer(text, start, last):
            i = m.start()
            if guarded and i > first and _inside_run(text, i):
                total += 1  # the guard read the character before
                continue
            total += self._extent(text, i, end) - 1
        if guarded and first < last < end and _inside_run(text, last):
            return total + 1
        if last == end or finder.match(text, last, last + 1) is not None:
            total += self._extent(text, last, end) - 1  # the attempt at the last position
        return total

    def _count_search(self, text: str, pos: int, end: int, found: Any) -> None:
        required = self._required
        if required is not None and str.find(text, required, pos, end) < 0:
            # One scan for the literal; a partial match is then what reaches the end.
            at = end if found is None else found.start()
            _TALLY.add(end - pos + (self._extent(text, at, end) if at < end else 0))
            return
        complete = found is not None and not getattr(found, "partial", False)
        _TALLY.add(self._attempts(text, pos, found.start() if complete else end, end))

    @staticmethod
    def _range(text: str, pos: Any, endpos: Any) -> tuple[int, int]:
        n = len(text)
        start = 0 if pos is None else min(max(pos, 0), n)
        return start, (n if endpos is None else min(endpos, n))

    # -- the pattern's interface -------------------------------------------------------------

    def search(self, text: str, pos: Any = None, endpos: Any = None, **kwargs: Any) -> Any:
        lo, hi = self._range(text, pos, endpos)
        found = self._compiled.search(text, lo, hi, **kwargs)
        self._count_search(text, lo, hi, found)
        return found

    def match(self, text: str, pos: Any = None, endpos: Any = None, **kwargs: Any) -> Any:
        lo, hi = self._range(text, pos, endpos)
        found = self._compiled.match(text, lo, hi, **kwargs)
        _TALLY.add(self._extent(text, lo, hi) if lo <= hi else 1)
        return found

    def fullmatch(self, text: str, pos: Any = None, endpos: Any = None, **kwargs: Any) -> Any:
        lo, hi = self._range(text, pos, endpos)
        found = self._compiled.fullmatch(text, lo, hi, **kwargs)
        _TALLY.add(self._extent(text, lo, hi) if lo <= hi else 1)
        return found

    def finditer(self, text: str, pos: Any = None, endpos: Any = None, **kwargs: Any) -> Iterator:
        lo, hi = self._range(text, pos, endpos)
        matches = list(self._compiled.finditer(text, lo, hi, **kwargs))
        at = lo
        for m in matches:
            _TALLY.add(self._attempts(text, at, m.start(), hi))
            at = m.end() if m.end() > m.start() else m.start() + 1
        if at <= hi:
            _TALLY.add(self._attempts(text, at, hi, hi))
        return iter(matches)

    def findall(self, text: str, pos: Any = None, endpos: Any = None) -> list[Any]:
        self.finditer(text, pos, endpos)
        return self._compiled.findall(text, *self._range(text, pos, endpos))

    def sub(self, repl: Any, text: str, count: int = 0) -> str:
        self.finditer(text)
        return self._compiled.sub(repl, text, count)


def _inside_run(text: str, i: int) -> bool:
    """Whether the characters at ``i - 1`` and ``i`` are both whitespace (read uncounted)."""
    return str.__getitem__(text, i - 1) in SPACE_CHARS and str.__getitem__(text, i) in SPACE_CHARS


def required_literal(pattern: str) -> str | None:
    """The longest run of literal characters every match of ``pattern`` contains (read in its
    top-level sequence and the groups there that are neither optional nor repeated), or None."""
    tree = parse(pattern)
    if tree.error is not None or tree.outside is not None:
        return None
    runs = [""]

    def read(node: n.Node) -> None:
        if isinstance(node, n.Seq):
            for item in node.items:
                read(item)
        elif isinstance(node, n.Char) and not node.fold:
            runs[-1] += node.char
        elif isinstance(node, n.Group) and node.kind in (n.CAPTURE, n.GROUP, n.ATOMIC):
            read(node.body)
        elif isinstance(node, (n.Assert, n.Define, n.Empty)) or (
            isinstance(node, n.Group) and node.is_lookaround
        ):
            pass  # zero width: the characters around it are still adjacent
        else:
            runs.append("")

    read(tree.root)
    best = max(runs, key=len)
    return best or None


def first_characters(pattern: str) -> Any:
    """A test of the characters a match of ``pattern`` can begin with (a superset: look-arounds
    and anchors count as true), or None when every position may begin one (a pattern that can
    match the empty string, or one the reader does not model)."""
    tree = parse(pattern)
    if tree.error is not None or not tree.known:
        return None
    first = first_chars(tree)
    if first is None or can_match_empty(tree):
        return None
    return first.__contains__


def _counting(value: Any) -> Any:
    """``value`` with every compiled pattern in it (also inside tuples) counting."""
    if isinstance(value, (re.Pattern, regex.Pattern)):
        return CountingPattern(value)
    if isinstance(value, tuple) and any(isinstance(v, (re.Pattern, regex.Pattern)) for v in value):
        return tuple(_counting(v) for v in value)
    return value


@functools.lru_cache(maxsize=256)
def _delimiter_pattern(pattern: str) -> CountingPattern:
    return CountingPattern(regex.compile(pattern, regex.DOTALL))


def reads_on(pattern: str, text: str, start: int, width: int) -> bool:
    """Whether an attempt of ``pattern`` at one of the ``width`` positions from ``start`` reads
    (is settled only by) at least half of the rest of ``text``: the sign of a search whose work
    grows with the square of a repetitive text. A cheap first test before :func:`search_work`;
    false when the regex module would skip the search for a required literal absent here."""
    counting = _delimiter_pattern(pattern)
    required = counting._required
    if required is not None and required not in text:
        return False
    end = len(text)
    for i in range(start, min(start + width, end)):
        if counting._extent(text, i, end) * 2 >= end - i:
            return True
    return False


def search_work(pattern: str, text: str, limit: int | None = None) -> int:
    """Characters examined finding every match of ``pattern`` in ``text`` one after the other,
    each search starting where the last match ended, as a one-shot pass searches a delimiter
    (compiled as the reference compiles it). Raises :class:`WorkLimit` past ``limit``."""
    global _TALLY
    counting = _delimiter_pattern(pattern)
    tally = _TALLY = _Tally(limit=limit)
    try:
        pos = 0
        while pos <= len(text):
            m = counting.search(text, pos)
            if m is None:
                break
            pos = max(m.end(), pos + 1)
    finally:
        _TALLY = _Tally()
    return tally.chars


def counting_module(template: dict[str, Any]) -> types.ModuleType:
    """A private copy of ``template``'s compiled module whose pattern constants count.

    Rendered like ``rtc.compiler.load`` renders it (the same code, without black), but never
    cached or shared: its constants are replaced.
    """
    plan = build_plan(template)
    name = f"rtc_counting_{plan.sha256[:16]}"
    module = types.ModuleType(name)
    module.__file__ = f"<rtc {name}>"
    exec(compile(render(plan), module.__file__, "exec"), module.__dict__)
    for key, value in list(vars(module).items()):
        setattr(module, key, _counting(value))
    # The fast path takes text of one class exactly: here the counted one, as str in production
    # (and the variant production's class has: see feed_step).
    parser = module.ResponseParser
    parser.feed = feed_step(events=True, text_class=CountedText, simple=parser._simple_feed)
    parser.feed_text = feed_step(events=False, text_class=CountedText, simple=parser._simple_feed)
    return module


def count(
    module: types.ModuleType,
    text: str,
    *,
    chunk: int | None = None,
    prefix: str = "",
    limit: int | None = None,
) -> int:
    """Characters examined parsing ``text`` one shot (``chunk`` None: ``parse_response``) or
    streamed in ``chunk``-character pieces and finalized. An exception from the parser ends
    the count (the work done until then is what a server paid). Raises :class:`WorkLimit`
    past ``limit``."""
    global _TALLY
    tally = _TALLY = _Tally(limit=limit)
    counted = CountedText(text)
    try:
        if chunk is None:
            module.parse_response(counted, prefix=prefix)
        else:
            parser = module.ResponseParser(prefix)
            for start in range(0, len(text), chunk):
                parser.feed(CountedText(str.__getitem__(counted, slice(start, start + chunk))))
            parser.finalize()
    except WorkLimit:
        raise
    except Exception:  # noqa: S110 -- the parser's own answer; the work is what counts here
        pass
    finally:
        _TALLY = _Tally()
    return tally.chars
