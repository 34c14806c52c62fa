"""A tag search bounded by the last occurrence of the literal every match ends with
(``regex_syntax.literal_suffix``) finds the same matches as the unbounded one.

The generated xml-inline loops stop there, so that a body repeating an unclosed tag
(``<parameter=k> x <parameter=k> x ...``) is not read to its end from every tag.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from rtc.compiler.regex_syntax import parse
from rtc.compiler.regex_syntax.literal import literal_runs, literal_suffix

ROOT = Path(__file__).resolve().parent.parent

PATTERNS = [
    r"<parameter=(?P<key>[^>\n]+)>\s*(?P<value>.*?)\s*</parameter>",
    r"<p=(?P<key>\w+)>(?P<value>.*?)</p>",
    r"<(?P<key>\w+)>(?P<value>[\s\S]*?)</(?P=key)>",
    r"(?<=\n)<k>(?P<key>.)(?P<value>.*?)</k>",
    r"<a k=(?P<key>\w)(?P<value>>.*?</a>)|<a n=(?P<key>\w)>(?P<value>.*?)</a>",
]
WORDS = [
    "<p=",
    "k",
    ">",
    "v",
    "</p>",
    "<a k=",
    "<a n=",
    "</a>",
    "<parameter=",
    "</parameter>",
    "<k>",
    "</k>",
    "\n",
    " ",
]


def test_the_suffix_is_the_literal_every_match_ends_with() -> None:
    assert literal_suffix(parse(PATTERNS[0])) == "</parameter>"
    assert literal_suffix(parse(PATTERNS[2])) == ">"
    assert literal_suffix(parse(PATTERNS[4])) == "</a>"
    # Something reads past the end, or no literal ends every match: no suffix.
    for pattern in [r"<p>(.*?)</p>(?=\n)", r"<p>(.*?)</p>$", r"<p>(.*?)</p>\b", r"a|b", r"a+"]:
        assert literal_suffix(parse(pattern)) is None, pattern
    assert literal_suffix(parse(r"(?i)<p>.*?</p>")) is None


@given(words=st.lists(st.sampled_from(WORDS), max_size=16), index=st.integers(0, 4))
def test_a_search_stopping_after_the_last_suffix_finds_the_same_matches(
    words: list[str], index: int
) -> None:
    pattern = PATTERNS[index]
    suffix = literal_suffix(parse(pattern))
    assert suffix is not None
    body = "".join(words)
    compiled = regex.compile(pattern, regex.DOTALL)
    stop = body.rfind(suffix) + len(suffix)
    bounded = [(m.span(), m.groups()) for m in compiled.finditer(body, 0, stop)]
    assert bounded == [(m.span(), m.groups()) for m in compiled.finditer(body)]


def test_the_catalogue_tag_patterns_with_a_suffix() -> None:
    # The rtc-written and official families whose parameter loops stop early.
    found = set()
    for path in sorted((ROOT / "generated").glob("*.json")):
        for field in json.loads(path.read_text(encoding="utf-8"))["fields"].values():
            tag = (field.get("content_args") or {}).get("tag_pattern")
            if isinstance(tag, str) and literal_suffix(parse(tag)) is not None:
                found.add(path.stem)
    assert {"qwen3_5", "seed_oss", "step3p5", "minimax_m2", "deepseek_v32", "kimi_k3"} <= found


@pytest.mark.parametrize(
    ("pattern", "runs"),
    [
        (r"<\|im_end\|>|\s*<tool_call>", ["<|im_end|>", "<tool_call>"]),
        (r"\s*(?:<\|im_end\|>|<\|endoftext\|>)", ["<|im_end|>", "<|endoftext|>"]),
        (r"\[TOOL_CALLS\](?P<name>\w+)\[ARGS\]", ["[TOOL_CALLS]", "[ARGS]"]),
        (r"<(?!\|START_ACTION\|>)", ["<", "|START_ACTION|>"]),  # not one text: a look-ahead
        (r"(?i)<think>", []),  # case-folded: not written as is
        (r"a(?:bc)*d", ["a", "bc", "d"]),
        ("(", []),  # does not parse
    ],
)
def test_literal_runs(pattern: str, runs: list[str]) -> None:
    assert literal_runs(parse(pattern)) == runs
