"""``rtc lint``: what a response template will do to real output, found by running it.

Every check probes the template's compiled parser (``rtc.compiler.load``, exactly what the
generated module does) with texts built from the template's own delimiters, or analyses its
patterns; every finding carries an example produced by the parser. Checks, one module per
family:

- :mod:`.structure`: ``overwritten-field``, ``ambiguous-delimiters``, ``unreachable-field``,
  ``unprobed-field``;
- :mod:`.reasoning`: ``call-inside-reasoning``;
- :mod:`.glue`: ``glued-text``;
- :mod:`.streaming`: ``chunk-dependent``, ``stop-token-dependent``, ``unbounded-holdback``;
- :mod:`.prose`: ``slow-prose`` (prose streamed off the fast path, with its measured cost);
- :mod:`.outputs`: ``raises-on-output``, ``narrow-tool-name``, ``non-terminating``;
- :mod:`.backtracking`: ``catastrophic-backtracking``;
- :mod:`.roundtrip`: ``round-trip`` (with a chat template, rendered by :mod:`rtc.compiler.chat`).

This package is build-time only (jinja2 for chat templates); nothing on the production path
imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rtc.compiler.chat import ChatTemplate, ChatTemplateError
from rtc.compiler.validate import validate

from . import backtracking, glue, outputs, prose, reasoning, streaming, structure
from .context import Context
from .findings import ERROR, INFO, SEVERITIES, WARNING, Finding
from .probe import Probe, ProbeTimeout, raised
from .roundtrip import round_trip
from .shapes import TOOLS
from .texts import Corpus

CHECKS: tuple[tuple[str, Callable[[Context], list[Finding]]], ...] = (
    ("catastrophic-backtracking", backtracking.catastrophic_backtracking),
    ("non-terminating", outputs.non_terminating),
    ("raises-on-output", outputs.raises_on_output),
    ("narrow-tool-name", outputs.narrow_tool_name),
    ("stop-token-dependent", streaming.stop_token_dependent),
    ("chunk-dependent", streaming.chunk_dependent),
    ("unbounded-holdback", streaming.unbounded_holdback),
    ("slow-prose", prose.slow_prose),
    ("overwritten-field", structure.overwritten_field),
    ("glued-text", glue.glued_text),
    ("ambiguous-delimiters", structure.ambiguous_delimiters),
    ("unreachable-field", structure.unreachable_field),
    ("unprobed-field", structure.unprobed_field),
    ("call-inside-reasoning", reasoning.call_inside_reasoning),
)
CODES = tuple(code for code, _ in CHECKS) + ("round-trip",)


def lint(
    template: dict[str, Any],
    *,
    chat_template: str | None = None,
    special_tokens: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Every finding for ``template`` (a response template dict), most severe first.

    ``chat_template`` (jinja2 source) adds the round trips; ``special_tokens`` are the
    tokenizer's (``eos_token`` is also taken as an end-of-turn token). Raises
    ``TemplateError``/``TemplateTypeError`` for an invalid template, like ``rtc compile``.
    """
    model = validate(template)
    tokens = dict(special_tokens or {})
    probe = Probe(template, TOOLS)
    findings: list[Finding] = []
    try:
        eos = tuple(t for t in (tokens.get("eos_token"),) if t)
        ctx = Context(template, model, probe, Corpus(model, probe), eos)
        for _, check in CHECKS:
            findings += check(ctx)
        if chat_template is not None:
            findings += _round_trips(ctx, chat_template, tokens)
    except ProbeTimeout as timeout:
        findings.append(_timed_out(timeout))
    return sorted(findings, key=Finding.sort_key)


def _round_trips(ctx: Context, source: str, tokens: dict[str, str]) -> list[Finding]:
    try:
        chat = ChatTemplate(source, tokens)
    except ChatTemplateError as exc:
        return [Finding("round-trip", INFO, "chat_template", f"no round trips: {exc}")]
    return round_trip(ctx, chat)


def _timed_out(timeout: ProbeTimeout) -> Finding:
    """The probe stopped: a parse of a short text took longer than the probe's limit."""
    from .findings import Example

    return Finding(
        "catastrophic-backtracking",
        ERROR,
        "fields",
        "parsing this short text did not finish within the probe's time limit: a pattern "
        "backtracks catastrophically on it (the remaining checks were not run).",
        Example(timeout.prefix, timeout.text),
        raised(TimeoutError(str(timeout))),
        "find the nested or overlapping repeats in the template's patterns",
    )


__all__ = [
    "CODES",
    "ERROR",
    "INFO",
    "SEVERITIES",
    "WARNING",
    "Finding",
    "lint",
]
