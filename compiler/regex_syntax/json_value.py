r"""Patterns that find a JSON value with the catalogue's recursive grammar, read as
``rtc.runtime.pending_json.JsonSteps`` reads them.

The catalogue's JSON-reading templates (mistral, smollm3, granite, ernie, llama3...) match a
call's arguments with one grammar, :data:`GRAMMAR`, defined in a ``(?(DEFINE)...)`` group and
called as ``(?&jv)``. Such a pattern has no position automaton (recursion is not regular), so
while a value streams its state's scanner ran over the whole held value at every chunk.
:func:`json_shape` recognises the two shapes whose pending matches ``JsonSteps`` reads with a
stack (its docstring has the argument); the grammar must be this one, character for character,
because the reader is written for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import nodes as n
from .literal import leading_literals, literal_text
from .parser import parse
from .positions import Positions, positions

__all__ = ["GRAMMAR", "JsonShape", "json_shape"]

# The JSON value grammar of the catalogue's templates: objects, arrays, strings, numbers and
# the three words, with whitespace (\s*) around the structural characters.
GRAMMAR = (
    r"(?(DEFINE)(?P<jv>\{\s*(?:(?&js)\s*:\s*(?&jv)\s*(?:,\s*(?&js)\s*:\s*(?&jv)\s*)*)?\}"
    r"|\[\s*(?:(?&jv)\s*(?:,\s*(?&jv)\s*)*)?\]|(?&js)|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
    r'|true|false|null)(?P<js>"(?:[^"\\]|\\.)*"))'
)

# \G, then the value (its end kept as the match's start) or a look-behind for one character.
_AT_POS = re.compile(r"\\G\(\?:\(\?&jv\)\\K\|\(\?<=(\\.|[^\\()\[\]])\)\)(.*)", re.DOTALL)
# A head, then a look-ahead for the value (whitespace before it, in or out of the look-ahead).
_AFTER_HEAD = re.compile(r"(.+?)(\\s\*)?\(\?=(\\s\*)?\(\?&jv\)(.*)\)", re.DOTALL)


# mistral_v3's look-ahead before the value's: "[", whitespace, "{", then values (none needed).
# It succeeds once "[", whitespace and "{" are read, so it is read as the value's first
# characters (``JsonSteps(objects=True)``). (Its values are tried right after "{", where a
# key's string is: one cut short by the end of the text is partial there, as the value is.)
_OBJECTS = r"(?=\[\s*\{(?&jv)*)"


@dataclass(frozen=True)
class JsonShape:
    """What ``JsonSteps`` is built with (see its docstring): the head's position automaton
    (None: the value at ``\\G``), the literals every head begins with, whether whitespace may
    come before the value, the rest's literals (None: the pattern ends with the value) and
    whether it may end at ``$``, the look-behind's character ("" for none), and whether the
    value is an array whose first item is an object (``objects``: see :data:`_OBJECTS`)."""

    head: Positions | None
    leads: tuple[str, ...]
    spaced: bool
    rest: tuple[str, ...] | None
    dollar: bool
    behind: str
    objects: bool = False


def json_shape(pattern: str) -> JsonShape | None:
    r"""The shape of ``pattern`` (see ``pending_json``), or None: ``\G(?:(?&jv)\K|(?<=C))...``;
    or ``H(?=\s*(?&jv)R)`` (or ``H\s*(?=(?&jv)R)``) where ``H`` has a position automaton
    and leading literals, and ``R`` is empty or ``\s*`` then a literal or a choice of
    literals (none led by whitespace) and ``$``; the grammar, :data:`GRAMMAR`, before or
    after it."""
    if pattern.startswith(GRAMMAR):
        body = pattern[len(GRAMMAR) :]
    elif pattern.endswith(GRAMMAR):
        body = pattern[: -len(GRAMMAR)]
    else:
        return None
    if parse(pattern).error is not None:
        return None
    if found := _AT_POS.fullmatch(body):
        behind, after = found.groups()
        if not _balanced(after):
            return None
        return JsonShape(None, (), False, None, False, behind[-1])
    found = _AFTER_HEAD.fullmatch(body)
    if found is None:
        return None
    head, outside, inside, after = found.groups()
    objects = head.endswith(_OBJECTS) and not outside
    if objects:
        head = head[: -len(_OBJECTS)]
    if not _balanced(head) or not _balanced(after):
        return None  # (the last ")" must close the look-ahead)
    automaton = positions(head + (outside or ""))
    leads = leading_literals(parse(head))
    if automaton is None or not leads or not all(leads):
        return None
    if not after:
        return JsonShape(automaton, leads, bool(inside), None, False, "", objects)
    rest = _rest(after)
    if rest is None:
        return None
    literals, dollar = rest
    return JsonShape(automaton, leads, bool(inside), literals, dollar, "", objects)


def _rest(after: str) -> tuple[tuple[str, ...], bool] | None:
    """``\\s*`` then literals (a choice of them, in a group or not) and perhaps ``$``, as the
    literals and whether ``$`` is one; else None. A literal led by whitespace would need the
    ``\\s*`` before it to give a character back, which the reader does not do."""
    if not after.startswith(r"\s*"):
        return None
    tree = parse(after[3:])
    if tree.error is not None or tree.outside is not None:
        return None
    root = tree.root
    while isinstance(root, n.Group) and root.kind in (n.GROUP, n.CAPTURE):
        root = root.body
    literals, dollar = [], False
    for branch in root.branches if isinstance(root, n.Alt) else (root,):
        if isinstance(branch, n.Assert) and branch.kind == n.END_OR_NEWLINE:
            dollar = True
            continue
        literal = literal_text(tree, branch)
        if not literal or literal[0].isspace():
            return None
        literals.append(literal)
    return tuple(dict.fromkeys(literals)), dollar


def _balanced(source: str) -> bool:
    """Whether the groups of ``source`` (a piece of a pattern) open and close within it:
    escapes and classes skipped."""
    depth = 0
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            # A class: to its closing "]" (one right after "[" or "[^" is a member).
            j = i + 1
            if j < len(source) and source[j] == "^":
                j += 1
            if j < len(source) and source[j] == "]":
                j += 1
            while j < len(source) and source[j] != "]":
                j += 2 if source[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0
