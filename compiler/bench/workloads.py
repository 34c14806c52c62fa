"""The workloads of one template: which fields play which part, the texts, their checks.

Each workload is a generation composed from the template's own delimiters (``Workload``), with
the checks that say it parses as intended. A new text-shaped workload (e.g. a short tool call)
is one more ``add(...)`` in ``build_workloads`` and its name in ``workload_names``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .config import BenchConfig, size_label
from .prose import in_region
from .samples import Composer, Delim, FieldPlan, derive_delimiter, field_plan, no_prefer
from .texts import CALL_CONTENT, CALL_REASONING, SHORT_CONTENT, SHORT_REASONING, TOOLS, prose
from .tool_calls import tool_call_parts

PROMPT_SHAPES: tuple[str, ...] = ("prompt", "empty", "prefill")
"""How the short tool-calling generations are prompted: the multi-turn prompt ending at the start
anchor, ``prefix=""``, and that prompt with the reasoning opening prefilled (``<think>\n``...)."""
CALL_COUNTS: tuple[int, ...] = (1, 2)
"""Tool calls in the short tool-calling generations."""


@dataclass
class Workload:
    name: str
    text: str
    description: str
    checks: list[tuple[str, str, Any]] = field(default_factory=list)
    """``(kind, field, expected)``: ("text", f, body) or ("count", f, n)."""
    prefix: str | None = None
    """What parsers get as ``prefix``; None: the template's start anchor."""
    shape: str = "anchor"
    """Which prompt ``prefix`` is ("anchor", or one of ``PROMPT_SHAPES``)."""
    streamed: bool = True
    """Whether the workload is also fed in chunks (the short tool calls are one-shot only)."""


@dataclass
class TemplatePlan:
    """What the workloads of one template are made of."""

    anchor: str | None
    prompt: str
    reasoning: FieldPlan | None
    content: FieldPlan | None
    tools: FieldPlan | None
    implicit: FieldPlan | None
    notes: list[str]
    problems: list[str]
    prefill: str | None = None
    """The reasoning opening a prompt can prefill (None: the reasoning field opens on a pattern,
    or there is none), with the newline chat templates write after it."""


def plan_template(template: dict[str, Any]) -> TemplatePlan:
    fields = {name: field_plan(name, spec) for name, spec in template["fields"].items()}
    notes: list[str] = []
    problems = [f.problem for f in fields.values() if f.problem]
    implicit = next(
        (f for f in fields.values() if "open" not in f.spec and "open_pattern" not in f.spec), None
    )
    texts = [f for f in fields.values() if f.content == "text"]
    reasoning = next(
        (f for f in texts if any(w in f.name.lower() for w in ("reason", "think"))), None
    )
    content = fields.get("content")
    if content is None or content.content != "text":
        content = implicit if implicit is not None and implicit.content == "text" else None
    structured = [f for f in fields.values() if f.content in ("json", "xml-inline", "kv-lines")]
    tools = next((f for f in structured if "tool" in f.name.lower()), None) or next(
        (f for f in structured if f.spec.get("repeats")), None
    )
    anchor_delim = derive_delimiter(template, "start_anchor", "start_anchor_pattern", no_prefer)
    anchor: str | None = None
    if isinstance(anchor_delim, Delim):
        anchor = anchor_delim.candidates[0]
    else:
        problems.append(f"start anchor: {anchor_delim}")
    end = _end_marker(content, implicit)
    prompt = _prompt(anchor or "", end)
    if reasoning is None:
        notes.append("no reasoning field: the reasoning-* workloads put their body in content")
    prefill = None
    if reasoning is not None and "open" in reasoning.spec and reasoning.open is not None:
        opening = reasoning.open.candidates[0]
        prefill = opening if opening.endswith("\n") else opening + "\n"
    return TemplatePlan(
        anchor, prompt, reasoning, content, tools, implicit, notes, problems, prefill
    )


def _end_marker(content: FieldPlan | None, implicit: FieldPlan | None) -> str:
    for plan in (content, implicit):
        if plan is not None and plan.close is not None and plan.close.candidates[0]:
            return plan.close.candidates[0]
    return ""


def _prompt(anchor: str, end: str) -> str:
    """A multi-turn chat prompt (system prompt with tool schemas, three earlier exchanges) that
    ends with the template's start anchor, as the prompt of a generation does."""
    tools = "\n".join(json.dumps(tool) for tool in TOOLS)
    parts = [
        "<system>\nYou are a helpful assistant. Answer briefly and call tools when needed.\n\n"
        f"# Tools\n\nYou may call one or more functions. Available tools:\n{tools}\n</system>\n"
    ]
    questions = [
        "What's the weather like in Paris today?",
        "And what time is it there right now?",
        "Can you find a good bakery near the Louvre for tomorrow morning?",
    ]
    for turn, question in enumerate(questions):
        answer = prose(500, seed=100 + turn)
        parts.append(f"<user>\n{question}\n</user>\n{anchor}{answer}{end}\n")
    parts.append("<user>\nThanks. Plan my morning: weather, time, bakery and an alarm.\n</user>\n")
    parts.append(anchor)
    return "".join(parts)


def region_parts(plan: FieldPlan, body: str, with_close: bool = True) -> list[str | Delim | None]:
    return [plan.open, body, plan.close if with_close else None]


def end_of_turn(plan: TemplatePlan) -> Delim | None:
    """The implicit field's close (end of turn): it comes last, after any tool calls."""
    if plan.implicit is not None and plan.implicit.close is not None:
        return plan.implicit.close
    return None


def text_parts(
    plan: TemplatePlan, reasoning: str, content: str, prefilled: bool = False
) -> tuple[list[str | Delim | None], list[tuple[str, str, Any]], str | None]:
    """Parts and checks of reasoning followed by content, or the reason it is impossible;
    ``prefilled``: the reasoning opening is in the prompt, not in the text."""
    parts: list[str | Delim | None] = []
    checks: list[tuple[str, str, Any]] = []
    if plan.reasoning is not None:
        if plan.reasoning.problem:
            return [], [], plan.reasoning.problem
        parts += region_parts(plan.reasoning, reasoning)
        if prefilled:
            parts = parts[1:]
        parts.append("\n\n")
        checks.append(("text", plan.reasoning.name, reasoning))
    elif plan.content is not None:
        content = (reasoning + "\n\n" + content).strip() if reasoning else content
    if plan.content is None:
        return [], [], "no text content field"
    if plan.content.problem:
        return [], [], plan.content.problem
    # The implicit field's close (end of turn) comes last, after any tool calls.
    parts += region_parts(plan.content, content, with_close=plan.content is not plan.implicit)
    checks.append(("text", plan.content.name, content))
    return parts, checks, None


def build_workloads(
    plan: TemplatePlan, config: BenchConfig
) -> tuple[list[Workload], list[dict[str, str]]]:
    """The workloads of a template and the ones skipped, each with its reason."""
    workloads: list[Workload] = []
    skipped: list[dict[str, str]] = []
    if plan.problems and plan.anchor is None:
        skipped.append({"workload": "*", "reason": "; ".join(plan.problems)})
        return workloads, skipped
    end = end_of_turn(plan)

    def add(name: str, description: str, parts: list, checks: list, **how: Any) -> None:
        composer = Composer()
        composer.add(*parts, end)
        workloads.append(Workload(name, composer.build(), description, checks, **how))

    parts, checks, problem = text_parts(plan, SHORT_REASONING, SHORT_CONTENT)
    if problem:
        skipped.append({"workload": "short", "reason": problem})
    else:
        add("short", "reasoning + content", parts, checks)

    body_field = "reasoning" if plan.reasoning is not None else "content"
    for size in config.sizes:
        name = f"reasoning-{size_label(size)}"
        filler = max(size - len(SHORT_CONTENT) - 40, 16)
        parts, checks, problem = text_parts(plan, prose(filler, seed=size), SHORT_CONTENT)
        if problem:
            skipped.append({"workload": name, "reason": problem})
        else:
            add(name, f"{body_field}-heavy, {size_label(size)}", parts, checks)

    name = f"tools-{config.tool_calls}"
    if plan.tools is None:
        skipped.append({"workload": name, "reason": "the template has no tool-call field"})
    elif plan.tools.problem:
        skipped.append({"workload": name, "reason": plan.tools.problem})
    else:
        parts, checks, problem = text_parts(plan, SHORT_REASONING, "Let me look that up.")
        # Only the calls are checked: the newlines between calls fall into the implicit field
        # and, as in the reference, leave its last value empty.
        checks = [c for c in checks if plan.content is None or c[1] != plan.content.name]
        calls, call_problem = tool_call_parts(plan.tools, config.tool_calls)
        if problem or call_problem:
            skipped.append({"workload": name, "reason": str(problem or call_problem)})
        else:
            checks.append(("count", plan.tools.name, config.tool_calls))
            add(name, f"{config.tool_calls} parallel tool calls", parts + ["\n"] + calls, checks)
    _add_short_calls(plan, add, skipped)
    if config.workloads:
        workloads = [w for w in workloads if selected(w.name, config.workloads)]
        skipped = [
            s for s in skipped if s["workload"] == "*" or selected(s["workload"], config.workloads)
        ]
    return workloads, skipped


def _add_short_calls(plan: TemplatePlan, add: Any, skipped: list) -> None:
    """Short tool-calling generations: reasoning, a sentence, one or two calls and
    the end of turn (~200-400 characters), under each prompt shape, one-shot only."""
    for count in CALL_COUNTS:
        for shape in PROMPT_SHAPES:
            name = f"call-{count}:{shape}"
            if plan.tools is None:
                skipped.append({"workload": name, "reason": "the template has no tool-call field"})
                continue
            if plan.tools.problem:
                skipped.append({"workload": name, "reason": plan.tools.problem})
                continue
            if shape == "prefill" and plan.prefill is None:
                why = "no reasoning field" if plan.reasoning is None else "it opens on a pattern"
                skipped.append({"workload": name, "reason": f"nothing to prefill ({why})"})
                continue
            parts, checks, problem = text_parts(
                plan, CALL_REASONING, CALL_CONTENT, shape == "prefill"
            )
            checks = [c for c in checks if plan.content is None or c[1] != plan.content.name]
            calls, call_problem = tool_call_parts(plan.tools, count)
            if problem or call_problem:
                skipped.append({"workload": name, "reason": str(problem or call_problem)})
                continue
            checks.append(("count", plan.tools.name, count))
            prefix = {
                "prompt": plan.prompt,
                "empty": "",
                "prefill": plan.prompt + (plan.prefill or ""),
            }
            described = {
                "prompt": "multi-turn prompt",
                "empty": 'prefix=""',
                "prefill": f"prompt prefills {plan.prefill!r}",
            }
            add(
                name,
                f"{count} tool call{'s' if count > 1 else ''}, {described[shape]}",
                parts + ["\n"] + calls,
                checks,
                prefix=prefix[shape],
                shape=shape,
                streamed=False,
            )


def selected(name: str, wanted: tuple[str, ...]) -> bool:
    """Whether ``--workload`` picks a workload: by its name, or (``call-1``) all its shapes."""
    return name in wanted or name.split(":")[0] in wanted


def region_workload_names(config: BenchConfig) -> list[str]:
    """The names of the region workloads (``regions``): ``answer``, ``answer:unicode``, ..."""
    return [
        f"{r}:{v}" if v else r
        for r in config.regions
        for v in config.region_variants
        if in_region(v, r)
    ]


def workload_names(config: BenchConfig) -> set[str]:
    """The names ``build_workloads`` and ``regions.build_region_streams`` give (what
    ``rtc bench --workload`` accepts)."""
    return {
        *region_workload_names(config),
        *config.regions,
        "short",
        f"tools-{config.tool_calls}",
        *(f"reasoning-{size_label(n)}" for n in config.sizes),
        *(f"call-{n}" for n in CALL_COUNTS),
        *(f"call-{n}:{shape}" for n in CALL_COUNTS for shape in PROMPT_SHAPES),
    }


def check_message(message: Any, checks: list[tuple[str, str, Any]]) -> str | None:
    """What differs between a parsed message and a workload's intent, or None."""
    if not isinstance(message, dict):
        return f"parsed to {type(message).__name__}"
    for kind, name, expected in checks:
        value = message.get(name)
        if kind == "text":
            if not isinstance(value, str) or value.strip() != expected.strip():
                return f"field {name!r} came back as {_short(value)}"
        elif kind == "count":
            if not isinstance(value, list) or len(value) != expected:
                return f"field {name!r}: expected {expected} calls, got {_short(value)}"
    return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
