"""Skipping the inside of whitespace runs (``rtc.compiler.regex_syntax.runs``).

A pattern behind ``GUARD`` must find exactly what the pattern finds (the same leftmost match,
span and groups; in partial mode the same partial match) from every search position, where
``run_skipping`` says it may be guarded; and the patterns it refuses are the ones where the
inside of a run can begin the leftmost match.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from rtc.compiler.regex_syntax import parse
from rtc.compiler.regex_syntax.runs import GUARD, run_led, run_skipping, runs_stay, skips_runs

ROOT = Path(__file__).resolve().parent.parent

GUARDED = [
    r"\s*<a>",
    r"\s*(?:```|</tool_call>)|(?=<\|eot\|>|<\|end\|>)",
    r"(?:<s>)?\s*to=(?P<name>[^\s<]+)\s*<m>|<c>\w+\s+to=(?P<name>\w+)",
    r"\s*(?=<f>)|\s*<\|e\|>\s*",
    r"(?<=[}\"])\s*\}(?:(?=\s*,)|\s*\]?\s*</T>)|\s*\]?\s*</T>|(?=<S>)",
    r"\s*</i>\s*(?=<i)|\s*(?:</i>\s*)?</c>",
    r"(?:ab)*\s*?x",
    r"\s+y|z",
    r"\s*</t>|(?<!\s)(?=\s*\{)(?=[ \t]*\n)|(?=<e>)",
]
REFUSED = [
    r"(?=[ \t]*\n\s*\{)|\s*</t>",  # a look-ahead that may begin with whitespace
    r"\n\s*x",  # a branch that begins with one whitespace character
    r"(?:\s|a)?\s*x",  # an optional part that may begin with whitespace
    r"\b\s*x",  # an assertion before the run
    r"(?>\s*)x|\s*y",  # an atomic group
    r"(?i)\s*x",  # inline flags (the guard would come before them)
    r"x\s*",  # nothing led by whitespace: no run to skip
    r"(?:(a?))?\s*x\1",  # a back-reference (the group may be set at p and not at p-1)
]


def _catalogue_patterns() -> list[str]:
    found = []
    for path in sorted((ROOT / "generated").glob("*.json")):
        for f in json.loads(path.read_text(encoding="utf-8"))["fields"].values():
            for key in ("open_pattern", "close_pattern"):
                if isinstance(f.get(key), str) and run_skipping(f[key], parse(f[key])):
                    found.append(f[key])
    return found


def test_which_patterns_are_guarded() -> None:
    for pattern in GUARDED:
        assert run_skipping(pattern, parse(pattern)) == f"{GUARD}(?:{pattern})", pattern
    for pattern in REFUSED:
        assert run_skipping(pattern, parse(pattern)) is None, pattern
    # Closed to whitespace, nothing led by it: a run costs nothing to skip already.
    assert skips_runs(parse(r"(?<=\})\s*\}|(?=<a>)")) and not run_skipping(
        "(?<=\\})\\s*\\}", parse("(?<=\\})\\s*\\}")
    )
    # The catalogue has such patterns (gpt_oss's call open among them).
    assert len(_catalogue_patterns()) >= 4


def test_run_led_branches() -> None:
    def led(pattern: str) -> bool:
        tree = parse(pattern)
        return run_led(tree, tree.root)

    assert led(r"\s*<a>") and led(r"(?:<s>)?\s*to=x") and led(r"\s+<a>") and led(r"\s*\n?<a>")
    assert not led(r"\s*?<a>") and not led(r"<a>\s*") and not led(r"(?<=x)\s*<a>")


def test_runs_stay() -> None:
    for pattern in [
        r"(?<=\})\s*\}(?:(?=\s*,)|\s*\])|(?=<\|t\|>|<\|e\|>)",
        r"\s*<a>|(?<![x])(?<=[}\"])\s+\]",
        r"<a>",
        r"(?:<b>)?\s*<a>",
        r"\}\s*(?:<e>|$)",  # it cannot begin at whitespace: it holds no run
    ]:
        assert runs_stay(pattern), pattern
    for pattern in [
        r"(?<=\})[ ]\n<x>",  # a run that stops being a partial match when it grows
        r"(?<=\})\s{0,3}<x>",  # bounded
        r"(?<=\})\s*?<x>",  # lazy
        r"(?=[ \t]*\n\s*\{)|\s*</t>",  # a look-ahead that may begin with whitespace
        r"(?<=\})\s*x|\n<a>",  # a branch that begins with whitespace
    ]:
        assert not runs_stay(pattern), pattern


_ALPHABET = ' \n\t\u3000ax<>/=tos}{],"|`'


def _same(plain: regex.Pattern[str], guarded: regex.Pattern[str], text: str) -> None:
    for pos in range(len(text) + 1):
        for partial in (False, True):
            want = plain.search(text, pos, partial=partial)
            got = guarded.search(text, pos, partial=partial)
            assert (want and (want.span(), want.groups(), want.partial)) == (
                got and (got.span(), got.groups(), got.partial)
            ), (plain.pattern, text, pos, partial)


@pytest.mark.parametrize("pattern", GUARDED + _catalogue_patterns())
@settings(derandomize=True, deadline=None, max_examples=60)
@given(
    st.lists(
        st.one_of(
            st.text(_ALPHABET, max_size=4),
            st.sampled_from(["   ", "\n\n", "to=f", "<a>", "</tool_call>", "```", "}", "<|eot|>"]),
        ),
        max_size=8,
    )
)
def test_a_guarded_search_finds_what_the_pattern_finds(pattern: str, parts: list[str]) -> None:
    plain = regex.compile(pattern, regex.DOTALL)
    guarded = regex.compile(GUARD + f"(?:{pattern})", regex.DOTALL)
    _same(plain, guarded, "".join(parts))
