"""The parser's lexical layer: a cursor over a pattern, and what one escape or set stands for.

:class:`Scanner` reads escapes (characters, classes, assertions, back-references by number or
``\\g<name>``) and :class:`SetScanner` bracketed sets, as the ``regex`` module reads them with
version 0 semantics (see :mod:`.parser` for the whole subset). Membership of a class is never
decided here: a class node keeps its text, and :mod:`.chars` asks the ``regex`` module.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, replace

import regex

from . import nodes as n

# Quantifier counts beyond this are not modelled (the regex module's own limit is 2**32 - 1,
# and such patterns are slow to compile).
MAX_COUNT = 65535
_OCTAL = "01234567"
_HEX = "0123456789abcdefABCDEF"
_CLASS_ESCAPES = frozenset("dDsSwWh")
_CHAR_ESCAPES = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_ASSERT_ESCAPES = {
    "A": n.START,
    "Z": n.END,
    "z": n.END,
    "b": n.BOUNDARY,
    "B": n.NOT_BOUNDARY,
    "m": n.WORD_START,
    "M": n.WORD_END,
    "G": n.SEARCH_START,
}


class PatternError(Exception):
    """The ``regex`` module refuses the pattern (the parser's reading of why, and where)."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"{message} at position {position}")
        self.position = position


class Outside(Exception):
    """A construct that changes how the whole pattern reads: the tree is one Unknown."""


@dataclass(frozen=True)
class Flags:
    fold: bool = False
    multiline: bool = False
    dotall: bool = True


@dataclass
class Pending:
    """A reference checked once every group is known (forward references are allowed)."""

    number: int | None
    name: str | None
    position: int
    call: bool = False


class Scanner:
    """A cursor over a pattern, the state the parser keeps, and escapes."""

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0
        self.flags = Flags()
        self.count = 0  # capturing groups opened so far
        self.groups: dict[int, n.Group] = {}
        self.names: dict[str, int] = {}
        self.pending: list[Pending] = []
        self.open: list[int] = []  # capturing groups being read
        self.defined: dict[int, int] = {}  # group number -> how many groups have it
        self.inline: list[tuple[int, int]] = []  # comments and (?flags)

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.p[j] if j < len(self.p) else ""

    def error(self, message: str, position: int | None = None) -> PatternError:
        return PatternError(message, self.i if position is None else position)

    def expect(self, text: str, message: str) -> None:
        if not self.p.startswith(text, self.i):
            raise self.error(message)
        self.i += len(text)

    def count_at(self, i: int) -> tuple[int, int | None, int] | None:
        """``{m}``, ``{m,}``, ``{,n}``, ``{m,n}``, ``{,}`` at ``i``: (low, high, end)."""
        if not self.p.startswith("{", i):
            return None
        j = i + 1
        k = j
        while k < len(self.p) and self.p[k].isascii() and self.p[k].isdigit():
            k += 1
        low_text = self.p[j:k]
        if self.p.startswith("}", k):
            return (int(low_text), int(low_text), k + 1) if low_text else None
        if not self.p.startswith(",", k):
            return None
        m = k + 1
        while m < len(self.p) and self.p[m].isascii() and self.p[m].isdigit():
            m += 1
        if not self.p.startswith("}", m):
            return None
        high_text = self.p[k + 1 : m]
        return int(low_text or 0), int(high_text) if high_text else None, m + 1

    # -- escapes --------------------------------------------------------------------

    def escape(self) -> n.Node:
        start = self.i
        e = self.peek(1)
        if not e:
            raise self.error("bad escape (end of pattern)")
        self.i += 2
        if e in _CLASS_ESCAPES:
            return n.Class(start, self.i, self.p[start : self.i], fold=self.flags.fold)
        if e in _ASSERT_ESCAPES:
            return n.Assert(start, self.i, _ASSERT_ESCAPES[e])
        if e == "K":
            return n.Keep(start, self.i)
        if e in ("X", "R"):
            return n.Unknown(start, self.i, f"\\{e} (may match more than one character)")
        if e in ("p", "P"):
            return self.property_class(start)
        if e == "g":
            return self.named_backref(start)
        if e.isascii() and e.isdigit():
            return self.digits(start)
        char = self.char_escape(e, start, in_set=False)
        return n.Char(start, self.i, char, self.flags.fold)

    def char_escape(self, e: str, start: int, in_set: bool) -> str:
        """The character of ``\\e`` (``self.i`` just after ``e``); octal digits handled by
        the callers, class escapes never reach here."""
        if e in _CHAR_ESCAPES:
            return _CHAR_ESCAPES[e]
        if e == "b" and in_set:
            return "\b"
        if e in ("x", "u", "U"):
            width = {"x": 2, "u": 4, "U": 8}[e]
            digits = self.p[self.i : self.i + width]
            if len(digits) < width or any(d not in _HEX for d in digits):
                raise self.error(f"incomplete escape \\{e}", start)
            self.i += width
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise self.error("bad hex escape", start)
            return chr(code)
        if e == "N":
            if self.peek() != "{":
                raise Outside("\\N without a name")
            end = self.p.find("}", self.i)
            if end < 0:
                raise Outside("\\N{ without a closing brace")
            name = self.p[self.i + 1 : end]
            self.i = end + 1
            return _named_char(name, start)
        if e == "L":
            raise Outside("a named list")
        if e.isascii() and e.isalpha():
            raise self.error(f"bad escape \\{e}", start)
        return e

    def property_class(self, start: int) -> n.Node:
        """``\\p{Name}``, ``\\P{Name}``, ``\\pL``: checked by the regex module itself."""
        if self.peek() == "{":
            end = self.p.find("}", self.i)
            if end < 0:
                raise Outside("\\p{ without a closing brace")
            self.i = end + 1
        elif self.peek().isascii() and self.peek().isalpha():
            self.i += 1
        else:
            raise Outside("\\p without a property")
        source = self.p[start : self.i]
        _check_fragment(source, start)
        return n.Class(start, self.i, source, fold=self.flags.fold)

    def named_backref(self, start: int) -> n.Node:
        """``\\g<name>`` or ``\\g<number>``."""
        if self.peek() != "<":
            raise Outside("\\g without a group")
        end = self.p.find(">", self.i)
        ref = self.p[self.i + 1 : end] if end > 0 else ""
        if ref.isascii() and ref.isdigit():
            self.i = end + 1
            return n.Backref(start, self.i, self.reference(start, int(ref)))
        if ref.isidentifier():
            self.i = end + 1
            return n.Backref(start, self.i, self.reference(start, ref))
        raise Outside("\\g with a relative or unusual group reference")

    def digits(self, start: int) -> n.Node:
        """``\\0``, octal escapes, and back-references by number (as the regex module tells
        them apart: three octal digits, or a leading zero, are a character)."""
        d = self.p[start + 1 : start + 4]
        if d[0] == "0":
            k = 1
            while k < 3 and k < len(d) and d[k] in _OCTAL:
                k += 1
            self.i = start + 1 + k
            return n.Char(start, self.i, chr(int(d[:k], 8)), self.flags.fold)
        if len(d) == 3 and all(x in _OCTAL for x in d):
            self.i = start + 4
            return n.Char(start, self.i, chr(int(d, 8)), self.flags.fold)
        k = 2 if len(d) > 1 and d[1].isascii() and d[1].isdigit() else 1
        self.i = start + 1 + k
        return n.Backref(start, self.i, self.reference(start, int(d[:k]), inside=False))

    def reference(
        self, start: int, ref: int | str, call: bool = False, inside: bool = True
    ) -> int | str:
        """Note a group named or numbered by a back-reference, call or condition: checked
        once every group is known (forward references are allowed). ``inside``: whether it
        may stand inside the group it refers to (``\\1`` and ``(?P=name)`` may not)."""
        number = ref if isinstance(ref, int) else self.names.get(ref)
        if not inside and number in self.open:
            raise self.error("cannot refer to an open group", start)
        if isinstance(ref, str):
            self.pending.append(Pending(None, ref, start, call))
        else:
            self.pending.append(Pending(ref, None, start, call))
        return ref


class SetScanner(Scanner):
    """Bracketed sets: ``[...]``, ``[^...]``, ranges, class escapes, POSIX classes."""

    def char_set(self) -> n.Node:
        start = self.i
        self.i += 1
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        items: list[n.SetItem] = []
        first = True
        while True:
            c = self.peek()
            if not c:
                raise self.error("unterminated character set", len(self.p))
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            at = self.i
            item = self.set_member()
            if (
                item.escape == ""
                and self.peek() == "-"
                and self.peek(1) not in ("]", "")
                and not self.p.startswith("-[", self.i)
            ):
                dash = self.i
                self.i += 1
                hi_at = self.i
                hi = self.set_member()
                if hi.escape:  # `a-\d`: the dash is a member (as the regex module reads it)
                    items.append(replace(item, source=self.p[at:dash]))
                    items.append(n.SetItem("-", "-", source="-"))
                    items.append(replace(hi, source=self.p[hi_at : self.i]))
                    continue
                if hi.lo < item.lo:
                    raise self.error("bad character range")
                item = n.SetItem(item.lo, hi.lo)
            items.append(replace(item, source=self.p[at : self.i]))
        source = self.p[start : self.i]
        return n.Class(
            start, self.i, source, fold=self.flags.fold, negated=negated, items=tuple(items)
        )

    def set_member(self) -> n.SetItem:
        """One character or class inside a set (``self.i`` at it)."""
        start = self.i
        c = self.peek()
        if c == "[" and self.peek(1) in (":", "=", "."):
            return self.posix_class()
        if c != "\\":
            self.i += 1
            return n.SetItem(c, c)
        e = self.peek(1)
        if not e:
            raise self.error("unterminated character set", len(self.p))
        self.i += 2
        if e in _CLASS_ESCAPES:
            return n.SetItem(escape="\\" + e)
        if e in ("p", "P"):
            node = self.property_class(start)
            return n.SetItem(escape=self.p[node.start : node.end])
        if e.isascii() and e.isdigit():
            if e in ("8", "9"):
                raise self.error(f"bad escape \\{e}", start)
            k = 1
            while k < 3 and self.peek() in _OCTAL and self.peek():
                self.i += 1
                k += 1
            char = chr(int(self.p[start + 1 : self.i], 8))
            return n.SetItem(char, char)
        char = self.char_escape(e, start, in_set=True)
        return n.SetItem(char, char)

    def posix_class(self) -> n.SetItem:
        """``[:alpha:]`` (``[:^alpha:]``) inside a set; ``[=`` and ``[.`` forms, and text that
        only resembles a POSIX class, are not modelled."""
        start = self.i
        end = self.p.find(":]", start + 2)
        name = self.p[start + 2 : end] if end > 0 else ""
        bare = name.removeprefix("^")
        if self.peek(1) != ":" or not (bare.isascii() and bare.isalpha()):
            raise Outside("a set member that resembles a POSIX class")
        self.i = end + 2
        source = self.p[start : self.i]
        _check_fragment(f"[{source}]", start)
        return n.SetItem(escape=source)


def fuzzy_at(p: str, i: int) -> bool:
    """Whether the ``{`` at ``i`` begins a fuzzy-matching constraint (``{e<=1}``, ``{i}``)."""
    end = p.find("}", i)
    body = p[i + 1 : end] if end > 0 else ""
    return (
        bool(body) and any(c in "eids" for c in body) and set(body) <= set("eids0123456789<=>+-, ")
    )


def _named_char(name: str, start: int) -> str:
    try:
        return unicodedata.lookup(name)
    except KeyError:
        raise PatternError("undefined character name", start) from None


def _check_fragment(fragment: str, start: int) -> None:
    """Property and POSIX class names are data (Unicode's tables): the regex module knows
    which exist."""
    try:
        regex.compile(fragment)
    except regex.error:
        raise PatternError("unknown property", start) from None
