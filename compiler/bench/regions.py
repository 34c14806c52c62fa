"""The region workloads: one region of a generation grown to KB of prose, streamed as tokens.

What a chat server spends most of a generation on is streaming one region, token by token: the
answer (content), the reasoning, or the arguments of a tool call. For each region a template has,
``build_region_streams`` starts from a real generation of the family (``region_samples``: the
family's own test fixtures) and replaces the region's text with prose (``prose``); for a
template that is not in the catalogue, or whose sample no longer parses as intended, it composes
the generation from the template's own delimiters instead, as the other workloads are built.
Each stream then checks, by parsing with the template's parser, that the prose came back in the
intended field (``region_problem``).

Workload names: the region (``answer``, ``reasoning``, ``arguments``) for English Markdown
prose, ``:unicode`` after it (``answer:unicode``) for Chinese, accented Latin and emoji.
``--workload answer`` selects both variants.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .config import BenchConfig
from .prose import VARIANTS, in_region
from .region_samples import REGIONS, Sample, load_samples, region_problem
from .samples import Composer, FieldPlan
from .texts import NOTE_TOOL, SHORT_CONTENT, SHORT_REASONING, TOOLS, note_call
from .tool_calls import tool_call_parts
from .workloads import TemplatePlan, end_of_turn, selected, text_parts

Parse = Callable[[str, str, Any], Any]
"""``parse(text, prefix, tools)``: the template's one-shot parser (raises on bad input)."""


@dataclass
class RegionStream:
    """One region workload: how to write the generation with the region's text set to prose."""

    name: str
    """``answer``, ``answer:unicode``, ``reasoning``, ..."""
    region: str
    variant: str
    field: str
    """The template field the prose lands in."""
    source: str
    """Where the generation comes from (a fixture, or the template's delimiters)."""
    prefix: str
    tools: list[Any] | None
    write: Callable[[str], str]
    """The generation with ``body`` as the region's text."""

    def body(self, size: int) -> str:
        """The region's prose at ``size`` characters (the same for every family)."""
        return VARIANTS[self.variant](size, size)

    def text(self, size: int) -> str:
        return self.write(self.body(size))

    def problem(self, parse: Parse, size: int) -> str | None:
        """Why the generation at ``size`` does not parse with the prose in the region, or None."""
        body = self.body(size)
        try:
            message = parse(self.write(body), self.prefix, self.tools)
        except Exception as exc:  # a parse error is the answer to the question asked
            return f"{type(exc).__name__}: {exc}"[:120]
        return region_problem(message, self.region, self.field, body)


def region_field(plan: TemplatePlan, region: str) -> FieldPlan | str:
    """The field a region's text goes to, or why the template has none (a field whose
    delimiters have no derivable sample is still returned: a family's sample can fill it)."""
    found = {"answer": plan.content, "reasoning": plan.reasoning, "arguments": plan.tools}[region]
    if found is None:
        what = {"answer": "text content", "reasoning": "reasoning", "arguments": "tool-call"}
        return f"the template has no {what[region]} field"
    return found


def build_region_streams(
    family: str, plan: TemplatePlan, parse: Parse, config: BenchConfig
) -> tuple[list[RegionStream], list[dict[str, str]], list[str]]:
    """The region workloads of a template, the ones skipped (with the reason) and notes.

    ``family`` names the template in the catalogue (its samples are used when they parse as
    intended); ``parse`` checks each stream at the workload size.
    """
    streams: list[RegionStream] = []
    skipped: list[dict[str, str]] = []
    notes: list[str] = []
    samples = load_samples().get(family, {})
    for region in config.regions:
        field = region_field(plan, region)
        for variant in config.region_variants:
            if not in_region(variant, region):
                continue
            name = f"{region}:{variant}" if variant else region
            if config.workloads and not selected(name, config.workloads):
                continue
            if isinstance(field, str):
                skipped.append({"workload": name, "reason": field})
                continue
            candidates: list[RegionStream] = []
            if region in samples:
                candidates.append(_from_sample(name, variant, field.name, samples[region]))
            composed = _composed(name, region, variant, field, plan)
            problems = []
            if isinstance(composed, str):
                problems.append(f"composed: {composed}")
            else:
                candidates.append(composed)
            for candidate in candidates:
                problem = candidate.problem(parse, config.region_size)
                if problem is None:
                    streams.append(candidate)
                    break
                problems.append(f"{candidate.source}: {problem}")
            else:
                skipped.append({"workload": name, "reason": "; ".join(problems)})
                continue
            if region in samples and streams[-1] is not candidates[0]:
                notes.append(
                    f"{name}: the family's sample does not parse as intended ({problems[-1]}); "
                    "composed from the template's delimiters instead"
                )
    return streams, skipped, notes


def _from_sample(name: str, variant: str, field: str, sample: Sample) -> RegionStream:
    def write(body: str) -> str:
        grown = sample.grow(body)
        if grown is None:
            times = sample.text.count(sample.value)
            raise ValueError(f"stale sample: its region text occurs {times} times, not once")
        return grown

    return RegionStream(
        name=name,
        region=sample.region,
        variant=variant,
        field=field,
        source=sample.describe(),
        prefix=sample.prefix,
        tools=sample.tools,
        write=write,
    )


def _composed(
    name: str, region: str, variant: str, field: FieldPlan, plan: TemplatePlan
) -> RegionStream | str:
    """The region's stream composed from the template's delimiters, or why it cannot be."""
    if plan.anchor is None:
        return "no start anchor sample"
    if field.problem:
        return field.problem
    tools: list[Any] = TOOLS
    if region == "arguments":
        tools = [*TOOLS, NOTE_TOOL]
    end = end_of_turn(plan)

    def write(body: str) -> str:
        if region == "answer":
            parts, _checks, problem = text_parts(plan, SHORT_REASONING, body)
        elif region == "reasoning":
            parts, _checks, problem = text_parts(plan, body, SHORT_CONTENT)
        else:
            parts, _checks, problem = text_parts(plan, SHORT_REASONING, "Let me save that.")
            calls, call_problem = tool_call_parts(field, 1, [note_call(body)])
            problem = problem or call_problem
            parts += ["\n", *calls]
        if problem:
            raise ValueError(problem)
        composer = Composer()
        composer.add(*parts, end)
        return composer.build()

    return RegionStream(
        name=name,
        region=region,
        variant=variant,
        field=field.name,
        source="composed from the template's delimiters",
        prefix=plan.anchor,
        tools=tools,
        write=write,
    )


__all__ = ["REGIONS", "RegionStream", "build_region_streams", "region_field"]
