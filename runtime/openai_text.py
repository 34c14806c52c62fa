"""Text fields for the OpenAI delta layer: content and reasoning, as committed text arrives.

A streamed text field sends each occurrence's committed text, stripped like its value when the
field strips: leading whitespace is dropped and trailing whitespace is held until more text
follows, so what was sent for an occurrence is exactly the value its ``region_close`` carries.
A string default is sent first; a ``join`` separator before every later occurrence.
"""

from __future__ import annotations

from typing import Any

from .engine import STORE_JOIN
from .openai_calls import problem

__all__ = ["TextDeltas"]


class TextDeltas:
    """The text half of ``OpenAIDeltaStream`` (which holds the state in its slots)."""

    __slots__ = ()

    # Provided by OpenAIDeltaStream.
    _parser: Any
    _roles: tuple[str | None, ...]
    _strip: tuple[bool, ...]
    _keys: tuple[Any, ...]
    _tcur: int
    _tkey: Any
    _tprobe: Any
    _clear: tuple[Any, ...]
    _tstrip: bool
    _tstarted: bool
    _theld: str
    _tplain: bool
    _content: list[str]
    _reasoning: list[str]
    _had: list[bool]
    _joined: set[int]
    _last_text_field: dict[str, int]
    problems: list[dict[str, Any]]

    def _say(self, key: Any, text: str) -> dict[str, Any]:
        return {key: text} if key.__class__ is str else dict.fromkeys(key, text)

    def _defaults(self, out: list[dict[str, Any]]) -> None:
        """A string default of a streamed text field is its first value (a join separator
        follows it): sent before anything else."""
        defaults = self._parser._new_output()
        for i, key in enumerate(self._keys):
            value = defaults.get(self._parser._names[i])
            if key is None or not isinstance(value, str):
                continue
            if self._parser._store[i] == STORE_JOIN:
                self._joined.add(i)
            if value:
                out.append(self._say(key, value))
                self._add_text(i, value)

    def _open_text(self, i: int, out: list[dict[str, Any]]) -> None:
        key = self._keys[i]
        self._tcur = i
        self._tkey = key
        self._tprobe = self._clear[i + 1]
        self._tstrip = strip = self._strip[i]
        self._tstarted = not strip
        self._theld = ""
        self._tplain = not strip and key.__class__ is str
        if i in self._joined:
            separator = self._parser._joins[i]
            if separator:
                out.append(self._say(key, separator))
                (self._content if self._roles[i] == "content" else self._reasoning).append(
                    separator
                )

    def _text(self, text: str) -> list[dict[str, Any]]:
        """Deltas for committed text of the current text occurrence."""
        if self._tplain and not text[-1].isspace():
            return [{self._tkey: text}]
        if self._tstrip:
            if not self._tstarted:
                text = text.lstrip()
                if not text:
                    return []
                self._tstarted = True
            if self._theld:
                text = self._theld + text
            body = text.rstrip()
            if len(body) < len(text):
                self._theld = text[len(body) :]
                self._tplain = False
                if not body:
                    return []
                text = body
            else:
                self._theld = ""
                self._tplain = self._tkey.__class__ is str
        key = self._tkey
        return [{key: text}] if key.__class__ is str else [dict.fromkeys(key, text)]

    def _close_text(self, i: int, value: str) -> None:
        """End of an occurrence; the text sent for it is exactly ``value``."""
        self._tcur = -2
        if self._parser._store[i] == STORE_JOIN:
            self._joined.add(i)
        elif self._had[i]:
            self.problems.append(
                problem(
                    "repeated",
                    self._parser._names[i],
                    f"field {self._parser._names[i]!r} occurs again: its texts are "
                    "concatenated (the reference keeps only the last one)",
                )
            )
        self._add_text(i, value)

    def _add_text(self, i: int, value: str) -> None:
        role = self._roles[i]
        if value:
            other = self._last_text_field.get(role, i)
            if other != i:
                self.problems.append(
                    problem(
                        "repeated",
                        self._parser._names[i],
                        f"fields {self._parser._names[other]!r} and {self._parser._names[i]!r} "
                        f"both stream into {role}: their texts are concatenated",
                    )
                )
            self._last_text_field[role] = i
            self._had[i] = True
        (self._content if role == "content" else self._reasoning).append(value)
