"""What every check works with: the template, its validated model, the probe and the corpus."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from rtc.compiler.model import Delimiter, Field, Template
from rtc.compiler.validate import _path as key_path  # one rule for key paths in messages

from .findings import Example, Finding
from .probe import ONE_SHOT, Probe, Run
from .texts import Corpus

ONE_SHOT_RUN = Run("result", ONE_SHOT)


@dataclass
class Context:
    template: dict[str, Any]
    model: Template
    probe: Probe
    corpus: Corpus
    eos_tokens: tuple[str, ...] = ()

    @property
    def prefix(self) -> str:
        return self.corpus.prefix

    def field_path(self, f: Field, *keys: str) -> str:
        return key_path("fields", f.name, *keys)

    def delimiter_path(self, f: Field, delim: Delimiter) -> str:
        return key_path("fields", f.name, delim.key)

    def example(self, text: str, *runs: Run, prefix: str | None = None) -> Example:
        return Example(self.prefix if prefix is None else prefix, text, runs or (ONE_SHOT_RUN,))

    def finding(
        self,
        code: str,
        severity: str,
        path: str,
        message: str,
        example: Example | None,
        suggestion: str | None = None,
    ) -> Finding:
        """A finding whose example result is produced by running the probe."""
        result = example.produce(self.probe) if example is not None else None
        return Finding(code, severity, path, message, example, result, suggestion)

    def one_shot(self, text: str) -> Any:
        return self.probe.one_shot(self.prefix, text)

    def with_field(self, f: Field, **changes: Any) -> dict[str, Any]:
        """A copy of the template with keys of field ``f`` changed (None removes a key)."""
        changed = copy.deepcopy(self.template)
        spec = changed["fields"][f.name]
        for key, value in changes.items():
            if value is None:
                spec.pop(key, None)
            else:
                spec[key] = value
        return changed

    def fixed_result(self, template: dict[str, Any], example: Example) -> Any:
        """What ``template`` (a suggested change) gives for ``example``'s first run."""
        fixed = Probe(template, self.probe.tools)
        return example.produce(fixed) if len(example.runs) == 1 else None


def quote(text: str, limit: int = 60) -> str:
    """``text`` for a message: in backticks, control characters escaped, long texts shortened."""
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    escaped = "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in shown)
    return f"`{escaped}`"


__all__ = ["Context", "quote"]
