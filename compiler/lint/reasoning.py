"""A tool call the model writes before it closes its reasoning: ``call-inside-reasoning``.

Inside an explicit region only that region's close is watched (reference semantics §5.2), so a
tool-call open written there is plain text: unless the reasoning's close also ends the region
where a call begins (a look-ahead alternative such as ``</think>|(?=<tool_call>)``), the call
stays in the reasoning text, and no tool call comes out. Models do write this (a call straight
after the reasoning, without ``</think>``), so the check probes it: a reasoning region opened,
then, before its close, a whole tool-call region, then the end of the text. It reports only what
the compiled parser really does with that text; a template that already ends the reasoning at
the call gives the call and is not reported.
"""

from __future__ import annotations

import json
from typing import Any

import regex

from ..regex_syntax import lead_core, parse
from ..regex_syntax.groups import without_names
from .context import Context, quote
from .findings import WARNING, Finding
from .probe import Probe, is_raised, same
from .shapes import CALL, Shape, payload_for
from .texts import Part, holds

# Between the reasoning text and the call: a blank line, as models usually write it, and
# nothing (a suggested close must not depend on whitespace before the call).
SEPARATORS = ("\n\n", "")


def call_inside_reasoning(ctx: Context) -> list[Finding]:
    """Reasoning fields whose region swallows a tool call written before their close."""
    out: list[Finding] = []
    corpus = ctx.corpus
    thinking = [s for s in corpus.shapes if s.role == "reasoning" and s.field.open is not None]
    calling = [s for s in corpus.shapes if s.role == "tool" and s.field.open is not None]
    for reasoning in thinking:
        alone = _region_alone(ctx, reasoning)
        if alone is None:
            continue  # a marker field (zero-width close) or no sample: nothing holds text
        for tool in calling:
            call = _region_alone(ctx, tool)
            if call is None:
                continue  # the call does not parse on its own: other checks say why
            texts = [corpus.compose([alone.head, call], bool(corpus.end), s) for s in SEPARATORS]
            failing = [t for t in texts if not _gives_call(tool, ctx.one_shot(t))]
            if not failing:
                continue  # the template ends the reasoning at the call
            f = reasoning.field
            path = ctx.delimiter_path(f, f.close) if f.close is not None else ctx.field_path(f)
            example = ctx.example(failing[0])
            result = ctx.one_shot(failing[0])
            out.append(
                ctx.finding(
                    "call-inside-reasoning",
                    WARNING,
                    path,
                    _message(reasoning, tool, call, result),
                    example,
                    _suggestion(ctx, reasoning, tool, alone, call, texts),
                )
            )
    return out


def _gives_call(tool: Shape, result: Any) -> bool:
    return not is_raised(result) and holds(tool, result, payload_for(tool))


def _region_alone(ctx: Context, shape: Shape) -> Part | None:
    """The canonical region of ``shape``, if on its own it gives the field its value."""
    part = ctx.corpus.part(shape.name)
    if part is None:
        return None
    result = ctx.one_shot(ctx.corpus.compose([part], bool(ctx.corpus.end)))
    if is_raised(result) or not holds(shape, result, payload_for(shape)):
        return None
    return part


def _message(reasoning: Shape, tool: Shape, call: Part, result: Any) -> str:
    f = reasoning.field
    if f.close is None:
        why = f"`{reasoning.name}` has no close, so its region runs to the end of the text"
    else:
        close = f.close.literals or (f.close.pattern,)
        why = (
            f"inside `{reasoning.name}` only its close ({', '.join(quote(c) for c in close)}) "
            f"is watched, so the `{tool.name}` open is plain text there"
        )
    opening = call.opening.strip() or call.opening
    if is_raised(result):
        what = f"parsing raises {result['exception']} and the whole message is lost"
    elif tool.name not in result and opening in str(result.get(reasoning.name, "")):
        what = (
            f"the call stays inside `{reasoning.name}` as text and the message has no "
            f"`{tool.name}`"
        )
    elif tool.name not in result:
        what = f"the call is lost: the message has no `{tool.name}`"
    else:
        shown = json.dumps(result[tool.name], ensure_ascii=False)
        what = f"the call does not come out as written: `{tool.name}` is {quote(shown, 90)}"
    return (
        f"a tool call written inside `{reasoning.name}` (before its close) is not recognised "
        f"({why}): {what}."
    )


def _suggestion(
    ctx: Context, reasoning: Shape, tool: Shape, alone: Part, call: Part, texts: list[str]
) -> str | None:
    """A close with a look-ahead alternative at the call's open, checked on the probe texts
    (the example and its variant), on the reasoning written the usual way, and on the call
    written alone, whole and cut short after its open (a zero-width close must not re-fire
    with a reasoning open that matches empty there)."""
    f = reasoning.field
    if f.close is None:
        current: list[str] = []
    elif f.close.is_literal:
        current = [regex.escape(x) for x in sorted(f.close.literals, key=len, reverse=True)]
    else:
        current = [f.close.pattern]
    lone = ctx.corpus.compose([alone], bool(ctx.corpus.end))
    kept = ctx.one_shot(lone)  # the reasoning written the usual way, as the template gives it
    call_alone = ctx.corpus.compose([call], bool(ctx.corpus.end))
    for head in _call_heads(tool, call):
        pattern = "|".join([*current, f"(?={head})"])
        changed = ctx.with_field(f, close=None, close_pattern=pattern)
        try:
            fixed = Probe(changed, ctx.probe.tools)
        except Exception:  # the changed template does not compile: try the next head
            continue
        results = [fixed.one_shot(ctx.prefix, text) for text in texts]
        if not all(_gives_call(tool, result) for result in results):
            continue
        if any(r.get(reasoning.name) != kept.get(reasoning.name) for r in results):
            continue  # part of the call's open would stay in the reasoning
        if not same(fixed.one_shot(ctx.prefix, lone), kept):
            continue  # the change alters reasoning written the usual way
        if not _gives_call(tool, fixed.one_shot(ctx.prefix, call_alone)):
            continue  # the call written alone is no longer a call
        started = call.opening  # a call cut short (its open alone) must not start a loop
        if is_raised(fixed.one_shot(ctx.prefix, started)) and not is_raised(ctx.one_shot(started)):
            continue  # e.g. the close now re-fires forever with an open that matches empty
        return (
            f"close_pattern: {quote(pattern, 140)} (the look-ahead ends `{reasoning.name}` "
            f"where a `{tool.name}` call begins and leaves the call to `{tool.name}`)"
        )
    return None


def _call_heads(tool: Shape, call: Part) -> list[str]:
    """Look-ahead bodies that recognise where a call begins, the plainest first.

    The open's literals; else the first literal every match of the open pattern holds (after
    what may lead it, e.g. whitespace); else the start of the call as the probe writes it, up
    to the tool name or the first whitespace; else the whole open pattern, its named groups
    made non-capturing (a reasoning field has no transform, so it may not capture).
    """
    delim = tool.field.open
    if delim is None:
        return []  # an implicit tool field: nothing marks where a call begins
    if delim.is_literal:
        return ["|".join(regex.escape(x) for x in sorted(delim.literals, key=len, reverse=True))]
    heads = [_literal_head(delim.pattern)]
    written = call.opening.lstrip().split(CALL.name, 1)[0]
    heads.append(regex.split(r"\s", written, maxsplit=1)[0])
    out = [regex.escape(h) for h in dict.fromkeys(heads) if len(h) >= 2]
    return [*out, without_names(parse(delim.pattern))]


def _literal_head(pattern: str) -> str:
    """The first literal every match of a pattern holds, after what may lead it (``\\s*``
    before ``<tool_call>`` in ``\\s*<tool_call>\\s*<function=``): its core."""
    found = lead_core(parse(pattern))
    return "" if found is None else found.core
