"""Checks on what plausible generations do: exceptions, rejected tool names, endless loops."""

from __future__ import annotations

import json
from typing import Any

from ..regex_syntax import group_body_span, parse
from .context import Context, quote
from .findings import ERROR, INFO, Finding
from .patterns import literal_or_samples
from .probe import STREAMED, Probe, Run, is_raised
from .shapes import CALL, ToolCall, placeholders
from .texts import tool_calls

# OpenAI's rule for function names: ^[a-zA-Z0-9_-]{1,64}$. Each of these is allowed by it.
OPENAI_NAMES = ("get-weather", "GetWeather2", "9lives", "_private", "a", "x" * 64)

# Argument values models write, each in a call of its own: every JSON type, nesting, and
# strings holding quotes, braces, brackets, commas and colons, markup and line breaks.
ARGUMENT_VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"metric": True, "ratio": 0.5, "tags": ["a", "b"], "filter": {"max": 10, "unit": "C"}},
    {"query": 'He said "hi", then left: {done} [ok] <b>bold</b> 50% \\ é'},
    {"code": "def f(a, b):\n    return {'sum': a + b}\n"},
)
TEXT_VARIANTS = ('Use {"a": 1}, [1, 2] and <b>bold</b>: 50% \\ é.', "Line one.\n\nLine two.")


def raises_on_output(ctx: Context) -> list[Finding]:
    """Plausible generations that make ``parse_response`` raise."""
    out: dict[tuple[str, str], Finding] = {}
    corpus = ctx.corpus

    def report(
        kind: str, path: str, severity: str, text: str, what: str, suggestion: str | None = None
    ) -> None:
        if (kind, path) not in out:
            out[(kind, path)] = ctx.finding(
                "raises-on-output", severity, path, what, ctx.example(text), suggestion
            )

    for probe_text in sorted(corpus.texts(), key=lambda t: len(t.text)):
        result = ctx.one_shot(probe_text.text)
        if is_raised(result) and result["exception"] != "LoopError":
            name = probe_text.parts[-1] if len(probe_text.parts) == 1 else None
            path = ctx.field_path(corpus.by_name[name].field) if name else "fields"
            report(
                "format",
                path,
                ERROR,
                probe_text.text,
                f"a generation in the template's own format ({probe_text.label}) raises "
                f"{result['exception']}: the whole message is lost.",
            )
    for shape in corpus.shapes:
        path = ctx.field_path(shape.field)
        variants: list[Any] = (
            [[ToolCall(CALL.name, args)] for args in ARGUMENT_VARIANTS]
            if shape.role == "tool"
            else list(TEXT_VARIANTS)
        )
        for payload in variants:
            part = corpus.part(shape.name, payload=payload)
            if part is None:
                continue
            text = corpus.compose([part], bool(corpus.end))
            result = ctx.one_shot(text)
            if is_raised(result) and result["exception"] != "LoopError":
                what = "arguments" if shape.role == "tool" else "text"
                report(
                    "values",
                    path,
                    ERROR,
                    text,
                    f"a `{shape.name}` region with these {what} raises "
                    f"{result['exception']}: the whole message is lost.",
                )
        truncated = _truncated(ctx, shape)
        if truncated is not None:
            report(
                "truncated",
                path,
                INFO,
                truncated,
                f"a generation cut off inside `{shape.name}` (max_tokens reached) raises: "
                "the text before it is lost too.",
                _keep_raw(ctx, shape, truncated),
            )
    return list(out.values())


def _truncated(ctx: Context, shape: Any) -> str | None:
    """A generation that stops in the middle of ``shape``'s body, if that raises."""
    corpus = ctx.corpus
    part = corpus.part(shape.name)
    if part is None or shape.field.implicit or shape.field.content not in ("json", "xml-inline"):
        return None
    implicit = corpus.part(corpus.implicit.name) if corpus.implicit else None
    lead = implicit.head + "\n\n" if implicit is not None else ""
    text = lead + part.head[: len(part.head) - max(3, len(part.head) // 6)]
    return text if is_raised(ctx.one_shot(text)) else None


def _keep_raw(ctx: Context, shape: Any, text: str) -> str | None:
    f = shape.field
    if f.content != "json":
        return None
    args = dict(f.content_args) if isinstance(f.content_args, dict) else {}
    args["allow_non_json"] = True
    fixed = ctx.fixed_result(ctx.with_field(f, content_args=args), ctx.example(text))
    if is_raised(fixed):
        return None
    return (
        'set "allow_non_json": true in content_args to keep the unfinished body as text '
        "instead of raising"
    )


def _name_capture(shape: Any) -> str | None:
    """The open-pattern capture a tool field takes its function name from, if any."""
    f = shape.field
    if f.open is None or f.open.is_literal:
        return None
    for location, path in placeholders(f.transform):
        if location and location[-1] in ("name", "tool_name", "function_name"):
            if path in f.open.group_names:
                return path
    return None


def narrow_tool_name(ctx: Context) -> list[Finding]:
    """A tool-name capture that rejects names OpenAI allows."""
    out: list[Finding] = []
    corpus = ctx.corpus
    for shape in corpus.shapes:
        f = shape.field
        group = _name_capture(shape)
        if shape.role != "tool" or group is None or f.open is None:
            continue
        failures = []
        for name in OPENAI_NAMES:
            text = _call_text(ctx, shape, name)
            if text is None:
                continue
            result = ctx.one_shot(text)
            if is_raised(result) or name not in _names(result.get(shape.name)):
                failures.append((name, text, result))
        if not failures:
            continue
        name, text, result = failures[0]
        span = group_body_span(parse(f.open.pattern), group)
        body = f.open.pattern[span[0] : span[1]] if span else group
        if is_raised(result):
            what = f"parsing raises {result['exception']} and the whole message is lost"
        elif shape.name not in result:
            what = f"the call is not recognised and no `{shape.name}` comes out"
        else:
            what = f"it comes out as {quote(json.dumps(result[shape.name]), 90)}"
        others = ", ".join(quote(n, 20) for n, _, _ in failures[1:])
        out.append(
            ctx.finding(
                "narrow-tool-name",
                ERROR,
                ctx.delimiter_path(f, f.open),
                f"the tool-name capture {quote(body)} does not accept {quote(name)}, which "
                f"OpenAI allows (^[a-zA-Z0-9_-]{{1,64}}$): {what}"
                + (f"; also rejected: {others}." if others else "."),
                ctx.example(text),
                _wider_name(ctx, shape, group, span),
            )
        )
    return out


def _call_text(ctx: Context, shape: Any, name: str) -> str | None:
    part = ctx.corpus.part(shape.name, payload=[ToolCall(name, dict(CALL.arguments))])
    return None if part is None else ctx.corpus.compose([part], bool(ctx.corpus.end))


def _names(value: Any) -> list[Any]:
    return [name for name, _ in tool_calls(value)]


def _wider_name(ctx: Context, shape: Any, group: str, span: tuple[int, int] | None) -> str | None:
    """A capture body that takes every OpenAI name, checked on the changed template."""
    if span is None:
        return None
    f = shape.field
    pattern = f.open.pattern[: span[0]] + r"[\w-]+" + f.open.pattern[span[1] :]
    changed = ctx.with_field(f, **{f.open.key: pattern})
    try:
        probe = Probe(changed, ctx.probe.tools)
    except Exception:  # the change does not compile: no suggestion
        return None
    for name in OPENAI_NAMES:
        text = _call_text(ctx, shape, name)
        if text is None:
            return None
        result = probe.one_shot(ctx.prefix, text)
        if is_raised(result) or name not in _names(result.get(shape.name)):
            return None
    return f"{f.open.key}: {quote(pattern, 120)} (the capture takes letters, digits, _ and -)"


def non_terminating(ctx: Context) -> list[Finding]:
    """Zero-width delimiters that re-fire forever (the reference hangs; rtc raises LoopError)."""
    corpus = ctx.corpus
    texts = [t.text for t in corpus.texts()]
    for shape in corpus.shapes:
        f = shape.field
        opens = [s for s in _samples(f.open) if s.text == ""]
        closes = _samples(f.close)
        for o in opens:
            texts += [o.witness, o.witness + "text", "text" + o.witness]
            texts += [o.witness + c.witness for c in closes]
            texts += ["text" + c.witness + o.witness for c in closes]
    out: dict[str, Finding] = {}
    char = Run("streamed 1 character at a time", STREAMED, chunk=1)
    for text in sorted(dict.fromkeys(texts), key=len):
        one = ctx.one_shot(text)
        streamed = ctx.probe.streamed(ctx.prefix, text, 1)
        looping = [r for r in (one, streamed) if is_raised(r) and r["exception"] == "LoopError"]
        if not looping:
            continue
        path = _zero_width_path(ctx)
        if path in out:
            continue
        out[path] = ctx.finding(
            "non-terminating",
            ERROR,
            path,
            "zero-width delimiters keep re-firing at one position on this text: transformers "
            "5.23.0 never returns (rtc raises LoopError instead).",
            ctx.example(text, Run("one-shot", "one-shot"), char),
            "make the open or the close consume at least one character",
        )
    return list(out.values())


def _samples(delim: Any) -> list[Any]:
    return [] if delim is None else literal_or_samples(delim.literals, delim.pattern, limit=4)


def _zero_width_path(ctx: Context) -> str:
    """The first delimiter that can match the empty string (the likely culprit)."""
    for f in ctx.model.fields:
        for delim in (f.open, f.close):
            if delim is not None and not delim.is_literal:
                if any(s.text == "" for s in _samples(delim)):
                    return ctx.delimiter_path(f, delim)
    return "fields"
