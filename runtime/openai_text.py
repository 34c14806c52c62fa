"""Text fields for the OpenAI delta layer: content and reasoning, as committed text arrives.

A streamed text field sends each occurrence's committed text, stripped like its value when the
field strips: leading whitespace is dropped and trailing whitespace is held until more text
follows, so what was sent for an occurrence is exactly the value its ``region_close`` carries.
A string default is sent first; a ``join`` separator before every later occurrence.
"""

from __future__ import annotations

from typing import Any

from .engine import FieldInfo
from .loop import STORE_JOIN

__all__ = ["TextDeltas", "problem"]


def problem(kind: str, field: str | None, message: str, **extra: Any) -> dict[str, Any]:
    """One entry of a stream's ``problems``."""
    return {"type": kind, "field": field, "message": message, **extra}


class TextDeltas:
    """The streamed text fields of one generation: their deltas and what they accumulate.

    ``cur`` is the field whose occurrence is being streamed (-2: none); ``add`` turns its
    committed text into deltas. ``content`` and ``reasoning`` hold every piece sent.
    """

    __slots__ = (
        "cur",
        "key",
        "plain",
        "content",
        "reasoning",
        "_fields",
        "_roles",
        "_keys",
        "_strip",
        "_stripping",
        "_started",
        "_held",
        "_had",
        "_joined",
        "_last_field",
        "_problems",
    )

    def __init__(
        self,
        fields: tuple[FieldInfo, ...],
        roles: tuple[str | None, ...],
        keys: tuple[Any, ...],
        strip: tuple[bool, ...],
        problems: list[dict[str, Any]],
    ) -> None:
        self._fields = fields
        self._roles = roles
        self._keys = keys  # by field: the delta key(s) of a streamed text field, else None
        self._strip = strip
        self._problems = problems
        self.cur = -2
        self.key: Any = None
        # The occurrence's text goes out as it comes: not stripped, one key.
        self.plain = False
        self._stripping = self._started = False
        self._held = ""
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self._had = [False] * len(fields)  # a text field already has non-empty text
        self._joined: set[int] = set()  # join fields with a previous value (a separator is due)
        self._last_field: dict[str, int] = {}

    def streams(self, i: int) -> bool:
        return self._keys[i] is not None

    def defaults(self, defaults: dict[str, Any], out: list[dict[str, Any]]) -> None:
        """A string default of a streamed text field is its first value (a join separator
        follows it): sent before anything else."""
        for i, key in enumerate(self._keys):
            value = defaults.get(self._fields[i].name)
            if key is None or not isinstance(value, str):
                continue
            if self._fields[i].store == STORE_JOIN:
                self._joined.add(i)
            if value:
                out.append(_say(key, value))
                self._add_text(i, value)

    def open(self, i: int, out: list[dict[str, Any]]) -> None:
        """An occurrence of field ``i`` begins."""
        key = self._keys[i]
        self.cur = i
        self.key = key
        self._stripping = strip = self._strip[i]
        self._started = not strip
        self._held = ""
        self.plain = not strip and key.__class__ is str
        if i in self._joined:
            separator = self._fields[i].join
            if separator:
                out.append(_say(key, separator))
                self._pieces(i).append(separator)

    def add(self, text: str) -> list[dict[str, Any]]:
        """Deltas for committed text of the current occurrence."""
        if self.plain and not text[-1].isspace():
            return [{self.key: text}]
        if self._stripping:
            if not self._started:
                text = text.lstrip()
                if not text:
                    return []
                self._started = True
            if self._held:
                text = self._held + text
            body = text.rstrip()
            if len(body) < len(text):
                self._held = text[len(body) :]
                self.plain = False
                if not body:
                    return []
                text = body
            else:
                self._held = ""
                self.plain = self.key.__class__ is str
        return [_say(self.key, text)]

    def close(self, i: int, value: str) -> None:
        """End of an occurrence; the text sent for it is exactly ``value``."""
        self.cur = -2
        info = self._fields[i]
        if info.store == STORE_JOIN:
            self._joined.add(i)
        elif self._had[i]:
            self._problems.append(
                problem(
                    "repeated",
                    info.name,
                    f"field {info.name!r} occurs again: its texts are concatenated (the "
                    "reference keeps only the last one)",
                )
            )
        self._add_text(i, value)

    def _pieces(self, i: int) -> list[str]:
        return self.content if self._roles[i] == "content" else self.reasoning

    def _add_text(self, i: int, value: str) -> None:
        role = self._roles[i]
        assert role is not None
        if value:
            other = self._last_field.get(role, i)
            if other != i:
                self._problems.append(
                    problem(
                        "repeated",
                        self._fields[i].name,
                        f"fields {self._fields[other].name!r} and {self._fields[i].name!r} "
                        f"both stream into {role}: their texts are concatenated",
                    )
                )
            self._last_field[role] = i
            self._had[i] = True
        self._pieces(i).append(value)


def _say(key: Any, text: str) -> dict[str, Any]:
    return {key: text} if key.__class__ is str else dict.fromkeys(key, text)
