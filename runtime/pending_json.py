"""A call's JSON value pending from the search position, read one chunk at a time.

The catalogue's JSON-reading templates find a call's arguments with a recursive pattern: a JSON
value grammar under ``(?(DEFINE)(?P<jv>...)(?P<js>...))`` (``GRAMMAR`` in the compiler's
``regex_syntax.json_value``). While the value streams, the state holds everything from the
search position, and the fast path asked the state's scanner at every chunk whether it still
does: a partial-mode search over the whole held text, tens of microseconds a token, and more as
the value grows. A position automaton (``pending.Steps``) cannot read recursion; :class:`JsonSteps`
reads the value with a stack instead, each chunk once, and answers as ``Steps`` does.

It reads two shapes of pattern (``regex_syntax.json_value.json_shape``):

- **an opening:** ``H(?=\\s*(?&jv)R)``, where the head ``H`` has a position automaton and
  begins with one of a few literals (``<tool_call>``; ``\\[TOOL_CALLS\\]\\s*(?P<name>...)...``),
  and the rest ``R`` is empty or ``\\s*(?:L1|L2|$)`` (literals, and perhaps ``$``);
- **a close at the search position:** ``\\G(?:(?&jv)\\K|(?<=C))...``: the value, or at once
  after the character ``C``.

**Why it is exact.** A state answers "pending" (``sure``) only where the text read from the
search position is a proper prefix of a match at the search position that some continuation
completes (the head or a part of it; then, where the head may end, whitespace and a proper
prefix of a JSON value of the grammar; or the whole value and a proper prefix of a literal of
``R``), and no match from the search position on is complete: none at the search position
(every one reads a whole value, and ``R`` to its end: a whole literal, or ``$``, which is why a
value followed by whitespace alone is not sure where ``R`` has ``$``), none after it (a match
that starts later begins with a whole literal the head begins with, after the search position:
it is checked for; ``\\G`` matches start nowhere else), and not the look-behind alternative
(the character before the search position, which does not change, is not ``C``). Then the
``regex`` module's partial-mode search reports the match at the search position as partial
(it reads the path through the text to its end), and the scanner returns at once holding
everything (``pending``'s argument). Anything this reader does not model answers ``OUT`` (or
not sure), and the scanner decides: whitespace other than ASCII's where the grammar reads
``\\s``, digits other than ASCII's, a value that is a number at the top.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .pending import MAX_MOVES, _Automaton

if TYPE_CHECKING:
    from .engine import CompiledParser

__all__ = ["JsonSteps"]

OUT = -1  # (pending.OUT: not, or no longer, provably pending)

# Whitespace the grammar's \s reads: the ASCII characters, which every \s reads alike. Other
# characters that \s may read answer OUT where the grammar expects whitespace.
_SPACE = frozenset(" \t\n\r\f\v")
_DIGITS = frozenset("0123456789")

# Reading modes. A value's reading is (mode, stack, aux): the open containers ("{" and "["),
# and what the mode needs (a string's key flag, a word's letters still to come, the literal of
# the rest read so far).
_TOP = 0  # before the value: whitespace (where the pattern has \s*) or the value
_VALUE = 1  # a value in a container (after ":", or "," in an array): whitespace or the value
_FIRST_ITEM = 2  # after "[": whitespace, a value, or "]"
_FIRST_KEY = 3  # after "{": whitespace, a key, or "}"
_KEY = 4  # after "," in an object: whitespace, a key
_STRING = 5  # in a string (aux: "k" for a key)
_ESCAPE = 6  # after a backslash in a string (aux: "k" for a key)
_COLON = 7  # after a key: whitespace, ":"
_AFTER = 8  # after a value in a container: whitespace, ",", or its close
_WORD = 9  # in true, false or null (aux: the letters still to come)
_MINUS = 10  # after "-": a digit
_INT = 11  # in the integer part: a digit, ".", "e", "E", or the value ends
_DOT = 12  # after ".": a digit
_FRACTION = 13  # in the fraction: a digit, "e", "E", or the value ends
_E = 14  # after "e": a sign or a digit
_SIGN = 15  # after the exponent's sign: a digit
_EXPONENT = 16  # in the exponent: a digit, or the value ends
_REST = 17  # the value is complete: whitespace before the rest's literal
_REST_LITERAL = 18  # in the rest's literal (aux: what of it is read)
_ARRAY = 20  # before a value that must be an array whose first item is an object: "["
_FIRST_OBJECT = 21  # after that "[": whitespace, then "{"
_DONE = 19  # (returned only: the match is complete, or the text is not modelled)
_STOP = (_DONE, "", "")

_WORDS = {"t": "rue", "f": "alse", "n": "ull"}
_CLOSES = {"{": "}", "[": "]"}


class JsonSteps:
    """Reads a pattern of the shapes above, with the interface of ``pending.Steps``: ``start``
    gives the state before the held text, ``read`` the state after a chunk (or ``OUT``), and
    ``sure`` whether a state is pending.

    ``head``: the head's position automaton, ``(pieces, jumps, first, last)`` as for
    ``pending.Steps`` (None: ``\\G``, the value at the search position); ``leads``: the literals
    every head begins with; ``spaced``: whitespace may come between head and value; ``rest``:
    the rest's literals, None where the pattern ends with the value; ``dollar``: the rest may
    end at ``$``; ``behind``: the characters the look-behind alternative matches after;
    ``objects``: the head ends with ``(?=\\[\\s*\\{(?&jv)*)`` (mistral_v3's): the value is an
    array whose first item is an object (that look-ahead succeeds once ``[``, whitespace and
    ``{`` are read, and while they are not it fails where the value's reading does).

    A state is ``(heads, values, tail)``: the head's positions reached (a path of the head from
    the search position), the readings of values begun where the head may end, and the last
    characters read (a later literal may span chunks)."""

    __slots__ = (
        "_head",
        "leads",
        "spaced",
        "rest",
        "dollar",
        "behind",
        "_keep",
        "_start",
        "_moves",
        "_ends",
        "_top",
    )

    def __init__(
        self,
        head: tuple[Any, ...] | None = None,
        leads: tuple[str, ...] = (),
        spaced: bool = False,
        rest: tuple[str, ...] | None = None,
        dollar: bool = False,
        behind: str = "",
        objects: bool = False,
    ) -> None:
        self._head = None if head is None else _Automaton(*head)
        self._ends = frozenset() if self._head is None else self._head.last
        self.leads = leads
        self.spaced = spaced
        self.rest = rest
        self.dollar = dollar
        self.behind = behind
        # Characters kept from one chunk to the next for the later-literal check.
        self._keep = max(map(len, leads), default=1) - 1
        heads = frozenset({-1}) if head is not None else frozenset()
        # Where a value begins (objects: the template looks ahead for "[", whitespace, "{").
        self._top = (_ARRAY if objects else _TOP, "", "")
        values = () if head is not None else (self._top,)
        self._start = (heads, values, None)
        self._moves: dict[tuple[frozenset[int], str], frozenset[int]] = {}

    def start(self, p: CompiledParser) -> Any:
        """The state before the held text of ``p``: the character before its search position
        decides the look-behind alternative, as for the scanner, which reads the same buffer."""
        if self.behind:
            pos = p._pos
            if pos and p._buf[pos - 1] in self.behind:
                return OUT
        return self._start

    def sure(self, state: Any) -> bool:
        """Whether ``state`` (not OUT) is pending: no value read to its end is followed by
        whitespace alone where the rest may end at ``$`` (that match is complete for now)."""
        if not self.dollar:
            return True
        return all(value[0] != _REST for value in state[1])

    def read(self, state: Any, text: str) -> Any:
        """The state after ``text``, or ``OUT``."""
        if state == OUT:
            return OUT
        heads, values, tail = state
        if not heads and len(values) == 1:
            # (The common case once the head is read: one value, read in one go.)
            mode, stack, aux = values[0]
            value = _read_value(self.rest, self.spaced, mode, stack, aux, text)
            if value is None or value[0] == _DONE:
                return OUT
            values = (value,)
        else:
            for ch in text:
                reading = []
                for mode, stack, aux in values:
                    value = _read_value(self.rest, self.spaced, mode, stack, aux, ch)
                    if value is not None:
                        if value[0] == _DONE:
                            return OUT
                        reading.append(value)
                if heads:
                    heads = self._head_move(heads, ch)
                    if not heads.isdisjoint(self._ends):
                        reading.append(self._top)  # a value may begin after this character
                if not heads and not reading:
                    return OUT
                values = tuple(dict.fromkeys(reading))
        if self.leads:
            # A later match begins with a whole literal after the search position: none may
            # be read (a match at the search position begins at its first character).
            window = text[1:] if tail is None else tail + text
            if any(lead in window for lead in self.leads):
                return OUT
            tail = window[max(0, len(window) - self._keep) :]
        return (heads, values, tail)

    def _head_move(self, heads: frozenset[int], ch: str) -> frozenset[int]:
        """The head's positions after ``ch`` (remembered, up to ``pending.MAX_MOVES`` moves:
        a class is tested by the ``regex`` module)."""
        key = (heads, ch)
        found = self._moves.get(key)
        if found is None:
            head = self._head
            assert head is not None
            found = frozenset(
                q
                for p in heads
                for q in (head.first if p == -1 else head.follow[p])
                if head.accepts(q, ch)
            )
            if len(self._moves) < MAX_MOVES:
                self._moves[key] = found  # (one dict item set: safe across threads)
        return found


def _read_value(
    rest: tuple[str, ...] | None, spaced: bool, mode: int, stack: str, aux: str, text: str
) -> Any:
    """A value's reading after ``text`` (see JsonSteps: ``rest``, ``spaced``): ``(mode, stack,
    aux)``; ``_STOP`` where the match is complete or the text is not modelled (the state is then
    OUT); None where no continuation completes this reading."""
    for ch in text:
        if mode == _STRING:
            if ch == '"':
                if aux:
                    mode, aux = _COLON, ""
                elif stack:
                    mode = _AFTER
                else:
                    mode = _REST  # a string at the top, complete
            elif ch == "\\":
                mode = _ESCAPE
            continue
        if mode == _ESCAPE:
            mode = _STRING  # (\\. in DOTALL: any character)
            continue
        if mode >= _MINUS and mode <= _EXPONENT:
            if ch in _DIGITS:
                if mode <= _INT:
                    mode = _INT
                elif mode <= _FRACTION:
                    mode = _FRACTION
                else:
                    mode = _EXPONENT
                continue
            if mode == _INT and ch == ".":
                mode = _DOT
                continue
            if (mode == _INT or mode == _FRACTION) and (ch == "e" or ch == "E"):
                mode = _E
                continue
            if mode == _E and (ch == "+" or ch == "-"):
                mode = _SIGN
                continue
            if mode != _INT and mode != _FRACTION and mode != _EXPONENT:
                # A number cut short: no continuation completes it (but \d may read a
                # digit other than ASCII's).
                return _STOP if ch > "\x7f" else None
            mode = _AFTER  # the number ended before this character (numbers are nested)
        elif mode == _WORD:
            if ch != aux[0]:
                return None
            aux = aux[1:]
            if not aux:
                mode = _AFTER if stack else _REST
            continue
        elif mode == _REST_LITERAL:
            aux += ch
            literals = rest or ()  # (a rest's literal is read only where there is a rest)
            if aux in literals:
                return _STOP
            if not any(literal.startswith(aux) for literal in literals):
                return None
            continue
        if ch not in _SPACE and (ch > "\x7f" or ch.isspace()):
            # Outside strings, where \s or \d may read a character other than ASCII's
            # (or a control character \s may read): not modelled.
            return _STOP
        if mode == _REST:
            if rest is None:
                return _STOP  # the pattern ends with the value
            if ch in _SPACE:
                continue
            mode, aux = _REST_LITERAL, ""
            aux += ch
            if aux in rest:
                return _STOP
            if not any(literal.startswith(aux) for literal in rest):
                return None
            continue
        if mode == _ARRAY:
            if ch != "[":
                return None
            mode, stack = _FIRST_OBJECT, "["
            continue
        if ch in _SPACE:
            if mode == _TOP and not spaced:
                return None
            continue
        if mode == _FIRST_OBJECT:
            if ch != "{":
                return None
            mode, stack = _FIRST_KEY, "[{"
            continue
        if mode == _AFTER:
            top = stack[-1]
            if ch == ",":
                mode = _KEY if top == "{" else _VALUE
            elif ch == _CLOSES[top]:
                stack = stack[:-1]
                if not stack:
                    mode = _REST
            else:
                return None
        elif mode == _COLON:
            if ch != ":":
                return None
            mode = _VALUE
        elif mode == _FIRST_KEY or mode == _KEY:
            if ch == '"':
                mode, aux = _STRING, "k"
            elif ch == "}" and mode == _FIRST_KEY:
                stack = stack[:-1]
                mode = _AFTER if stack else _REST
            else:
                return None
        elif mode == _FIRST_ITEM and ch == "]":
            stack = stack[:-1]
            mode = _AFTER if stack else _REST
        # A value: _TOP, _VALUE, _FIRST_ITEM.
        elif ch == "{":
            stack += "{"
            mode = _FIRST_KEY
        elif ch == "[":
            stack += "["
            mode = _FIRST_ITEM
        elif ch == '"':
            mode, aux = _STRING, ""
        elif ch in _WORDS:
            mode, aux = _WORD, _WORDS[ch]
        elif not stack:
            # A number at the top (complete at its first digit), or no value.
            return _STOP if ch == "-" or ch in _DIGITS else None
        elif ch == "-":
            mode = _MINUS
        elif ch in _DIGITS:
            mode = _INT
        else:
            return None
    if mode == _REST and rest is None:
        return _STOP
    return (mode, stack, aux)
