"""First-character prefilters for delimiter patterns.

For a pattern in a small, well-understood subset of regex syntax, compute the set of
characters a match must begin with. If the pattern cannot match the empty string, every
complete or partial match of it consumes at least one character, and the first one is in that
set; so a chunk containing none of them cannot start a delimiter, and ``feed()`` may pass it
through without a regex search. Anything outside the subset (assertions, look-arounds, flags,
back-references, unusual escapes) gives no prefilter: the scanner then always searches.

A prefilter is a list of single-character regex fragments (``<``, ``\\s``, ``[^>]``) that the
generated module joins into one alternation and compiles with the same ``regex`` module and
flags as the delimiters, so membership (e.g. what ``\\s`` matches) is decided by the same engine.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import regex

_CLASS_ESCAPES = frozenset("sSdDwW")
_CHAR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}
_QUANT = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")
_GROUP_NAME = re.compile(r"\?P?<([A-Za-z_][A-Za-z_0-9]*)>")


class _Unsupported(Exception):
    pass


class _Parser:
    """Recursive descent over the subset; returns (first fragments, nullable)."""

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0

    def peek(self) -> str:
        return self.p[self.i] if self.i < len(self.p) else ""

    def alternation(self) -> tuple[list[str], bool]:
        frags, nullable = self.sequence()
        while self.peek() == "|":
            self.i += 1
            more, more_nullable = self.sequence()
            frags += more
            nullable = nullable or more_nullable
        return frags, nullable

    def sequence(self) -> tuple[list[str], bool]:
        frags: list[str] = []
        nullable = True
        while self.peek() not in ("", "|", ")"):
            atom, atom_nullable = self.atom()
            atom_nullable = self.quantifier() or atom_nullable
            if nullable:
                frags += atom
                nullable = atom_nullable
        return frags, nullable

    def quantifier(self) -> bool:
        """Consume a quantifier; True if it allows zero repetitions."""
        c = self.peek()
        zero = False
        if c in ("*", "?"):
            self.i += 1
            zero = True
        elif c == "+":
            self.i += 1
        elif c == "{":
            m = _QUANT.match(self.p, self.i)
            if m is None:
                raise _Unsupported("a literal '{'")
            self.i = m.end()
            low = m.group(1)
            zero = low == "" or int(low) == 0
        else:
            return False
        if self.peek() in ("?", "+"):
            self.i += 1
        if self.peek() in ("*", "+", "?", "{"):
            raise _Unsupported("stacked quantifiers")
        return zero

    def atom(self) -> tuple[list[str], bool]:
        c = self.peek()
        if c == "(":
            self.i += 1
            if self.p.startswith("?:", self.i):
                self.i += 2
            elif self.peek() == "?":
                m = _GROUP_NAME.match(self.p, self.i)
                if m is None:
                    raise _Unsupported("a special group")
                self.i = m.end()
            frags, nullable = self.alternation()
            if self.peek() != ")":
                raise _Unsupported("unbalanced group")
            self.i += 1
            return frags, nullable
        if c == "[":
            return [self.char_class()], False
        if c == "\\":
            return [self.escape()], False
        if c in "^$.*+?{})|" or c == "":
            # '.' is supported in principle, but a prefilter that lets nothing through
            # is useless; assertions are outside the subset.
            raise _Unsupported(f"{c!r}")
        self.i += 1
        return [c], False

    def escape(self) -> str:
        if self.i + 1 >= len(self.p):
            raise _Unsupported("trailing backslash")
        e = self.p[self.i + 1]
        self.i += 2
        if e in _CLASS_ESCAPES:
            return "\\" + e
        if e in _CHAR_ESCAPES:
            return _CHAR_ESCAPES[e]
        if not e.isalnum() and e.isascii():
            return e
        raise _Unsupported(f"escape \\{e}")

    def char_class(self) -> str:
        start = self.i
        j = self.i + 1
        if j < len(self.p) and self.p[j] == "^":
            j += 1
        if j < len(self.p) and self.p[j] == "]":
            j += 1
        while j < len(self.p) and self.p[j] != "]":
            ch = self.p[j]
            if ch == "[":
                raise _Unsupported("nested set or POSIX class")
            if ch == "\\":
                if j + 1 >= len(self.p):
                    raise _Unsupported("trailing backslash")
                e = self.p[j + 1]
                if e.isalnum() and e not in _CLASS_ESCAPES and e not in _CHAR_ESCAPES:
                    raise _Unsupported(f"escape \\{e} in a set")
                j += 2
                continue
            if ch in "&~|-" and j + 1 < len(self.p) and self.p[j + 1] == ch:
                raise _Unsupported("set operation")
            j += 1
        if j >= len(self.p):
            raise _Unsupported("unterminated set")
        self.i = j + 1
        return self.p[start : self.i]


def first_fragments(pattern: str) -> list[str] | None:
    """Fragments matching every possible first character of a match, or None.

    A fragment is either one literal character (a ``str`` of length 1) or the source of a
    character class (``\\s``, ``[^>]``), longer than one character.
    """
    parser = _Parser(pattern)
    try:
        frags, nullable = parser.alternation()
        if parser.i != len(pattern):
            raise _Unsupported("unbalanced ')'")
    except _Unsupported:
        return None
    if nullable or not frags:
        return None
    return list(dict.fromkeys(frags))


def class_source(chars: str, classes: list[str]) -> str:
    """One regex matching any of ``chars`` or any of the class fragments."""
    parts = ["[" + "".join(_escape_in_set(c) for c in chars) + "]"] if chars else []
    return "|".join(parts + classes)


def _escape_in_set(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else c


_WHITESPACE = regex.compile(r"\s")


def whitespace_led(pattern: str) -> str | None:
    """For a pattern ``\\s*REST`` whose REST cannot begin with whitespace, REST; else None.

    Then the leftmost match of the pattern is the leftmost match of REST extended back over the
    whitespace run before it (never before the search position): a match of REST starts with a
    character that is not whitespace, so no run before a later match of REST can reach back
    past an earlier one. The ``regex`` module is slow to search such patterns itself.
    """
    if not pattern.startswith("\\s*") or pattern[3:4] in ("?", "+"):
        return None
    rest = pattern[3:]
    parser = _Parser(rest)
    try:
        frags, nullable = parser.sequence()
        if parser.i != len(rest):
            return None  # a top-level alternative, or an unbalanced ')'
    except _Unsupported:
        return None
    if nullable or not frags:
        return None
    if any(len(f) != 1 or _WHITESPACE.match(f) for f in frags):
        return None
    return rest


_LOOKAHEAD_PREFIXES = ("(?=[\\s\\S]*?", "(?=[\\S\\s]*?", "(?=.*?")
_SPECIAL = set("\\.^$*+?{}[]|()")


def lookahead_literal(pattern: str) -> str | None:
    """For ``(?=[\\s\\S]*?L)`` (or ``.*?``, DOTALL) with a plain literal L, return L; else None.

    Searched from ``pos``, such a pattern matches (empty, at ``pos``) exactly when L occurs at
    or after ``pos``; otherwise, in partial mode, it is a partial match from ``pos`` to the end.
    ``str.find`` answers that without the regex engine's scan of the whole held text.
    """
    for prefix in _LOOKAHEAD_PREFIXES:
        if pattern.startswith(prefix) and pattern.endswith(")"):
            inner = pattern[len(prefix) : -1]
            break
    else:
        return None
    return literal_text(inner)


def literal_prefix(pattern: str) -> str | None:
    """The literal text every match of ``pattern`` begins with, or None (none, or unsure).

    Only for patterns wholly inside the subset above, which has no assertions of any kind: a
    match attempt at a position then depends only on the text from there, which is what lets
    a search jump from one occurrence of the prefix to the next (see
    ``rtc.runtime.matching.search_literal_led``). A top-level alternative has no common prefix.
    """
    parser = _Parser(pattern)
    try:
        frags, nullable = parser.sequence()
    except _Unsupported:
        return None
    if parser.i != len(pattern) or nullable or not frags:
        return None  # a top-level '|' or an unbalanced ')', or it can match nothing
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            e = pattern[i + 1]
            if e in _CHAR_ESCAPES:
                char = _CHAR_ESCAPES[e]
            elif not e.isalnum() and e.isascii():
                char = e
            else:
                break
            step = 2
        elif c in _SPECIAL:
            break
        else:
            char, step = c, 1
        if pattern[i + step : i + step + 1] in ("*", "+", "?", "{"):
            break  # a quantified character: how many copies is not fixed
        out.append(char)
        i += step
    return "".join(out) or None


def literal_text(pattern: str) -> str | None:
    """The text a pattern made only of ordinary and escaped characters matches, else None.

    Such a pattern (no flags, classes, groups, quantifiers or assertions) matches exactly that
    text and nothing else, like ``str.find`` would find it.
    """
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 >= len(pattern):
                return None
            e = pattern[i + 1]
            if e in _CHAR_ESCAPES:
                out.append(_CHAR_ESCAPES[e])
            elif not e.isalnum() and e.isascii():
                out.append(e)
            else:
                return None
            i += 2
            continue
        if c in _SPECIAL:
            return None
        out.append(c)
        i += 1
    return "".join(out) or None


def literal_then_spaces(pattern: str) -> str | None:
    """For ``L\\s*`` with a literal L, L; else None.

    Its leftmost match starts at the first occurrence of L (``\\s*`` may match nothing) and
    ends after the whitespace run that follows it (greedy, and nothing comes after it).
    """
    if not pattern.endswith("\\s*"):
        return None
    # The head must decode completely, so that `\s*` starts a token of its own (in `a\\s*`
    # the backslash is escaped and the head `a\` does not decode).
    return literal_text(pattern[:-3])


def literal_alternatives(pattern: str) -> tuple[str, ...] | None:
    """For ``L1|L2|...`` (possibly in one ``(?:...)``) of literals none of which is a prefix of
    another, the literals; else None.

    At any position at most one of them can match (two matching at one position would make one
    a prefix of the other), so the leftmost match is the leftmost occurrence of any of them,
    whatever the order of the alternatives.
    """
    inner = pattern
    if inner.startswith("(?:") and inner.endswith(")"):
        inner = inner[3:-1]
    alternatives: list[str] = []
    current = ""
    i = 0
    while i < len(inner):
        c = inner[i]
        if c == "\\":
            current += inner[i : i + 2]
            i += 2
            continue
        if c in "()":
            return None  # a group inside: not a flat list of literals
        if c == "|":
            alternatives.append(current)
            current = ""
        else:
            current += c
        i += 1
    alternatives.append(current)
    literals = [literal_text(a) for a in alternatives]
    if len(literals) < 2 or any(lit is None for lit in literals):
        return None
    found = tuple(dict.fromkeys(lit for lit in literals if lit is not None))
    if any(a != b and a.startswith(b) for a in found for b in found):
        return None
    return found


def dollar_alternative(pattern: str) -> tuple[str, bool] | None:
    """For ``R|$`` or ``R|\\Z`` at the top level, ``(R, is_dollar)``; else None.

    Only for R in the subset above (no assertions, flags or back-references: a match at a
    position depends only on the text from there) that cannot match the empty string. The
    leftmost match of the whole pattern is then R's leftmost match if it starts at or before
    the first position where the end alternative holds (``$``: before a final newline or at the
    end; ``\\Z``: at the end), R being tried first there; else the empty match at that position.
    """
    for tail, is_dollar in (("|$", True), ("|\\Z", False)):
        if pattern.endswith(tail):
            rest = pattern[: -len(tail)]
            # An escaped bar (`a\|$`) leaves a trailing backslash, which does not parse.
            if rest and first_fragments(rest) is not None:
                return rest, is_dollar
    return None


def structure(pattern: str) -> Iterator[tuple[int, str, int]]:
    """``(index, character, depth)`` for every ``(``, ``)`` and ``|`` of ``pattern``'s source
    that is structure (not escaped, not inside a character set); ``depth`` is the nesting
    depth before the character."""
    depth = 0
    in_set_ = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_set_:
            if c == "]":
                in_set_ = False
        elif c == "[":
            in_set_ = True
            if pattern.startswith("^", i + 1):
                i += 1
            if pattern.startswith("]", i + 1):
                i += 1
        elif c in "()|":
            yield i, c, depth
            depth += {"(": 1, ")": -1, "|": 0}[c]
        i += 1
