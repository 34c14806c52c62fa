"""A looping model must not stall the parser: linear work on degenerate generations.

Models loop: a degenerate generation repeats one fragment until ``max_tokens``, often made of
the format's own delimiters. For every catalogue family, each fragment its template yields
(``rtc.compiler.lint.repetitions``: its delimiters, call heads, parameter tags, and whitespace
where its patterns take runs of it) is repeated after a short opening into a text of about
:data:`SIZE` characters and into one four times longer, and parsed one shot, streamed in
16-character chunks and fed whole. The work is counted, never timed (``rtc.compiler.lint.work``:
the characters the parser's searches examine, each regex attempt by its extent), so the check is
exact and the same on every machine: the longer text must cost under :data:`GROWTH` times
the shorter one (linear work gives 4, quadratic 16).

The check is shown to catch what it is for on the llama3 template as it was before its call
open stopped reading the rest of the text at every repeated call head
(``tests/data/looping/llama3_recursive_lookahead.json``, ``generated/llama3.json`` of this
repository at commit 5e373cc): over 10 s for 600 repeated heads, one shot and streamed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rtc.compiler.lint.repetitions import fragments, times_for
from rtc.compiler.lint.work import WorkLimit, count, counting_module
from rtc.compiler.validate import validate

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data" / "looping"
FAMILIES = sorted(path.stem for path in (ROOT / "generated").glob("*.json"))

SIZE = 1000
"""Characters of the shorter text (both texts are above the spans the parsers treat as long)."""
GROWTH = 6.0
"""Most the work may grow for four times the text."""
CHUNK = 16
PER_CHARACTER = 400
"""Characters examined per character of the shorter text past which a parse fails at once
(so that a quadratic case stops early instead of running long)."""


ONE_SHOT = "one shot"
STREAMED = "in 16-character chunks"
WHOLE = "fed whole"
"""One ``feed()`` of the whole text, then ``finalize()``: how ``parse_openai`` (and a server
that does not stream) reads a generation."""
WHITESPACE = "whitespace runs"
INSIDE = "fields.tool_calls: whitespace runs inside"

# Found by this check and not yet made linear: each family, the fragment sources (as
# lint.repetitions names them) and the modes whose work still grows faster than the text; none
# today. Streamed chunks are counted through feed()'s fast path, as production takes it (a
# trailing whitespace run it holds back is not searched again on every chunk). A text fed whole
# is one pass of the loop over many regions: its searches are remembered while their answer is
# still ahead (rtc.runtime.ahead), or a delimiter that never occurs would be sought to the end
# again in every region (46 families before). Whitespace after an open that takes a run of it,
# or inside a call after its value (llama3's \G(?:(?&jv)\K|(?<=\}))\s*\}..., the last entry
# here), keeps a held match growing: regex_syntax.growth proves where such text is appended
# without a search.
SUPER_LINEAR: dict[str, dict[str, tuple[str, ...]]] = {}


def slow_fragments(
    template: dict[str, Any],
    size: int = SIZE,
    skip: dict[str, tuple[str, ...]] | None = None,
    only: dict[str, tuple[str, ...]] | None = None,
) -> list[str]:
    """The fragments (and how they were parsed) whose work grows too fast, as messages, each
    ending in ``(source) mode: ...``; ``skip``: fragment sources not tried, with the modes
    (:data:`ONE_SHOT`, :data:`STREAMED`); ``only``: the only ones tried."""
    module = counting_module(template)
    slow = []
    for fragment in fragments(validate(template)):
        times = times_for(fragment.text, size)
        short, long = fragment.generation(times), fragment.generation(4 * times)
        for how, chunk in ((ONE_SHOT, None), (STREAMED, CHUNK), (WHOLE, len(long))):
            if how in (skip or {}).get(fragment.source, ()):
                continue
            if only is not None and how not in only.get(fragment.source, ()):
                continue
            try:
                small = count(module, short, chunk=chunk, limit=PER_CHARACTER * len(short))
                big = count(module, long, chunk=chunk, limit=int(GROWTH * small))
            except WorkLimit as exc:
                after = f" after {fragment.head!r}" if fragment.head else ""
                slow.append(f"{fragment.text!r}{after} ({fragment.source}) {how}: {exc}")
                continue
            assert big >= small, (fragment, chunk)
    return slow


@pytest.mark.parametrize("name", FAMILIES)
def test_looping_generations_cost_linear_work(name: str) -> None:
    template = json.loads((ROOT / "generated" / f"{name}.json").read_text(encoding="utf-8"))
    listed = SUPER_LINEAR.get(name)
    slow = slow_fragments(template, skip=listed)
    assert not slow, f"{name}: work grows faster than the text on\n" + "\n".join(slow)
    if listed:
        # The list stays true: what it names is still super-linear on some fragment.
        still = slow_fragments(template, only=listed)
        for source, modes in listed.items():
            for how in modes:
                assert any(f"({source}) {how}:" in s for s in still), (name, source, how)


def test_every_family_is_checked() -> None:
    assert len(FAMILIES) >= 47 and "llama3" in FAMILIES
    assert set(SUPER_LINEAR) <= set(FAMILIES)
    for name, skipped in sorted(SUPER_LINEAR.items()):
        # Each entry names fragments the family has (the list names real cases).
        template = json.loads((ROOT / "generated" / f"{name}.json").read_text(encoding="utf-8"))
        sources = {f.source for f in fragments(validate(template))}
        assert set(skipped) & sources, name


def test_the_check_catches_a_call_head_read_to_the_end_at_every_repetition() -> None:
    template = json.loads((DATA / "llama3_recursive_lookahead.json").read_text(encoding="utf-8"))
    slow = slow_fragments(template, size=600)  # (both texts above LONG_SPAN, as with SIZE)
    assert any(s.startswith('\'{"name":"f","parameters":\'') for s in slow), slow
    assert any("one shot" in s for s in slow) and any("chunks" in s for s in slow), slow


def test_lint_flags_the_call_head_read_to_the_end() -> None:
    """``rtc lint`` tries the same repetitions: llama3 as it was is flagged by both checks (a
    search reads the rest of the text at every head; streaming holds everything back from the
    first), today's llama3 by neither."""
    from rtc.compiler.lint import lint

    before = json.loads((DATA / "llama3_recursive_lookahead.json").read_text(encoding="utf-8"))
    now = json.loads((ROOT / "generated" / "llama3.json").read_text(encoding="utf-8"))
    wanted = {
        ("catastrophic-backtracking", "fields.tool_calls.open_pattern"),
        ("unbounded-holdback", "fields.tool_calls.open_pattern"),
    }
    assert wanted <= {(f.code, f.path) for f in lint(before)}
    assert not wanted & {(f.code, f.path) for f in lint(now)}


# The call opens of cohere and gemma4_rtc accept a block only if its close comes before the
# next open. Written with a tempered dot, (?:(?!OPEN)[\s\S])*?CLOSE, that look-ahead tried a
# negative look-ahead at every character, and while a call's arguments stream the open stays
# pending and is searched again on every chunk: 8 KB of arguments took 15 s (gemma4_rtc) and
# 2 s (cohere). Unrolled ([^<]* between the '<'s, each checked once) it reads the same text in
# one fast scan; both forms must answer alike, complete and partial, at any position.
_UNROLLED = [
    (
        r"<\|tool_call>call:(?P<name>[\w.:\-]+)(?=(?:(?!<\|tool_call>)[\s\S])*?<tool_call\|>)",
        "gemma4_rtc",
        ["<|tool_call>", "call:", "f", "<tool_call|>", "<", "|", "x", " ", "<|tool_ca", "<tool_c"],
    ),
    (
        r"<\|START_ACTION\|>(?=(?:(?!<\|START_ACTION\|>)[\s\S])*?<\|END_ACTION\|>)",
        "cohere",
        ["<|START_ACTION|>", "<|END_ACTION|>", "<", "|", "x", " ", "<|START_AC", "<|END_AC"],
    ),
]


@pytest.mark.parametrize(("tempered", "name", "words"), _UNROLLED, ids=[x[1] for x in _UNROLLED])
def test_unrolled_call_opens_answer_like_the_tempered_ones(
    tempered: str, name: str, words: list[str]
) -> None:
    import random

    import regex

    template = json.loads((ROOT / "generated" / f"{name}.json").read_text(encoding="utf-8"))
    unrolled = regex.compile(template["fields"]["tool_calls"]["open_pattern"], regex.DOTALL)
    before = regex.compile(tempered, regex.DOTALL)
    assert unrolled.pattern != tempered
    rng = random.Random(0)
    for _ in range(3000):
        text = "".join(rng.choice(words) for _ in range(rng.randint(0, 10)))
        for pos in range(len(text) + 1):
            for partial in (False, True):
                a = before.search(text, pos, partial=partial)
                b = unrolled.search(text, pos, partial=partial)
                assert (a and (a.span(), a.partial, a.groupdict())) == (
                    b and (b.span(), b.partial, b.groupdict())
                ), (text, pos, partial)
