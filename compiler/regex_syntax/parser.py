"""One reader of ``regex`` pattern syntax: the pattern's source to a :class:`~.nodes.Tree`.

It reads what the ``regex`` module reads under ``regex.DOTALL`` with version 0 semantics, the
flags the reference compiles every delimiter with: literals and escapes (``\\n``, ``\\x3c``,
``\\u00e9``, ``\\N{...}``, octal), ``.``, sets (ranges, class escapes and POSIX classes inside
them; in version 0 a ``[`` inside a set is a member and ``&&`` is two members), ``\\s \\d \\w \\h``
and their negations, ``\\p{...}``, anchors and assertions (``^ $ \\A \\Z \\z \\b \\B \\m \\M
\\G``), ``\\K``, groups of every kind (capturing, named, non-capturing, atomic, the four
look-arounds, conditionals, ``(?(DEFINE)...)``), calls (``(?&name)``, ``(?P>name)``, ``(?1)``,
``(?R)``), back-references, comments, the inline flags ``i``, ``m`` and ``s`` (scoped as the
``regex`` module scopes them: from where they are written to the end of the enclosing group,
across its later alternatives), and quantifiers (greedy, lazy, possessive; a ``{`` that does not
begin a count is a literal).

What it does not model becomes an :class:`~.nodes.Unknown` node: branch resets ``(?|...)``,
fuzzy matching, ``\\X`` and ``\\R`` (more than one character), named lists, relative group
numbers, and the flags that change how the rest of the pattern reads or what classes hold
(``x``, ``a``, ``L``, ``w``, ``f``, ``r``, ``V1``, ``b``, ``e``, ``p``: the whole pattern is then
unknown). A pattern the ``regex`` module refuses gives a tree whose ``error`` says why (the
property tests check that the parser and ``regex.compile`` agree on which patterns those are).

No part of CPython's private ``re._parser`` is used: its grammar is the standard library's,
not the ``regex`` module's.
"""

from __future__ import annotations

import functools
from dataclasses import replace

from . import nodes as n
from .scanner import (
    MAX_COUNT,
    Outside,
    PatternError,
    SetScanner,
    fuzzy_at,
)

# Inline flags: the modelled ones, and those that put the whole pattern outside the subset.
_MODELLED_FLAGS = frozenset("ims")
_OTHER_FLAGS = frozenset("aLuxwfrbep")


@functools.lru_cache(maxsize=1024)
def parse(pattern: str) -> n.Tree:
    """The tree of ``pattern`` as the reference compiles it (``regex.DOTALL``, version 0)."""
    reader = _Reader(pattern)
    try:
        root = reader.pattern()
    except PatternError as exc:
        return n.Tree(pattern, n.Unknown(0, len(pattern), "invalid"), error=str(exc))
    except (Outside, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return n.Tree(pattern, n.Unknown(0, len(pattern), why), outside=why)
    return n.Tree(pattern, root, reader.groups, reader.names, inline=tuple(reader.inline))


class _Groups(SetScanner):
    """Groups of every kind, inline flags and conditionals (the bodies: :class:`_Reader`)."""

    def alternation(self, most: int | None = None) -> n.Node:
        raise NotImplementedError

    def sequence(self) -> n.Node:
        raise NotImplementedError

    def group(self) -> n.Node:
        start = self.i
        if not self.p.startswith("(?", start):
            self.i += 1
            self.count += 1
            return self.group_body(start, n.CAPTURE, self.count)
        self.i += 2
        c = self.peek()
        if c == ":":
            self.i += 1
            return self.group_body(start, n.GROUP)
        if c in ("=", "!", ">"):
            self.i += 1
            return self.group_body(start, {"=": n.AHEAD, "!": n.NOT_AHEAD, ">": n.ATOMIC}[c])
        if c == "<" and self.peek(1) in ("=", "!"):
            self.i += 2
            return self.group_body(start, n.BEHIND if self.peek(-1) == "=" else n.NOT_BEHIND)
        if c == "<" or self.p.startswith("P<", self.i):
            self.i += 1 if c == "<" else 2
            name = self.name(">")
            return self.named_group(start, name)
        if self.p.startswith("P=", self.i):
            self.i += 2
            name = self.name(")")
            return n.Backref(start, self.i, self.reference(start, name, inside=False))
        if self.p.startswith("P>", self.i) or c == "&":
            self.i += 2 if c == "P" else 1
            name = self.name(")")
            return n.Call(start, self.i, self.reference(start, name, call=True))
        if c == "R" and self.peek(1) == ")":
            self.i += 2
            return n.Call(start, self.i, 0)
        if c.isascii() and c.isdigit():
            end = self.p.find(")", self.i)
            digits = self.p[self.i : end] if end > 0 else ""
            if not (digits.isascii() and digits.isdigit()):
                raise self.error("missing )")
            self.i = end + 1
            if int(digits) == 0:
                return n.Call(start, self.i, 0)
            return n.Call(start, self.i, self.reference(start, int(digits), call=True))
        if c == "(":
            return self.conditional(start)
        if c == "|":
            raise Outside("a branch reset")
        group = self.inline_flags(start)
        if group is None:  # (?flags) where a quantifier cannot reach it: see skip_transparent
            raise Outside("inline flags")
        return group

    def name(self, terminator: str) -> str:
        end = self.p.find(terminator, self.i)
        if end < 0:
            raise self.error(f"missing {terminator}")
        name = self.p[self.i : end]
        if not name:
            raise self.error("missing group name")
        if not name.isidentifier():
            raise self.error("bad character in group name")
        self.i = end + 1
        return name

    def named_group(self, start: int, name: str) -> n.Node:
        number = self.names.get(name)
        if number is None:
            self.count += 1
            number = self.names[name] = self.count
        return self.group_body(start, n.CAPTURE, number, name)

    def group_body(self, start: int, kind: str, number: int = 0, name: str | None = None) -> n.Node:
        saved = self.flags
        if number:
            self.defined[number] = self.defined.get(number, 0) + 1
            self.open.append(number)
        body = self.alternation()
        if number:
            self.open.pop()
        self.flags = saved
        if self.peek() != ")":
            raise self.error("missing )", len(self.p))
        self.i += 1
        group = n.Group(start, self.i, kind, body, number, name)
        if number and number not in self.groups:
            self.groups[number] = group
        return group

    def inline_flags(self, start: int) -> n.Node | None:
        """``(?flags)`` (to the end of the enclosing group) or ``(?flags:...)``."""
        on, off = "", ""
        j = self.i
        while j < len(self.p) and self.p[j].isascii() and self.p[j].isalnum():
            j += 1
        on = self.p[self.i : j]
        if j < len(self.p) and self.p[j] == "-":
            k = j + 1
            while k < len(self.p) and self.p[k].isascii() and self.p[k].isalnum():
                k += 1
            off = self.p[j + 1 : k]
            if not off:
                raise self.error("bad inline flags: no flags after '-'", k)
            j = k
        if j >= len(self.p) or self.p[j] not in ":)" or not on + off:
            raise Outside("an unknown group extension")
        if "V0" in off:
            raise Outside("version 1 semantics")
        on, off = on.replace("V0", ""), off.replace("V0", "")  # version 0: the default
        letters = set(on + off)
        if "V" in letters:
            raise Outside("version 1 semantics")
        if letters & _OTHER_FLAGS:
            raise Outside("inline flags that change how the pattern reads")
        if not letters <= _MODELLED_FLAGS:
            raise Outside("an unknown inline flag")
        if set(on) & set(off):
            raise self.error("bad inline flags: flag turned on and off", j)
        flags = self.flags
        for letter, value in [(x, True) for x in on] + [(x, False) for x in off]:
            attr = {"i": "fold", "m": "multiline", "s": "dotall"}[letter]
            flags = replace(flags, **{attr: value})
        self.i = j + 1
        if self.p[j] == ")":
            self.flags = flags
            return None
        outer = self.flags
        self.flags = flags
        group = self.group_body(start, n.GROUP)
        self.flags = outer
        return group

    def conditional(self, start: int) -> n.Node:
        """``(?(test)yes|no)``; ``self.i`` at the ``(`` of the test."""
        self.i += 1
        test: int | str | n.Group
        if self.p.startswith("DEFINE)", self.i):
            # Read as a conditional's two branches (a third is an error there too); neither
            # is ever matched.
            self.i += len("DEFINE)")
            body = self.alternation(most=2)
            self.expect(")", "missing )")
            return n.Define(start, self.i, body)
        if self.peek() == "?":
            if not (self.p.startswith(("?=", "?!", "?<=", "?<!"), self.i)):
                raise self.error("expected lookaround conditional")
            self.i -= 1
            found = self.group()
            assert isinstance(found, n.Group)
            test = found
        else:
            end = self.p.find(")", self.i)
            ref = self.p[self.i : end] if end > 0 else ""
            if ref.isascii() and ref.isdigit():
                test = self.reference(self.i, int(ref))
            elif ref.isidentifier():
                test = self.reference(self.i, ref)
            else:
                raise self.error("bad character in group name")
            self.i = end + 1
        branches = self.alternation(most=2)
        yes, no = (
            branches.branches
            if isinstance(branches, n.Alt)
            else (branches, n.Empty(self.i, self.i))
        )
        if self.peek() != ")":
            raise self.error("missing )", len(self.p))
        self.i += 1
        if not isinstance(test, n.Group) and isinstance(yes, n.Empty) and isinstance(no, n.Empty):
            self.pending.pop()  # the regex module drops an empty conditional unchecked
        return n.Cond(start, self.i, test, yes, no)


class _Reader(_Groups):
    """Alternations, sequences, quantifiers and single atoms."""

    def pattern(self) -> n.Node:
        root = self.alternation()
        if self.i < len(self.p):  # only a ')' stops an alternation early
            raise self.error("unbalanced parenthesis")
        for ref in self.pending:
            if ref.name is not None and ref.name not in self.names:
                raise self.error("unknown group", ref.position)
            if ref.number is not None and ref.number > self.count:
                raise self.error("invalid group reference", ref.position)
            number = ref.number if ref.number is not None else self.names[ref.name or ""]
            if ref.call and self.defined.get(number, 0) > 1:
                raise self.error("ambiguous group reference", ref.position)
        return root

    def alternation(self, most: int | None = None) -> n.Node:
        """Branches up to a ')' or the end (at most ``most``: a conditional has two, and a
        third ``|`` is left for the caller to refuse); flags set inside reach later branches."""
        start = self.i
        saved = self.flags
        branches = [self.sequence()]
        while self.peek() == "|" and (most is None or len(branches) < most):
            self.i += 1
            branches.append(self.sequence())
        self.flags = saved
        if len(branches) == 1:
            return branches[0]
        return n.Alt(start, self.i, tuple(branches))

    def sequence(self) -> n.Node:
        start = self.i
        items: list[n.Node] = []
        while True:
            self.skip_transparent()
            if self.i >= len(self.p) or self.peek() in "|)":
                break
            items.append(self.quantified(self.atom()))
        if not items:
            return n.Empty(start, self.i)
        if len(items) == 1 and (items[0].start, items[0].end) == (start, self.i):
            return items[0]
        # Spans stay exact: a sequence covers its inline flags and comments too.
        return n.Seq(start, self.i, tuple(items))

    def quantified(self, item: n.Node) -> n.Node:
        """``item`` with the quantifier that follows it, if any (one: a second is an error).
        Comments and inline flags between them are transparent (``a(?i)*`` repeats ``a``)."""
        self.skip_transparent()
        bounds = self.quantifier()
        if bounds is None:
            return item
        low, high = bounds
        mode = n.GREEDY
        if self.peek() == "?":
            mode, self.i = n.LAZY, self.i + 1
        elif self.peek() == "+":
            mode, self.i = n.POSSESSIVE, self.i + 1
        if high is not None and low > high:
            raise self.error("min repeat greater than max repeat", item.end)
        self.skip_transparent()
        if self.peek() in ("*", "+", "?") or self.count_at(self.i) is not None:
            raise self.error("multiple repeat")
        if max(low, high or 0) > MAX_COUNT:
            return n.Unknown(item.start, self.i, "a repeat count beyond the modelled range")
        return n.Repeat(item.start, self.i, item, low, high, mode)

    def skip_transparent(self) -> None:
        """Skip comments ``(?#...)`` and inline flags ``(?i)`` (setting them)."""
        while self.p.startswith("(?", self.i):
            if self.p.startswith("(?#", self.i):
                end = self.p.find(")", self.i)
                if end < 0:
                    raise self.error("missing )", len(self.p))
                self.inline.append((self.i, end + 1))
                self.i = end + 1
                continue
            j = self.i + 2
            while j < len(self.p) and (
                self.p[j].isascii() and self.p[j].isalnum() or self.p[j] == "-"
            ):
                j += 1
            name = self.p[self.i + 2 : j]
            if not name or name[0].isdigit() or name == "R" or not self.p.startswith(")", j):
                return  # not (?flags): a call (?1), (?R), a group, ...
            start = self.i
            self.i += 2
            self.inline_flags(start)
            self.inline.append((start, self.i))

    def quantifier(self) -> tuple[int, int | None] | None:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.i += 1
            return {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
        found = self.count_at(self.i)
        if found is None:
            if c == "{" and fuzzy_at(self.p, self.i):
                raise Outside("fuzzy matching")
            return None
        low, high, end = found
        self.i = end
        return low, high

    def atom(self) -> n.Node:
        start = self.i
        c = self.peek()
        if c == "(":
            return self.group()
        if c == "[":
            return self.char_set()
        if c == "\\":
            return self.escape()
        self.i += 1
        if c == ".":
            return n.Class(start, self.i, ".", dotall=self.flags.dotall)
        if c == "^":
            return n.Assert(start, self.i, n.LINE_START if self.flags.multiline else n.START)
        if c == "$":
            kind = n.LINE_END if self.flags.multiline else n.END_OR_NEWLINE
            return n.Assert(start, self.i, kind)
        if c in ("*", "+", "?") or self.count_at(start) is not None:
            raise self.error("nothing to repeat", start)
        if c == "{" and fuzzy_at(self.p, start):
            raise Outside("fuzzy matching")
        return n.Char(start, self.i, c, self.flags.fold)
