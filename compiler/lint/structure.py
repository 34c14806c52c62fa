"""Checks on how regions follow each other: overwritten, ambiguous, unreachable and unprobed
fields."""

from __future__ import annotations

import json
from typing import Any

import regex

from ..regex_syntax import parse, top_level_alternatives
from .context import Context, quote
from .findings import INFO, WARNING, Example, Finding
from .patterns import compiled, literal_or_samples
from .probe import is_raised
from .shapes import Shape, payload_for
from .texts import Part


def _shown(value: Any) -> str:
    return quote(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


def overwritten_field(ctx: Context) -> list[Finding]:
    """A non-repeating field that occurs twice keeps only its last value."""
    out: list[Finding] = []
    corpus = ctx.corpus
    for shape in corpus.shapes:
        f = shape.field
        if f.repeats:
            continue
        first, second = corpus.part(shape.name, 0), corpus.part(shape.name, 1)
        if first is None or second is None:
            continue
        if f.implicit:
            out += _implicit_overwritten(ctx, shape, first, second)
            continue
        text = corpus.compose([first, second], ended=bool(corpus.end), separator="\n\n")
        result = ctx.one_shot(text)
        lone = ctx.one_shot(corpus.compose([second], ended=bool(corpus.end)))
        if is_raised(result) or is_raised(lone) or shape.name not in result:
            continue
        if result[shape.name] != lone.get(shape.name):
            continue
        fix = {"repeats": True, "join": "\n\n"} if f.content == "text" else {"repeats": True}
        example = ctx.example(text)
        fixed = ctx.fixed_result(ctx.with_field(f, **fix), example)
        kept = isinstance(fixed, dict) and len(json.dumps(fixed.get(shape.name))) > len(
            json.dumps(result[shape.name])
        )
        out.append(
            ctx.finding(
                "overwritten-field",
                INFO,
                ctx.field_path(f),
                f"`{shape.name}` does not repeat: when the model writes it twice, only the "
                f"second value ({_shown(result[shape.name])}) is kept and the first is lost.",
                example,
                (
                    f"if the model can write it twice, set {json.dumps(fix)[1:-1]} on the field"
                    if kept
                    else None
                ),
            )
        )
    return out


def _overwritten(
    ctx: Context, shape: Shape, message: str, example: Example, suggestion: str | None
) -> Finding:
    """The ``overwritten-field`` warning on ``shape``'s field."""
    return ctx.finding(
        "overwritten-field", WARNING, ctx.field_path(shape.field), message, example, suggestion
    )


def _implicit_overwritten(ctx: Context, shape: Shape, first: Part, second: Part) -> list[Finding]:
    """The implicit field restarts after every other region and after its own close."""
    out: list[Finding] = []
    corpus = ctx.corpus
    f = shape.field
    fix = {"repeats": True, "join": ""}
    suggestion = (
        f'set "repeats": true, "join": "" on `{shape.name}` to keep every piece of text'
        if f.join is None
        else None
    )
    others = [s for s in corpus.shapes if not s.field.implicit]
    others.sort(key=lambda s: s.role != "tool")  # text around a tool call is the usual case
    for other in others[:1]:
        middle = corpus.part(other.name)
        if middle is None:
            continue
        text = corpus.compose([first.head, middle, second.head], bool(corpus.end), "\n\n")
        result = ctx.one_shot(text)
        if is_raised(result) or result.get(shape.name) != second.head.strip():
            continue
        example = ctx.example(text)
        out.append(
            _overwritten(
                ctx,
                shape,
                f"text after a `{other.name}` region replaces the `{shape.name}` text before "
                f"it: the message keeps only {_shown(result[shape.name])} and loses "
                f"{_shown(first.head.strip())}.",
                example,
                _verified(ctx, shape, fix, example, first.head.strip(), suggestion),
            )
        )
    if corpus.end and f.close is not None:
        text = corpus.compose([first.head], ended=True) + "\n"
        result = ctx.one_shot(text)
        if not is_raised(result) and shape.name not in result:
            example = ctx.example(text)
            out.append(
                _overwritten(
                    ctx,
                    shape,
                    f"a newline after the end-of-turn text {quote(corpus.end)} starts "
                    f"`{shape.name}` again with only whitespace, which replaces the text and "
                    f"is then dropped: the message has no `{shape.name}` at all.",
                    example,
                    _trailing_space(ctx, shape, example, first.head.strip()),
                )
            )
    return out


def _trailing_space(ctx: Context, shape: Shape, example: Any, kept: str) -> str | None:
    """A close that also consumes the whitespace after it, if it fixes the example."""
    close = shape.field.close
    if close is None:
        return None  # the field runs to the end: there is no close to extend
    if close.is_literal:
        alternatives = [regex.escape(x) for x in sorted(close.literals, key=len, reverse=True)]
    else:
        alternatives = top_level_alternatives(parse(close.pattern))
    body = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
    pattern = body + r"\s*"
    changes = {"close": None, "close_pattern": pattern}
    text = f"use close_pattern {quote(pattern, 100)} so that whitespace after it is consumed"
    return _verified(ctx, shape, changes, example, kept, text)


def _verified(
    ctx: Context, shape: Shape, fix: dict[str, Any], example: Any, kept: str, text: str | None
) -> str | None:
    """``text`` if the suggested change really keeps ``kept`` on the example, else None."""
    if text is None:
        return None
    fixed = ctx.fixed_result(ctx.with_field(shape.field, **fix), example)
    value = fixed.get(shape.name) if isinstance(fixed, dict) else None
    return text if isinstance(value, str) and kept in value else None


def _watched(ctx: Context) -> list[tuple[Shape, str, Any]]:
    """Delimiters watched outside explicit regions: every open, and the implicit close."""
    out = []
    for shape in ctx.corpus.shapes:
        f = shape.field
        if f.open is not None:
            out.append((shape, "open", f.open))
        elif f.close is not None:
            out.append((shape, "close", f.close))
    return out


def ambiguous_delimiters(ctx: Context) -> list[Finding]:
    """Delimiters of different fields that match at the same position: a tie (warning), or
    one the start of the other (a warning where what the longer adds can begin ordinary text
    and the parser misroutes such text, else info)."""
    out: list[Finding] = []
    reported: set[frozenset[str]] = set()
    watched = _watched(ctx)
    for shape_a, kind_a, delim_a in watched:
        for shape_b, kind_b, delim_b in watched:
            pair = frozenset((shape_a.name, shape_b.name))
            if shape_a is shape_b or pair in reported:
                continue
            for sample in literal_or_samples(delim_a.literals, delim_a.pattern, limit=4):
                match = compiled(delim_b.pattern).match(sample.witness)
                if not sample.text or match is None or match.end() == 0:
                    continue
                if match.end() > len(sample.text):
                    continue  # B is the longer one here: reported from B's side
                reported.add(pair)
                out.append(
                    _ambiguity(
                        ctx,
                        (shape_a, kind_a, delim_a),
                        (shape_b, kind_b, delim_b),
                        sample.text,
                        match.end(),
                    )
                )
                break
    return out


def _ambiguity(ctx: Context, a: tuple, b: tuple, text: str, shared: int) -> Finding:
    """A finding for the delimiter of ``a`` (whose sample is ``text``) and the delimiter of
    ``b``, which matches its first ``shared`` characters."""
    (shape_a, kind_a, _), (shape_b, kind_b, delim_b) = a, b
    corpus = ctx.corpus
    path = ctx.delimiter_path(shape_b.field, delim_b)
    if shared == len(text):
        part = corpus.part(shape_a.name)
        example_text = corpus.compose([part], bool(corpus.end)) if part is not None else text
        if kind_a == kind_b:
            winner = min(shape_a.name, shape_b.name)
            rule = "the field-name tie-break (alphabetical order) decides"
        else:
            winner = shape_a.name if kind_a == "open" else shape_b.name
            rule = "an open wins over the implicit close"
        loser = shape_b.name if winner == shape_a.name else shape_a.name
        message = (
            f"the {kind_a} of `{shape_a.name}` and the {kind_b} of `{shape_b.name}` both match "
            f"{quote(text)} at the same position; {rule}, so this text always goes to "
            f"`{winner}` and never to `{loser}`."
        )
        suggestion = "give each field a delimiter the other cannot match"
        return ctx.finding(
            "ambiguous-delimiters", WARNING, path, message, ctx.example(example_text), suggestion
        )
    misrouted = _misrouted(ctx, a, b, text, shared)
    if misrouted is not None:
        return misrouted
    part = corpus.part(shape_a.name)
    example_text = corpus.compose([part], bool(corpus.end)) if part is not None else text
    message = (
        f"the {kind_b} of `{shape_b.name}` matches the start of {quote(text)}, the {kind_a} "
        f"of `{shape_a.name}`: at one position the longer match wins, so "
        f"`{shape_b.name}` depends on the characters that follow (here they cannot begin "
        "ordinary text)."
    )
    return ctx.finding("ambiguous-delimiters", INFO, path, message, ctx.example(example_text))


ORDINARY = regex.compile(r"[\w \t\n.,:;!?'\"()\-]+")
"""Characters that begin and fill ordinary prose (no markup: ``<``, ``|``, ``[``…)."""


def _misrouted(ctx: Context, a: tuple, b: tuple, text: str, shared: int) -> Finding | None:
    """The longer delimiter's extra characters can begin ordinary text: a region of ``b``
    whose text starts with them goes to ``a``. A warning with that example, if running the
    parser shows it."""
    (shape_a, kind_a, _), (shape_b, kind_b, delim_b) = a, b
    extra = text[shared:]
    if kind_b != "open" or not ORDINARY.fullmatch(extra):
        return None
    corpus = ctx.corpus
    part = corpus.part(shape_b.name)
    if part is None:
        return None
    body = f"{extra} {part.body}"
    example_text = corpus.compose([Part(shape_b.name, text[:shared], body, part.close)], False)
    result = ctx.one_shot(example_text)
    if is_raised(result):
        return None
    kept = result.get(shape_b.name)
    if isinstance(kept, str) and extra in kept:
        return None  # the parser did not misroute it
    return ctx.finding(
        "ambiguous-delimiters",
        WARNING,
        ctx.delimiter_path(shape_b.field, delim_b),
        f"the {kind_b} of `{shape_b.name}` ({quote(text[:shared])}) is the start of the "
        f"{kind_a} of `{shape_a.name}` ({quote(text)}), and the rest, {quote(extra)}, can "
        f"begin ordinary text: a `{shape_b.name}` region whose text starts with {quote(extra)} "
        f"opens `{shape_a.name}` instead, and its text is misrouted.",
        ctx.example(example_text),
        f"end the open of `{shape_a.name}` with a delimiter ordinary text cannot contain, or "
        f"make the open of `{shape_b.name}` require the character that follows it",
    )


def unreachable_field(ctx: Context) -> list[Finding]:
    """A field no probe text can give a value."""
    out: list[Finding] = []
    corpus = ctx.corpus
    results = [ctx.one_shot(t.text) for t in corpus.texts()]
    for shape in corpus.shapes:
        part = corpus.part(shape.name)
        if part is None:
            continue  # no sample to probe with: nothing can be said
        if any(isinstance(r, dict) and shape.name in r for r in results if not is_raised(r)):
            continue
        text = corpus.compose([part], bool(corpus.end))
        out.append(
            ctx.finding(
                "unreachable-field",
                WARNING,
                ctx.field_path(shape.field),
                f"no probe text gives `{shape.name}` a value, not even its own delimiters "
                "around a plain value: the field never appears in a message.",
                ctx.example(text),
            )
        )
    return out


def unprobed_field(ctx: Context) -> list[Finding]:
    """A field the probe texts cannot hold: every check that needs a region of it skips it, and
    the report says so instead of passing it in silence."""
    out: list[Finding] = []
    corpus = ctx.corpus
    for shape in corpus.shapes:
        if corpus.part(shape.name) is not None:
            continue
        f = shape.field
        built = shape.body(payload_for(shape))
        if built is None or f.open is None:
            path = ctx.field_path(f)
            why = (
                f"it cannot write a body that its `{f.content}` content and transform turn "
                "into a value"
            )
        else:
            path = ctx.delimiter_path(f, f.open)
            why = (
                "no text it writes matches the open delimiter (its sampler does not model every "
                "construct: e.g. `\\X`, fuzzy matching, verbose mode, branch resets; or the "
                "text it picks for a part fails a condition elsewhere in the pattern)"
            )
        out.append(
            ctx.finding(
                "unprobed-field",
                INFO,
                path,
                f"rtc lint could not build a region of `{shape.name}`: {why}. The checks that "
                "probe regions of this field did not look at it; check it on real model output "
                "(`rtc parse`).",
                None,
            )
        )
    return out
