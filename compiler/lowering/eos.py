"""How each delimiter is found at the end of the stream: the code of its search.

At the end of the stream the text no longer changes and nothing is partial: a delimiter's
search only has to give its leftmost complete match from the search position, as the
reference's ``pattern.search(buffer, pos)`` does. Besides the plain ``regex`` search (a jump
between occurrences of its literal prefix over long text), some shapes of delimiter are found
with ``str.find``, each with its argument:

- a single literal, and a pattern that is only a literal (``literal_text``): ``find``;
- ``L\\s*`` (``literal_then_spaces``): ``find`` of L, then the whitespace run after it;
- a literal list, and a pattern that is an alternation of literals none of which is a prefix of
  another (``literal_alternatives``): the leftmost occurrence of any, the longest there
  (``matching.find_any``; for such an alternation at most one literal occurs at a position);
- ``\\s*REST`` (``whitespace_led``): REST's match, extended back over the whitespace before it;
- ``R|$``, ``R|\\Z`` (``dollar_alternative``): R's match when it starts at or before the first
  position where the end alternative holds, else the empty match there.

``search_lines`` writes the code: given ``buf``, ``n``, ``pos``, ``long_text`` (``n - pos >=
LONG_SPAN``, for literals) and the candidate found so far (``target``, ``start``), it sets
``i`` (start, -1: none), ``j`` (end) and ``m`` (the match, for captures; unset by str.find
searches). Results are remembered in ``memo`` while they are still ahead (the text does not
change); a search may stop at the candidate when nothing after it can win, unless whitespace
before a match could reach back past it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Delimiter
from ..rarity import rarest_index
from ..regex_syntax.fast_paths import (
    dollar_alternative,
    literal_alternatives,
    literal_prefix,
    literal_text,
    literal_then_spaces,
    whitespace_led,
)
from .namespace import Namespace

# Literal lists longer than this are searched by the regex module (one scan of the text)
# rather than by one str.find per literal.
MAX_FIND_LITERALS = 8


@dataclass
class EosSearch:
    """How a delimiter's leftmost match is found at the end of the stream."""

    kind: str  # "literal", "literal_ws", "any", "regex", "regex_list"
    const: str  # the literal, the literal list, or the compiled pattern
    led: bool = False  # "regex": every match begins with a literal (``const``_PREFIX)
    list_maxlen: int = 0  # "regex_list": the longest literal
    back_over_ws: bool = False  # ``\s*REST``: extend the match back over whitespace
    end: str = ""  # ``R|$`` ("$") or ``R|\Z`` ("Z"): the empty match at the end
    # "regex", "regex_list": the expression of the compiled pattern to run (its re twin where
    # it has one that may run on the text: see Namespace.engine); empty: ``const`` itself.
    engine: str = ""
    # "any": whether its literals also have their alternation compiled by re (NAME_RE).
    alternation: bool = False

    @property
    def bounded(self) -> bool:
        """Whether the search may stop at the candidate found so far."""
        return not self.back_over_ws and not self.end

    @property
    def order(self) -> int:
        """Cheapest first (see states): finds, literal lists, patterns, literal-led ones."""
        if self.kind in ("literal", "literal_ws"):
            return 0
        if self.kind in ("any", "regex_list"):
            return 1
        return 3 if self.led else 2


def literal_list(ns: Namespace, stem: str, comment: str, literals: tuple[str, ...]) -> EosSearch:
    """The "any" search of ``literals``: a constant holding them for ``find_any``, longest
    first (stable), with lengths and the index of each one's rarest character; and, when none
    is empty, ``NAME_RE``: their alternation in that order compiled by ``re``, for short spans
    of text (see _any_lines)."""
    ordered = sorted(dict.fromkeys(literals), key=len, reverse=True)
    name = ns.const(stem)
    items = ", ".join(f"({ns.literal(x)}, {len(x)}, {rarest_index(x)})" for x in ordered)
    ns.plan.literal_lists.append((name, comment, f"({items},)"))
    ns.imports.add("from rtc.runtime.matching import LONG_SPAN, find_any")
    alternation_made = all(ordered) and f"{name}_RE" not in ns.names
    if alternation_made:
        ns.names.add(f"{name}_RE")
        alternation = "|".join(re.escape(x) for x in ordered)
        # No comment of its own: it belongs to the list's section, under the list's comment.
        ns.plan.literal_lists.append((f"{name}_RE", "", f"re.compile({ns.literal(alternation)})"))
        ns.plan.uses_re = True
    maxlen = max(map(len, ordered))
    return EosSearch("any", name, list_maxlen=maxlen, alternation=alternation_made)


def eos_search(
    ns: Namespace, delim: Delimiter, stem: str, comment: str
) -> tuple[EosSearch, str | None]:
    """The end-of-stream search of a delimiter that is not a single literal, and the constant
    of its whole compiled pattern when the search made one (else None)."""
    if delim.is_literal:
        if len(delim.literals) <= MAX_FIND_LITERALS:
            return literal_list(ns, f"{stem}_literals", comment, delim.literals), None
        const = ns.regex_const(stem, comment, delim.pattern)
        return EosSearch("regex_list", const, list_maxlen=max(map(len, delim.literals))), const
    search = _pattern_search(ns, delim.pattern, stem, comment)
    whole = search.kind == "regex" and not search.back_over_ws and not search.end
    return search, search.const if whole else None


def _pattern_search(ns: Namespace, pattern: str, stem: str, comment: str) -> EosSearch:
    alternative = dollar_alternative(pattern)
    if alternative is not None:
        rest, is_dollar = alternative
        inner = _pattern_search(ns, rest, f"{stem}_alternative", f"{comment}, its first part")
        if not inner.end:
            inner.end = "$" if is_dollar else "Z"
            return inner
    rest = whitespace_led(pattern)
    if rest is not None:
        inner = _pattern_search(ns, rest, f"{stem}_after_ws", f"{comment}, after its leading \\s*")
        if not inner.back_over_ws and not inner.end:
            ns.imports.add("from rtc.runtime.matching import SPACE_CHARS")
            inner.back_over_ws = True
            return inner
    literal = literal_then_spaces(pattern)
    if literal is not None:
        const = ns.literal_name(stem)
        ns.literal_const(const, f"{comment}: its literal", literal)
        ns.imports.add("from rtc.runtime.matching import SPACES")
        return EosSearch("literal_ws", const)
    literal = literal_text(pattern)
    if literal is not None:
        const = ns.literal_name(stem)
        ns.literal_const(const, f"{comment}: a literal", literal)
        return EosSearch("literal", const)
    alternatives = literal_alternatives(pattern)
    if alternatives is not None and len(alternatives) <= MAX_FIND_LITERALS:
        return literal_list(ns, f"{stem}_literals", f"{comment}: its literals", alternatives)
    const = ns.regex_const(stem, comment, pattern, searched=True, twin=True)
    led = literal_prefix(pattern) is not None
    if led:
        ns.imports.add("from rtc.runtime.matching import LONG_SPAN, find_literal")
    return EosSearch("regex", const, led=led, engine=ns.engine(const, "buf"))


def search_lines(s: EosSearch, slot: int, first: bool) -> list[str]:
    """The code finding ``s``'s match from ``pos`` (see the module docstring); ``first``: no
    candidate can exist yet (the first search of its state)."""
    bounded = s.bounded and not first
    if s.kind in ("literal", "literal_ws"):
        lines = _literal_lines(s.const, slot, bounded)
        if s.kind == "literal_ws":
            lines += [
                "if i >= 0 and j < n and buf[j].isspace():",
                "    j = SPACES.match(buf, j).end()  # the \\s* after the literal",
            ]
    elif s.kind == "any":
        lines = _any_lines(s, slot, bounded)
    else:
        lines = _regex_lines(s, slot, bounded)
    if s.back_over_ws:
        lines += [
            "while i > pos and buf[i - 1] in SPACE_CHARS:",
            "    i -= 1  # back over the whitespace the leading \\s* takes",
        ]
    if s.end:
        where = "n - 1 if n > pos and buf[n - 1] == '\\n' else n" if s.end == "$" else "n"
        lines += [
            f"d = {where}  # where the end alternative matches (empty)",
            "if i < 0 or i > d:",
            "    i, j, m = d, d, None",
        ]
    return lines


def _literal_lines(const: str, slot: int, bounded: bool) -> list[str]:
    long_search = [
        "if long_text:",
        "    # Long text: find by the rarest character, and remember.",
        f"    r = memo[{slot}]",
        "    if r is not None and r[0] <= pos and (r[1] < 0 or r[1] >= pos):",
        "        i = r[1]",
    ]
    if bounded:
        long_search += [
            "    elif target == -1:",
            f"        i = find_literal(buf, {const}, pos, n, {const}_RARE)",
            f"        memo[{slot}] = (pos, i)",
            "    else:",
            f"        stop = start + {const}_LEN",
            f"        i = buf.find({const}, pos, stop) if stop - pos < LONG_SPAN else "
            f"find_literal(buf, {const}, pos, stop, {const}_RARE)",
            "        if i >= 0:",
            f"            memo[{slot}] = (pos, i)",
            "elif target == -1:",
            f"    i = buf.find({const}, pos)",
            "else:",
            f"    i = buf.find({const}, pos, start + {const}_LEN)",
        ]
    else:
        long_search += [
            "    else:",
            f"        i = find_literal(buf, {const}, pos, n, {const}_RARE)",
            f"        memo[{slot}] = (pos, i)",
            "else:",
            f"    i = buf.find({const}, pos)",
        ]
    return long_search + [f"j = i + {const}_LEN"]


def _any_lines(s: EosSearch, slot: int, bounded: bool) -> list[str]:
    # Over a short span the literals' alternation (longest first, as the reference orders it)
    # is one re search instead of one str.find per literal: literals read alike in every
    # engine, so its match is find_any's (tests/test_eos_search.py). A search bounded by the
    # candidate ends where a literal starting at the candidate would end; a match starting
    # after the candidate (possibly cut short by that end) cannot win and is not kept.
    const = s.const
    alternation = s.alternation
    lines = [
        f"r = memo[{slot}]",
        "if r is not None and r[0] <= pos and (r[1] < 0 or r[1] >= pos):",
        "    i, j = r[1], r[2]",
    ]
    whole = [
        f"    i, j = find_any(buf, {const}, pos, n + 1)",
        f"    memo[{slot}] = (pos, i, j)",
    ]
    if alternation:
        whole = [
            "    if n - pos < LONG_SPAN:",
            f"        a = {const}_RE.search(buf, pos)",
            "        i, j = (-1, -1) if a is None else a.span()",
            "    else:",
            f"        i, j = find_any(buf, {const}, pos, n + 1)",
            f"    memo[{slot}] = (pos, i, j)",
        ]
    if not bounded:
        return lines + ["else:"] + whole
    lines += ["elif target == -1:"] + whole + ["else:"]
    lines.append("    # Literals starting after the candidate cannot win: look only up to it.")
    if alternation:
        lines += [
            f"    if start + {s.list_maxlen} - pos < LONG_SPAN:",
            f"        a = {const}_RE.search(buf, pos, start + {s.list_maxlen})",
            "        i, j = (-1, -1) if a is None or a.start() > start else a.span()",
            "    else:",
            f"        i, j = find_any(buf, {const}, pos, start + 1)",
        ]
    else:
        lines.append(f"    i, j = find_any(buf, {const}, pos, start + 1)")
    lines += ["    if i >= 0:", f"        memo[{slot}] = (pos, i, j)"]
    return lines


def _regex_lines(s: EosSearch, slot: int, bounded: bool) -> list[str]:
    c = s.const
    e = s.engine or c  # what runs the search (the pattern, or its re twin)
    store = f"r = memo[{slot}] = (pos, -1, -1, None) if m is None else (pos, m.start(), m.end(), m)"
    lines = [
        f"r = memo[{slot}]",
        "if r is None or r[0] > pos or (r[1] >= 0 and r[1] < pos):",
    ]
    if s.kind == "regex_list" and bounded:
        lines += [
            "    if target == -1:",
            f"        m = {e}.search(buf, pos)",
            f"        {store}",
            f"    elif start == pos and end - start > {s.list_maxlen}:",
            "        # The candidate starts here and is longer than any of these literals.",
            "        r = (pos, -1, -1, None)",
            "    else:",
            "        # Literals starting after the candidate cannot win: search only up to it. A",
            "        # match that starts after it may be cut short there: not kept.",
            f"        m = {e}.search(buf, pos, min(n, start + {s.list_maxlen}))",
            "        if m is None or m.start() > start:",
            "            r = (pos, -1, -1, None)",
            "        else:",
            f"            r = memo[{slot}] = (pos, m.start(), m.end(), m)",
        ]
    elif s.led:
        # Every match begins with the prefix: the leftmost match is the first occurrence of
        # the prefix where the pattern matches (see matching.search_literal_led), so find the
        # first occurrence, try the pattern there, and search on from it only if it fails.
        stop = f"start + len({c}_PREFIX)" if bounded else "n"
        if bounded:
            lines += [
                "    # Only an occurrence by the candidate's start could give a match that wins.",
                f"    stop = n if target == -1 else {stop}",
            ]
            stop = "stop"
        lines += [
            f"    i = buf.find({c}_PREFIX, pos, {stop}) if {stop} - pos < LONG_SPAN else "
            f"find_literal(buf, {c}_PREFIX, pos, {stop}, {c}_RARE)",
            "    if i < 0:",
            "        r = (pos, -1, -1, None)",
        ]
        if bounded:
            lines += [
                "        if target == -1:",
                f"            memo[{slot}] = r",
            ]
        else:
            lines += [f"        memo[{slot}] = r"]
        lines += [
            "    else:",
            f"        m = {e}.match(buf, i)",
            "        if m is None:",
            f"            m = search_literal_led({e}, buf, i + 1, {c}_PREFIX, {c}_RARE)",
            f"        {store}",
        ]
    else:
        lines += [f"    m = {e}.search(buf, pos)", f"    {store}"]
    return lines + ["i, j, m = r[1], r[2], r[3]"]


def describe_search(s: EosSearch) -> str:
    """How the end-of-stream search goes, for the comment above it."""
    engine = "the regex module"
    if s.engine not in ("", s.const):
        engine += " (its re twin on ASCII text)" if ".isascii()" in s.engine else " (its re twin)"
    how = {
        "literal": "str.find",
        "literal_ws": "str.find, then the whitespace after it",
        "any": "str.find of each literal",
        "regex": engine + (" (long text: between its literal prefix)" if s.led else ""),
        "regex_list": engine,
    }[s.kind]
    if s.back_over_ws:
        how += ", back over leading whitespace"
    if s.end:
        how += ", or the empty match at the end"
    return how
