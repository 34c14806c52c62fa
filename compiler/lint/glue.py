"""``glued-text``: a text field that strips each occurrence and puts occurrences together with
nothing between them glues the last word of one to the first word of the next.

``Let me check. <call> Done.`` becomes ``Let me check.Done.`` when the content field strips each
piece and joins pieces with ``""``, in the message itself. A ``content`` field without ``join``
is glued in the OpenAI message instead: the stream concatenates the occurrences it sent (text
around a tool call is where content occurs twice; a second reasoning block is the
``overwritten-field`` finding's). The check writes two occurrences with whitespace around the region
between them, runs the parser (or its OpenAI layer), and reports the glued value with a change
that keeps the words apart, offered only if the example then comes out right.
"""

from __future__ import annotations

import json
from typing import Any

from rtc.compiler.model import Field

from .context import Context, quote
from .findings import WARNING, Finding
from .probe import OPENAI, Run, is_raised
from .shapes import Shape
from .texts import Part

OPENAI_RUN = Run("OpenAI message", OPENAI)


def _strips(f: Field) -> bool:
    args = f.content_args
    if args is None:
        return True
    return isinstance(args, dict) and bool(args.get("strip", True))


def _changes(f: Field) -> list[dict[str, Any]]:
    """Changes that may keep words apart, in order of preference (keys the field already has
    as wanted left out): text outside regions kept as written, else pieces joined by a space
    (where the neighbouring delimiters consume the whitespace too); explicit regions joined by
    a blank line."""
    if f.implicit:
        args = dict(f.content_args) if isinstance(f.content_args, dict) else {}
        options = [
            {"repeats": True, "join": "", "content_args": {**args, "strip": False}},
            {"repeats": True, "join": " "},
        ]
    else:
        options = [{"repeats": True, "join": "\n\n"}]
    have = {"repeats": f.repeats, "join": f.join, "content_args": f.content_args}
    return [{k: v for k, v in o.items() if have[k] != v} for o in options]


def _described(changes: dict[str, Any]) -> str:
    return ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in changes.items())


def glued_text(ctx: Context) -> list[Finding]:
    out: list[Finding] = []
    corpus = ctx.corpus
    for shape in corpus.shapes:
        f = shape.field
        if f.content != "text" or f.has_transform or not _strips(f):
            continue
        runs: tuple[Run, ...]
        if f.repeats and f.join == "":
            key, runs = shape.name, ()
        elif f.join is None and not f.repeats and shape.name == "content":
            key, runs = "content", (OPENAI_RUN,)
        else:
            continue
        finding = _glued(ctx, shape, key, runs)
        if finding is not None:
            out.append(finding)
    return out


def _occurrences(ctx: Context, shape: Shape) -> tuple[str, str, str] | None:
    """A generation with two occurrences of the field, whitespace around what separates them,
    and the two values."""
    corpus = ctx.corpus
    first, second = corpus.part(shape.name, 0), corpus.part(shape.name, 1)
    if first is None or second is None:
        return None
    parts: list[Part | str]
    if shape.field.implicit:
        others = [s for s in corpus.shapes if not s.field.implicit]
        others.sort(key=lambda s: s.role != "tool")  # text around a tool call is the usual case
        middle = next((p for s in others if (p := corpus.part(s.name)) is not None), None)
        if middle is None:
            return None
        parts = [first.head, middle, second.head]
    else:
        parts = [first, second]
    text = corpus.compose(parts, bool(corpus.end), " ")
    return text, first.body.strip(), second.body.strip()


def _glued(ctx: Context, shape: Shape, key: str, runs: tuple[Run, ...]) -> Finding | None:
    found = _occurrences(ctx, shape)
    if found is None:
        return None
    text, one, two = found
    example = ctx.example(text, *runs)
    result = example.produce(ctx.probe)
    value = result.get(key) if isinstance(result, dict) and not is_raised(result) else None
    if not isinstance(value, str) or one + two not in value:
        return None
    f = shape.field
    fix = next((c for c in _changes(f) if _apart(ctx, f, c, example, key, one, two)), None)
    where = "the OpenAI message (the stream concatenates what it sent)" if runs else "the message"
    how = "joins them with nothing" if f.repeats else "has no join"
    return ctx.finding(
        "glued-text",
        WARNING,
        ctx.field_path(f),
        f"`{shape.name}` strips each occurrence and {how}: {quote(one, 40)} and "
        f"{quote(two, 40)} come out glued together in {where}: {quote(value, 100)}.",
        example,
        f"set {_described(fix)} on `{shape.name}` to keep the words apart" if fix else None,
    )


def _apart(
    ctx: Context, f: Field, changes: dict[str, Any], example: Any, key: str, one: str, two: str
) -> bool:
    """Whether the changed template gives both values on the example, not glued."""
    fixed = ctx.fixed_result(ctx.with_field(f, **changes), example)
    kept = fixed.get(key) if isinstance(fixed, dict) else None
    return isinstance(kept, str) and one in kept and two in kept and one + two not in kept
