"""The probe texts: realistic generations assembled from a template's own delimiters.

A :class:`Corpus` picks, for every field, the delimiter samples with which a region holding a
known value parses back to that value on its own (the *canonical* segment), then composes
segments into whole generations: each field alone, pairs in both orders, a field twice, all
fields in template order, with and without a blank line between regions, each ending with the
end-of-turn text (the implicit field's close) where the template has one. The set is fixed by
the template, bounded (:data:`MAX_TEXTS`) and the same on every run.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from rtc.compiler.model import Template

from .patterns import Sample, literal_or_samples
from .probe import Probe, is_raised
from .shapes import Shape, payload_for, shapes

MAX_TEXTS = 160
SEPARATORS = ("", "\n\n")


@dataclass(frozen=True)
class Part:
    """One region as text: its ``opening`` (the open delimiter), ``body`` and ``close``."""

    field: str
    opening: str
    body: str
    close: Sample | None

    @property
    def head(self) -> str:
        return self.opening + self.body


@dataclass(frozen=True)
class ProbeText:
    label: str
    text: str
    parts: tuple[str, ...]  # field names, in order
    ended: bool  # ends with the end-of-turn text


class Corpus:
    """Probe texts for one template, built once and shared by every check."""

    def __init__(self, template: Template, probe: Probe) -> None:
        self.template = template
        self.probe = probe
        self.shapes = shapes(template)
        self.by_name = {s.name: s for s in self.shapes}
        self.implicit = next((s for s in self.shapes if s.field.implicit), None)
        anchor = template.start_anchor
        found = literal_or_samples(anchor.literals, anchor.pattern)
        self.prefix = found[0].witness if found else ""
        self.ends = self._ends()
        self.end = self.ends[0].text if self.ends else ""
        self._parts: dict[tuple[str, int], Part | None] = {}

    def _ends(self) -> list[Sample]:
        """Samples of the implicit field's close: the text that ends the turn."""
        if self.implicit is None or self.implicit.field.close is None:
            return []
        return [s for s in self.implicit.closes() if s.text]

    # -- regions -----------------------------------------------------------------------------

    def part(self, name: str, variant: int = 0, payload: Any = None) -> Part | None:
        """The canonical region of field ``name`` holding its standard value ``variant``
        (0: the first value, 1: a different second one), or ``payload`` if given."""
        key = (name, variant)
        if payload is None and key in self._parts:
            return self._parts[key]
        shape = self.by_name[name]
        made = self._canonical(
            shape, payload if payload is not None else payload_for(shape, variant)
        )
        if payload is None:
            self._parts[key] = made
        return made

    def _canonical(self, shape: Shape, payload: Any) -> Part | None:
        """The first open/close sample pair with which the region parses back on its own."""
        built = shape.body(payload)
        if built is None:
            return None
        body, overrides = built
        if shape.field.implicit:
            # The implicit region has no open, and its close is the end of the turn, which
            # compose() adds to texts that end there.
            return Part(shape.name, "", body, None)
        opens = sorted(shape.opens(overrides, after=body), key=_fullest)
        closes: list[Sample | None] = list(self._ordered_closes(shape)) or [None]
        if not opens:
            return None
        first: Part | None = None
        for opening, close in itertools.islice(itertools.product(opens, closes), 16):
            part = Part(shape.name, opening.text, body, close)
            first = first or part
            text = self.compose([part], ended=False)
            result = self.probe.one_shot(self.prefix, text)
            if not is_raised(result) and holds(shape, result, payload):
                return part
        return first

    def _ordered_closes(self, shape: Shape) -> list[Sample]:
        """Close samples, those that need no particular text after them first, then the
        region's own closes before the end-of-turn text (``</think>`` before ``<|im_end|>``:
        a model closes a region with its delimiter; the end of the turn closes it by accident)."""
        closes = shape.closes()
        ends = {s.text for s in self.ends}
        turn_ends = {text.strip() for text in ends}
        return sorted(
            closes,
            key=lambda s: (
                s.witness != s.text,
                s.witness[len(s.text) :] not in ends,
                s.text.strip() in turn_ends,
                *_fullest(s),
            ),
        )

    # -- whole generations -------------------------------------------------------------------

    def compose(self, parts: list[Part | str], ended: bool, separator: str = "") -> str:
        """The text of ``parts`` in order (plain strings are implicit text), then the end."""
        pieces: list[str] = []
        texts = [p if isinstance(p, str) else p.head for p in parts]
        for index, part in enumerate(parts):
            pieces.append(texts[index])
            if isinstance(part, Part) and part.close is not None:
                close = part.close
                after = close.witness[len(close.text) :]
                following = separator + (
                    texts[index + 1] if index + 1 < len(parts) else (self.end if ended else "")
                )
                pieces.append(close.text if following.startswith(after) else close.witness)
            if index + 1 < len(parts):
                pieces.append(separator)
        if ended:
            pieces.append(self.end)
        return "".join(pieces)

    def texts(self) -> list[ProbeText]:
        """The standard probe generations (at most :data:`MAX_TEXTS`)."""
        names = [s.name for s in self.shapes]
        orders: list[tuple[str, ...]] = [(n,) for n in names]
        orders += list(itertools.permutations(names, 2))
        orders += [(n, n) for n in names]
        if len(names) > 2:
            orders.append(tuple(names))
            if self.implicit is not None:
                rest = [n for n in names if n != self.implicit.name]
                orders.append((*rest, self.implicit.name))
        out: list[ProbeText] = []
        seen: set[str] = set()
        for order in orders:
            parts = [self.part(n, order[:i].count(n)) for i, n in enumerate(order)]
            if any(p is None for p in parts):
                continue
            for separator in SEPARATORS:
                for ended in (True, False) if self.end else (False,):
                    text = self.compose(parts, ended, separator)  # type: ignore[arg-type]
                    if text in seen or not text:
                        continue
                    seen.add(text)
                    label = " + ".join(order) + (" + end" if ended else "")
                    out.append(ProbeText(label, text, order, ended))
                    if len(out) >= MAX_TEXTS:
                        return out
        return out


def _fullest(sample: Sample) -> tuple[int, int]:
    """Sort key: samples with the most delimiter text first, the least extra whitespace next
    (``)]<|tool_call_end|>`` before ``)``, as models write the whole delimiter)."""
    return (-len("".join(sample.text.split())), len(sample.text))


def holds(shape: Shape, message: dict[str, Any], payload: Any) -> bool:
    """Whether ``message`` holds the value one region with ``payload`` gives the field."""
    if shape.name not in message:
        return False
    value = message[shape.name]
    if shape.role != "tool":
        return value not in ("", None)
    wanted = [(c.name, c.arguments) for c in payload]
    return tool_calls(value) == wanted


def tool_calls(value: Any) -> list[tuple[Any, Any]]:
    """(name, arguments) of every tool call in a field's value (lists of calls flattened;
    ``{"function": {...}}`` or a bare ``{"name", "arguments"}``), anything else as (None, it)."""
    items = value if isinstance(value, list) else [value]
    flat = [c for item in items for c in (item if isinstance(item, list) else [item])]
    out: list[tuple[Any, Any]] = []
    for call in flat:
        function = call.get("function", call) if isinstance(call, dict) else None
        if isinstance(function, dict):
            out.append((function.get("name"), function.get("arguments")))
        else:
            out.append((None, call))
    return out
