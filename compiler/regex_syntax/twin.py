"""``re`` twins: a pattern compiled by Python's ``re`` for the text where it matches as ``regex``.

The reference compiles every delimiter and tag pattern with the ``regex`` module. On the short
texts of a one-shot parse, ``re`` runs most patterns about twice as fast (less set-up per call).
A generated module therefore carries, beside a pattern that it searches at the end of the
stream or runs as an ``xml-inline`` tag pattern, its **twin** compiled by ``re``, and runs the
twin wherever it is proved to find what the pattern finds. There are two kinds of twin:

- a **universal twin** (``re.DOTALL``, any text) for a pattern of the subset below without the
  class shorthands ``\\d \\D \\w \\W``: ``\\s`` and ``\\S`` are written out as the set of
  characters ``regex`` reads as ``\\s`` (Unicode's White_Space; ``re``'s own ``\\s`` also takes
  ``\\x1c``-``\\x1f``), so every construct left reads the same in both engines on every text;
- an **ASCII twin** (``re.ASCII | re.DOTALL``, the pattern as it is) for the other patterns of
  the subset, run only on ASCII text (``str.isascii()`` reads a flag CPython keeps on every
  string: it costs nothing). ``\\d`` and ``\\w`` depend on the Unicode version each engine
  bundles, and ``re`` and ``regex`` bundle different ones; on ASCII text both read ``\\s`` as
  ``[\\t\\n\\v\\f\\r ]``, ``\\d`` as ``[0-9]`` and ``\\w`` as ``[A-Za-z0-9_]``.

Two kinds of pattern keep ``regex`` for speed alone (measured twin by twin on the benchmark's
catalogue): one that begins with an optional group (:func:`searches_well`; deepseek_v4's
``(?:\\n\\n)?(?:<｜DSML｜tool_calls>\\s*)?<｜DSML｜invoke...``), which ``re`` attempts at every
candidate character where ``regex`` looks for a literal the match requires (three to four times
slower over a few hundred characters), and the start anchor (``lowering.anchor``), searched
through whole prompts, where ``regex``'s literal search is faster.

Why a twin finds the same matches, with the same groups, where it is used: both engines are
backtracking matchers with the same semantics for every construct of the subset (literal
characters, ``.`` under DOTALL, sets of characters and ranges, the shorthand classes,
capturing, named and non-capturing groups, look-aheads, ``^`` and ``$`` without MULTILINE,
greedy and lazy quantifiers, ordered alternation). A search returns the leftmost position where
an attempt succeeds, and an attempt explores alternatives and repetition counts in the same
order in both, so the first success (the match and what each group holds) is the same. What
the engines disagree on is left out: constructs only ``regex`` has (recursion, ``DEFINE``,
``\\K``, ``\\G``, possessive and atomic forms, set operations, nested sets, Unicode properties),
look-behinds (``regex`` matches them backwards, which can fill their groups differently),
back-references, word boundaries, inline flags, comments, other escapes, literal braces, and a
name given to two groups (``re`` refuses it). A character of the pattern that is not ASCII
matches itself in both (no flag folds case), and nothing in ASCII text.

The subset is read off the parsed tree, spelling included: a twin is the pattern's own text
with only ``\\s`` and ``\\S`` rewritten, so each part must be written the way both engines read
alike (``\\x3c``, ``(?<name>...)`` or ``{,2}`` mean the same to ``regex`` but are not in it).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

from . import nodes as n
from .parser import parse

# The characters regex reads as \s (Unicode White_Space), as a set's members for re: the set
# rtc.runtime.matching.SPACE_CHARS holds, in ranges (both are checked against regex).
WHITE_SPACE = "\\t-\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
_ANY = "[\\x00-\\U0010ffff]"
_UNICODE_DEPENDENT = frozenset("dDwW")
_CLASS_ESCAPES = frozenset("sSdDwW")
_CHAR_ESCAPES = frozenset("ntrfv")
_QUANTIFIER = re.compile(r"(?:[*+?]|\{\d+(?:,\d*)?\})\??")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADS = {n.CAPTURE: "(", n.GROUP: "(?:", n.AHEAD: "(?=", n.NOT_AHEAD: "(?!"}


@dataclass(frozen=True)
class Twin:
    """How to compile a pattern's twin, and where it may run."""

    source: str  # the pattern text for re
    ascii_only: bool  # run it on ASCII text only (else on any text)

    @property
    def flags(self) -> str:
        return "re.ASCII | re.DOTALL" if self.ascii_only else "re.DOTALL"


class _Outside(Exception):
    """The pattern uses something outside the subset."""


def searches_well(pattern: str) -> bool:
    """Whether ``re`` is expected to search for ``pattern`` faster than ``regex``: unless it
    begins with an optional group (see the module docstring). Speed only: never correctness."""
    tree = parse(pattern)
    node = tree.root
    while isinstance(node, (n.Alt, n.Seq)) and n.children(node):
        node = n.children(node)[0]
    if not (isinstance(node, n.Repeat) and node.low == 0 and node.start == 0):
        return True
    return not tree.source(node.body).startswith("(")  # a group, DEFINE, a call...


def re_twin(pattern: str) -> Twin | None:
    """The twin of ``pattern`` (see the module docstring), or None where it has none."""
    tree = parse(pattern)
    try:
        if tree.error is not None or tree.inline:
            raise _Outside("invalid, or inline flags or comments")
        ascii_only = _check(tree, tree.root)
    except _Outside:
        return None
    twin = Twin(pattern, True) if ascii_only else Twin(_universal(tree), False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. FutureWarning for what may become a nested set
        try:
            re.compile(twin.source, re.ASCII | re.DOTALL if twin.ascii_only else re.DOTALL)
        except (re.error, Warning, RecursionError, OverflowError):
            return None
    return twin


def _check(tree: n.Tree, node: n.Node) -> bool:
    """Raise _Outside unless ``node`` is in the subset, spelling included; whether it uses a
    Unicode-dependent shorthand (then only its ASCII twin exists)."""
    source = tree.source(node)
    if isinstance(node, n.Char):
        if source in ("]", "}", "{") or (source.startswith("\\") and not _plain_escape(source[1])):
            raise _Outside(f"the character {source!r}")
        return False
    if isinstance(node, n.Class):
        if node.is_set:
            return _set(source)[1]
        if source != "." and not (source[0] == "\\" and source[1] in _CLASS_ESCAPES):
            raise _Outside(f"the class {source}")
        return source[1:] in _UNICODE_DEPENDENT
    if isinstance(node, n.Assert):
        if source not in ("^", "$"):
            raise _Outside(f"the assertion {source}")
        return False
    if isinstance(node, n.Group):
        head = tree.pattern[node.start : node.head]
        if node.name is not None:
            if head != f"(?P<{node.name}>" or not _NAME.fullmatch(node.name):
                raise _Outside("a group name written otherwise")
        elif _HEADS.get(node.kind) != head:
            raise _Outside(f"the group {head}")
        return _check(tree, node.body)
    if isinstance(node, n.Repeat):
        quantifier = tree.pattern[node.body.end : node.end]
        if not _QUANTIFIER.fullmatch(quantifier):
            raise _Outside(f"the quantifier {quantifier}")
        body = node.body
        if isinstance(body, n.Assert) or (isinstance(body, n.Group) and body.is_lookaround):
            raise _Outside("a quantified assertion")
        return _check(tree, body)
    if isinstance(node, (n.Seq, n.Alt)):
        return any([_check(tree, child) for child in n.children(node)])
    if isinstance(node, n.Empty):
        return False
    raise _Outside(type(node).__name__)


def _plain_escape(e: str) -> bool:
    """An escape both engines read as the same character."""
    return e in _CHAR_ESCAPES or (e.isascii() and not e.isalnum())


def _set_tokens(source: str) -> list[str]:
    """The members of a set's text as written (``\\x`` escapes as one token), after ``[``
    and an optional ``^``; the closing ``]`` is left out."""
    body = source[1:-1]
    if body.startswith("^"):
        body = body[1:]
    tokens = []
    i = 0
    while i < len(body):
        step = 2 if body[i] == "\\" else 1
        tokens.append(body[i : i + step])
        i += step
    return tokens


def _set(source: str) -> tuple[str, bool]:
    """The set written for re (\\s written out), and whether it uses a Unicode-dependent
    shorthand; raises _Outside outside the subset."""
    negated = source.startswith("[^")
    tokens = _set_tokens(source)
    out = ["[^" if negated else "["]
    dependent = has_class = has_not_s = inner_dash = False
    for index, token in enumerate(tokens):
        if index == 0 and token == "]":
            out.append("\\]")  # a leading ']' is a member
            continue
        if token == "[":
            raise _Outside("a nested set or POSIX class")
        if token.startswith("\\"):
            e = token[1]
            if not (e in _CLASS_ESCAPES or _plain_escape(e)):
                raise _Outside(f"the escape {token} in a set")
            dependent = dependent or e in _UNICODE_DEPENDENT
            has_class = has_class or e in _CLASS_ESCAPES
            has_not_s = has_not_s or e == "S"
            out.append(WHITE_SPACE if e == "s" else token)
            continue
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if token in "&~|-" and following == token:
            raise _Outside("a set operation")
        first = 1 if tokens[:1] == ["]"] else 0
        if token == "-" and index != first and following:
            inner_dash = True  # a range (or, next to a class escape, an error or a literal)
        out.append(token)
    if has_class and inner_dash:
        raise _Outside("a range next to a class escape")
    if has_not_s:
        # \S can be written out only as the whole of [\s\S] (any character).
        if source not in ("[\\s\\S]", "[\\S\\s]"):
            raise _Outside("\\S inside a set")
        return _ANY, dependent
    return "".join(out) + "]", dependent


def _universal(tree: n.Tree) -> str:
    """The pattern with every \\s and \\S written out (only classes change)."""
    out = []
    done = 0
    for node in n.walk(tree.root):
        if not isinstance(node, n.Class):
            continue
        source = tree.source(node)
        if node.is_set:
            text = _set(source)[0]
        else:
            text = {"\\s": f"[{WHITE_SPACE}]", "\\S": f"[^{WHITE_SPACE}]"}.get(source, source)
        out += [tree.pattern[done : node.start], text]
        done = node.end
    return "".join(out) + tree.pattern[done:]
