"""Checks on what depends on how the text arrives: chunking, stop tokens, hold-back."""

from __future__ import annotations

import re
from typing import Any

from ..regex_syntax import looks_behind, parse, top_level_alternatives
from .context import Context, quote
from .findings import ERROR, WARNING, Finding
from .patterns import END_ONLY, can_match_empty_at_end, compiled, literal_or_samples
from .probe import HOLDBACK, ONE_SHOT, STREAMED, Run, is_raised, same

ONE_SHOT_RUN = Run("one-shot", ONE_SHOT)
CHAR_RUN = Run("streamed 1 character at a time", STREAMED, chunk=1)

# Text with no delimiter in it, as models write it: words, digits, punctuation, line breaks.
PROSE = (
    "Let me look at this step by step. The forecast for Paris shows 21 degrees, light wind "
    "and a clear sky; tomorrow it may rain (about 40%).\nSo the answer is: take a jacket, "
    "just in case. "
)

# Special tokens that end a turn, which serving engines use as stop strings and strip.
_TOKEN = re.compile(r"<[|｜][^<>\s]{1,40}?[|｜]>|</s>|<eos>|<[a-z_]{1,20}\|>|<\|[a-z_]{1,20}>")
# Names of the special tokens that end an assistant turn in the formats rtc knows (the text
# between the token's brackets); a close delimiter ending in one of them ends the turn.
_STOP_NAMES = frozenset(
    {
        "eot_id",
        "eom_id",
        "eos",
        "im_end",
        "endoftext",
        "end_of_text",
        "end▁of▁sentence",
        "end_of_turn_token",
        "return",
        "call",
        "turn",
        "/s",
    }
)


def _delimiters(ctx: Context) -> list[tuple[Any, Any]]:
    """(field, delimiter) for every open and close of the template."""
    return [(f, d) for f in ctx.model.fields for d in (f.open, f.close) if d is not None]


def _edge_sensitive(pattern: str) -> str | None:
    """Why a pattern's match can depend on where the text is cut, or None.

    ``empty-at-end``: the pattern matches the empty string at the end of the text (``…|$``),
    so the engine never reports the rest of the delimiter as a partial match. ``optional-tail``:
    a sample has a prefix the pattern matches whole while the next character of the sample is
    not matched whole, so a stream cut there commits the short match (a trailing ``\\s*`` is
    harmless: every further whitespace character still gives a whole match ending at the edge).
    """
    if can_match_empty_at_end(pattern):
        return "empty-at-end"
    whole = compiled(pattern).fullmatch
    for sample in literal_or_samples((), pattern, limit=6):
        if sample.witness != sample.text:
            continue
        for cut in range(1, len(sample.text)):
            if whole(sample.text[:cut]) is not None and whole(sample.text[: cut + 1]) is None:
                return "optional-tail"
    return None


def chunk_dependent(ctx: Context) -> list[Finding]:
    """Probe texts whose message differs between one shot and one-character streaming."""
    suspects = []
    for f, d in _delimiters(ctx):
        if not d.is_literal:
            why = _edge_sensitive(d.pattern)
            if why is not None:
                samples = [s.text for s in literal_or_samples((), d.pattern, limit=6) if s.text]
                suspects.append((f, d, why, samples))
    out: dict[str, Finding] = {}
    texts = sorted(ctx.corpus.texts(), key=lambda t: len(t.text))
    for probe_text in texts:
        text = probe_text.text
        whole = ctx.one_shot(text)
        streamed = ctx.probe.streamed(ctx.prefix, text, 1)
        if same(whole, streamed):
            continue
        path, why, f, d = _culprit(ctx, suspects, text, whole, streamed)
        if path in out:
            continue
        out[path] = ctx.finding(
            "chunk-dependent",
            WARNING,
            path,
            _chunk_message(why, d),
            ctx.example(text, ONE_SHOT_RUN, CHAR_RUN),
            _chunk_suggestion(ctx, why, f, d, text),
        )
    return list(out.values())


def _culprit(ctx: Context, suspects: list, text: str, a: Any, b: Any) -> tuple:
    suspects = sorted(suspects, key=lambda s: s[2] != "empty-at-end")
    for f, d, why, samples in suspects:
        if why == "empty-at-end" or any(s in text for s in samples):
            return ctx.delimiter_path(f, d), why, f, d
    keys = sorted(set(a) | set(b)) if isinstance(a, dict) and isinstance(b, dict) else []
    differing = [k for k in keys if not same(a.get(k), b.get(k))]
    name = next((k for k in differing if k in ctx.corpus.by_name), None)
    if name is None:
        return "fields", None, None, None
    return ctx.field_path(ctx.corpus.by_name[name].field), None, None, None


def _chunk_message(why: str | None, d: Any) -> str:
    if why == "empty-at-end":
        return (
            f"{quote(d.pattern)} can match the empty string at the end of the text, so while "
            "streaming it never waits for the rest of the delimiter: the delimiter's text leaks "
            "into the message unless it arrives in one chunk."
        )
    if why == "optional-tail":
        return (
            f"{quote(d.pattern)} ends in an optional part: while streaming, the match without "
            "it is taken as soon as the next character arrives, so the tail lands in the "
            "message when the text arrives in small chunks."
        )
    return "the message differs between one-shot parsing and one-character streaming."


def _chunk_suggestion(ctx: Context, why: str | None, f: Any, d: Any, text: str) -> str | None:
    if why != "empty-at-end":
        return None
    alternatives = top_level_alternatives(parse(d.pattern))
    kept = [a for a in alternatives if a not in END_ONLY]
    if not kept or len(kept) == len(alternatives):
        return None
    fixed = "|".join(kept)
    changed = ctx.with_field(f, **{d.key: fixed})
    from .probe import Probe

    probe = Probe(changed, ctx.probe.tools)
    if not same(probe.one_shot(ctx.prefix, text), probe.streamed(ctx.prefix, text, 1)):
        return None
    return (
        f"drop the end-of-text alternative: {d.key} {quote(fixed, 80)} (the end of the stream "
        "closes the region anyway)"
    )


def stop_tokens(ctx: Context) -> list[str]:
    """End-of-turn tokens: the implicit close's special tokens, the tokenizer's EOS tokens and
    turn-ending special tokens at the end of other closes."""
    found: list[str] = list(ctx.eos_tokens)
    corpus = ctx.corpus
    for sample in corpus.ends:
        found += _TOKEN.findall(sample.text)
    for shape in corpus.shapes:
        for sample in shape.closes():
            tokens = _TOKEN.findall(sample.text)
            if tokens and tokens[-1].strip("<|｜>").lower() in _STOP_NAMES:
                found.append(tokens[-1])
    return list(dict.fromkeys(t for t in found if t))


def stop_token_dependent(ctx: Context) -> list[Finding]:
    """The end-of-turn token decides between a message and an exception, or changes it."""
    out: dict[str, Finding] = {}
    tokens = stop_tokens(ctx)
    for probe_text in sorted(ctx.corpus.texts(), key=lambda t: len(t.text)):
        full = probe_text.text.rstrip()
        for token in tokens:
            if not full.endswith(token):
                continue
            stripped = full[: -len(token)]
            with_token = ctx.one_shot(full)
            without = ctx.one_shot(stripped)
            if same(with_token, without):
                continue
            path = _token_path(ctx, probe_text.parts[-1], token)
            if path in out:
                continue
            severity = ERROR if is_raised(with_token) != is_raised(without) else WARNING
            outcome = (
                ("raises" if is_raised(without) else "gives a different message")
                if severity == ERROR or not is_raised(with_token)
                else "gives a message"
            )
            out[path] = ctx.finding(
                "stop-token-dependent",
                severity,
                path,
                f"without the end-of-turn token {quote(token)} (serving engines stop on it and "
                f"strip it) parsing {outcome}, unlike the same text with the token.",
                ctx.example(
                    stripped,
                    Run(f"without {token}", ONE_SHOT),
                    Run(f"with {token}", ONE_SHOT, text=full),
                ),
            )
    return list(out.values())


def _token_path(ctx: Context, last_field: str, token: str) -> str:
    shape = ctx.corpus.by_name[last_field]
    f = shape.field
    if f.close is not None and any(token in s.text for s in shape.closes()):
        return ctx.delimiter_path(f, f.close)
    implicit = ctx.corpus.implicit
    if implicit is not None and implicit.field.close is not None:
        return ctx.delimiter_path(implicit.field, implicit.field.close)
    return ctx.field_path(f)


def unbounded_holdback(ctx: Context) -> list[Finding]:
    """Patterns that make streaming hold back, or re-read, a growing part of the response."""
    out: list[Finding] = []
    if ctx.probe.whole_buffer:
        for f, d in _delimiters(ctx):
            if not d.is_literal and looks_behind(parse(d.pattern)):
                out.append(
                    ctx.finding(
                        "unbounded-holdback",
                        WARNING,
                        ctx.delimiter_path(f, d),
                        f"{quote(d.pattern)} looks behind: the parser must keep the whole "
                        "response and search it again as it grows, so streaming cost grows "
                        "with the length of the response.",
                        ctx.example(PROSE),
                        "match the text before the delimiter instead of looking behind",
                    )
                )
    corpus = ctx.corpus
    regions: list[tuple[str, Any, list[Any]]] = []
    if corpus.implicit is not None:
        regions.append(("", corpus.implicit, _watched_outside(corpus)))
    for shape in corpus.shapes:
        f = shape.field
        part = corpus.part(shape.name)
        if f.implicit or f.close is None or part is None:
            continue
        regions.append((part.opening, shape, [(f, f.close)]))
    for opening, shape, watched in regions:
        text = opening + PROSE
        result = ctx.probe.run(ctx.prefix, text, HOLDBACK)
        if is_raised(result):
            continue
        held = result["characters fed"] - result["characters emitted before finalize"]
        if held < len(PROSE) // 2:
            continue
        culprit = _holding(watched, PROSE)
        if culprit is None:
            continue
        f, d = culprit
        where = f"in `{shape.name}`" if opening else "outside explicit regions"
        out.append(
            ctx.finding(
                "unbounded-holdback",
                WARNING,
                ctx.delimiter_path(f, d),
                f"{quote(d.pattern)} can still match after any text, so {where} nothing is "
                "emitted while streaming until it matches or the stream ends: the held-back "
                "text, and the work to search it again, grow with the response.",
                ctx.example(text, Run("streamed 1 character at a time", HOLDBACK)),
                "start the pattern with the literal text of the delimiter",
            )
        )
    reported = {finding.path for finding in out}
    return out + _looping_holdback(ctx, reported)


LOOP_TEXT = 160
"""Characters of a looping generation streamed one at a time by the hold-back check."""


def _looping_holdback(ctx: Context, reported: set[str]) -> list[Finding]:
    """Delimiters a looping model holds back: a fragment of the template's own text
    (``repetitions``) repeated, streamed one character at a time, leaves most of it unemitted
    because a pattern can still match from its first repetition on."""
    from .repetitions import fragments, times_for

    corpus = ctx.corpus
    if corpus.implicit is None:
        return []  # text outside regions is dropped: no event shows what is held back
    watched = _watched_outside(corpus)
    out: list[Finding] = []
    for fragment in fragments(ctx.model):
        if not fragment.text.strip():
            continue  # whitespace before a \s*-led delimiter is held, as the reference holds it
        text = fragment.generation(times_for(fragment.text, LOOP_TEXT))
        result = ctx.probe.run(ctx.prefix, text, HOLDBACK)
        if is_raised(result):
            continue
        held = result["characters fed"] - result["characters emitted before finalize"]
        culprit = _holding(watched, text) if held >= len(text) // 2 else None
        if culprit is None:
            continue
        f, d = culprit
        path = ctx.delimiter_path(f, d)
        if path in reported:
            continue
        reported.add(path)
        out.append(
            ctx.finding(
                "unbounded-holdback",
                WARNING,
                path,
                f"{quote(d.pattern)} can still match after {quote(fragment.text)} repeated: while "
                "a model loops on it, streaming emits nothing from the first repetition on and "
                f"searches all of it again on every feed ({held} of {len(text)} characters "
                "held back when the stream ends).",
                ctx.example(text, Run("streamed 1 character at a time", HOLDBACK)),
                "bound what the pattern reads past its delimiter (a look-ahead for the close "
                "can stop at the next open)",
            )
        )
    return out


def _watched_outside(corpus: Any) -> list[tuple[Any, Any]]:
    """(field, delimiter) watched outside explicit regions: every open, and the implicit
    field's close."""
    watched = [(s.field, s.field.open) for s in corpus.shapes if s.field.open is not None]
    if corpus.implicit.field.close is not None:
        watched.append((corpus.implicit.field, corpus.implicit.field.close))
    return watched


def _holding(watched: list[tuple[Any, Any]], text: str) -> tuple[Any, Any] | None:
    """The watched pattern whose partial match holds back most of ``text``."""
    for f, d in watched:
        if d.is_literal:
            continue
        match = compiled(d.pattern).search(text, 0, partial=True)
        if match is not None and match.partial and match.start() < len(text) // 2:
            return f, d
    return None
