"""A response template from a chat template, written only from what its renders prove.

``infer(chat_template, special_tokens)`` renders the probe conversations of
:mod:`rtc.compiler.match` and reads the frame of an assistant turn from them
(:mod:`.layout`: the start anchor, the end of the turn, the reasoning block, the markers around
content) and the tool-call format (:mod:`.calls`: per-call opening and close, a wrapper around
all calls, the body as a JSON object, JSON arguments after the name, or parameters one by one),
using the format's own content parsers (``json``, ``xml-inline``) and transforms. Before a
template is returned it must compile, round-trip every rendered probe and pass ``rtc lint``
(with the chat template's round trips) without an error::

    from rtc.compiler.infer import infer
    found = infer(open("chat_template.jinja").read(), {"bos_token": "<s>"})
    found.template      # the response template (dict), or None
    found.problems      # what could not be inferred, and why (Unproven: .part, .why)
    found.evidence      # per delimiter: its value and the renders that show it

Raises :class:`rtc.compiler.chat.ChatTemplateError` when the chat template does not compile.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rtc.compiler.chat import ChatTemplateError, generation_prompt
from rtc.compiler.chat.turns import USER
from rtc.compiler.errors import TemplateError, TemplateTypeError
from rtc.compiler.match.probes import TOOLS, Rendered, chat_template, render_probes, stop_tokens
from rtc.compiler.match.ranking import Outcome

from . import build
from .calls import call_field
from .evidence import Evidence, Unproven
from .layout import (
    Layout,
    Reasoning,
    Setting,
    anchor_base,
    content_markers,
    end_of_turn,
    find_reasoning,
)


@dataclass
class Inference:
    """What the renders prove: the template (None unless every check passed), the evidence,
    and the parts that could not be proven."""

    template: dict[str, Any] | None = None
    candidate: dict[str, Any] | None = None
    evidence: list[Evidence] = field(default_factory=list)
    problems: list[Unproven] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    rendered: int = 0  # probes the chat template rendered

    def to_json(self) -> dict[str, Any]:
        return {
            "template": self.template,
            "evidence": [e.to_json() for e in self.evidence],
            "problems": [p.to_json() for p in self.problems],
            "outcomes": [o.to_json() for o in self.outcomes],
        }


def infer(chat_template_source: str, special_tokens: Mapping[str, str] | None = None) -> Inference:
    tokens = dict(special_tokens or {})
    chat = chat_template(chat_template_source, tokens)
    probes = [p for p in render_probes(chat, stop_tokens(tokens)) if p.error is None]
    found = Inference(rendered=len(probes))
    try:
        _infer(found, chat, probes, chat_template_source, tokens)
    except Unproven as problem:
        found.problems.append(problem)
    return found


def _settings(chat: Any, probes: list[Rendered]) -> list[Setting]:
    """The probes grouped by the keywords they were rendered with (default first), each with
    its generation prompt's addition."""
    groups: dict[str, list[Rendered]] = {}
    for probe in probes:
        groups.setdefault(json.dumps(dict(probe.kwargs), sort_keys=True), []).append(probe)
    out = []
    for key, group in groups.items():
        kwargs = json.loads(key)
        try:
            _, opening = generation_prompt(chat, [USER], TOOLS, **kwargs)
        except ChatTemplateError as exc:
            raise Unproven(
                "start_anchor", f"the generation prompt does not render: {exc}"
            ) from None
        out.append(Setting(kwargs, opening, tuple(group)))
    out.sort(key=lambda s: bool(s.kwargs))
    return out


def _infer(
    found: Inference, chat: Any, probes: list[Rendered], source: str, tokens: dict[str, str]
) -> None:
    if not probes:
        raise Unproven("chat template", "it renders none of the probes")
    settings = _settings(chat, probes)
    default = list(settings[0].probes)
    end, stops, lead, tail, evidence = end_of_turn(probes)
    found.evidence += evidence
    base, anchor_evidence = anchor_base(settings, probes[0].prompt)

    def layout_for(reasoning: Reasoning | None, anchor: str) -> Layout:
        markers = content_markers(settings, anchor, tail, reasoning)
        return Layout(anchor, end, stops, lead, reasoning, markers)

    def works(reasoning: Reasoning, anchor: str) -> bool:
        spec = build.template(anchor, layout_for(reasoning, anchor), reasoning, None)
        plain = [p for p in probes if not p.expected.calls]
        try:
            return all(o.ok for o in build.round_trips(spec, plain))
        except (TemplateError, TemplateTypeError):
            return False

    reasoning, anchor, evidence = find_reasoning(settings, base, lead, works, source)
    if anchor != base:
        why = f"{anchor_evidence.why}, less the reasoning opening it prefills"
        anchor_evidence = Evidence("start_anchor", anchor, why)
    found.evidence += [anchor_evidence, *evidence]
    layout = layout_for(reasoning, anchor)
    for marker in layout.markers:
        why = "written around the content in the renders: the content field drops it"
        found.evidence.append(Evidence("content marker", marker, why))
    calls = call_field(default, layout)
    if calls is None:
        why = "the one-call probe's turn writes no call: no tool-call field"
        found.evidence.append(Evidence("tool calls", "", why))
    else:
        found.evidence += calls.evidence
    spec = build.template(anchor, layout, reasoning, calls)
    found.candidate = spec
    _verify(found, spec, probes, source, tokens)


def _verify(
    found: Inference,
    spec: dict[str, Any],
    probes: list[Rendered],
    source: str,
    tokens: dict[str, str],
) -> None:
    try:
        found.outcomes = build.round_trips(spec, probes)
    except (TemplateError, TemplateTypeError) as exc:
        raise Unproven("template", f"the inferred template does not compile: {exc}") from None
    failed = [o for o in found.outcomes if not o.ok]
    for o in failed:
        found.problems.append(Unproven("round trip", f"{o.label}: {o.difference}"))
    if failed:
        return
    for error in build.lint_errors(spec, source, tokens):
        found.problems.append(
            Unproven(f"rtc lint ({error.code})", f"{error.path}: {error.message}")
        )
    if not found.problems:
        found.template = spec


__all__ = ["Evidence", "Inference", "Unproven", "infer"]
