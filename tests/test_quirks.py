"""The parsing quirks of transformers 5.23.0 (reference-semantics.md §11, Q1-Q52), one tiny
template each: the reference must still show the quirk (``expect``), and rtc must behave exactly
like it one shot and streamed in many ways (1 and 3 characters, every cut into two pieces, empty
and ``None`` feeds).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from limits import too_deep
from reference import (
    Comparison,
    Reference,
    Rtc,
    canon,
    fixed_chunkings,
    load,
    record_oneshot,
)

pytestmark = pytest.mark.core

pytest.importorskip("transformers.utils.chat_parsing")  # the reference, a test extra

DATA = Path(__file__).parent / "data"
HANG = "hang"


def T(fields: dict[str, Any], **top: Any) -> dict[str, Any]:
    """A template with start anchor ``<A>`` (the notation of reference-semantics §11)."""
    return {"start_anchor": "<A>", **top, "fields": fields}


def catalogue(name: str, folder: str = "templates") -> dict[str, Any]:
    return json.loads((DATA / folder / f"{name}.json").read_text(encoding="utf-8"))


def undocumented(x: int) -> int:
    return x


@dataclass
class Quirk:
    id: str
    template: Any
    text: Any
    expect: Any = None
    """The reference's one-shot answer: a message, ``"raises:Name"``, ``HANG``, or None (any)."""
    prefix: Any = ""
    tools: Any = None
    chunks: list[list[Any]] = field(default_factory=list)
    """Extra chunkings to stream, beside the standard ones."""


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {
                    "b": {"anyOf": [{"type": "boolean"}, {"type": "integer"}]},
                    "n": {"type": "integer"},
                    "s": {"type": "string"},
                },
            },
        },
    }
]

CALL = {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}
JSON_X = {"open": "<x>", "close": "</x>", "content": "json"}

QUIRKS = [
    Quirk("Q1-smollm3", catalogue("smollm3"), "Hello<|im_end|>\n", {"role": "assistant"}),
    Quirk("Q1-qwen3", catalogue("qwen3"), "Hello<|im_end|>\n", {"role": "assistant"}),
    Quirk("Q1-gemma4", catalogue("gemma4"), "Hello<turn|>\n", {"role": "assistant"}),
    Quirk("Q1-granite4", catalogue("granite4"), "Hi<|end_of_text|>\n", {"role": "assistant"}),
    Quirk(
        "Q2-overwrite",
        catalogue("smollm3"),
        "Hello<|im_end|>more",
        {"role": "assistant", "content": "more"},
    ),
    Quirk(
        "Q2-endoftext",
        catalogue("smollm3"),
        "Hi<|im_end|>\n<|endoftext|>",
        {"role": "assistant", "content": "<|endoftext|>"},
    ),
    Quirk("Q3", T({"body": {"close_pattern": "$"}}), "abc\n", {"body": "abc"}),
    Quirk("Q3-later-feeds", T({"body": {"close_pattern": "$"}}), "abc\nde\n", None),
    Quirk("Q4-empty", T({"body": {"close_pattern": ""}}), "abc", {}),
    Quirk("Q4-boundary", T({"body": {"close_pattern": r"\b"}}), "abc", {}),
    Quirk("Q5", T({"x": {"open_pattern": "(?=a)", "close_pattern": "(?=a)"}}), "aab", HANG),
    Quirk(
        "Q5-empty-groups", T({"x": {"open_pattern": "(?:)", "close_pattern": "(?:)"}}), "a", HANG
    ),
    Quirk(
        "Q5-not-when-close-fails",
        T({"x": {"open_pattern": "", "close_pattern": "(?=a)", "content": "int"}}),
        "4a",
        None,
        chunks=[["4", "a"]],
    ),
    Quirk(
        "Q6-caret",
        catalogue("ernie"),
        "<think>\nthought</think>",
        {"role": "assistant", "thinking": "<think>\nthought"},
    ),
    Quirk(
        "Q6-prefix",
        catalogue("ernie"),
        "thought</think>\n<response>\nhi\n</response>",
        None,
        prefix="User: hi\nAssistant: ",
    ),
    Quirk(
        "Q7",
        catalogue("ext_qwen_chatml_content_only", "corpus"),
        "Hi<|im_end|>",
        {"role": "assistant", "content": "Hi"},
        chunks=[["Hi<|im_", "end|>"]],
    ),
    Quirk(
        "Q8",
        T({"x": {"open": "<x>", "close_pattern": r"\)(?:\]<E>)?\s*"}, "c": {}}),
        "<x>a)]<E> b",
        {"x": "a", "c": "b"},
    ),
    Quirk(
        "Q9",
        T({"x": {"open_pattern": r"<a\b[^>]*?\bname=", "close": "/>"}}),
        '<a name="v"/>',
        {"x": '"v"'},
    ),
    Quirk(
        "Q10",
        T({"r": {"open_pattern": r"(?=[\s\S]*?</t>)", "close": "</t>"}, "c": {}}),
        "think</t>answer",
        {"r": "think", "c": "answer"},
    ),
    Quirk(
        "Q11-pattern",
        T({"x": {"open": "<x>", "close_pattern": "</x>"}}),
        "<x>ab</x>z",
        {"x": "ab"},
        chunks=[["<x>ab</x>", "z"]],
    ),
    Quirk(
        "Q11-literal",
        T({"x": {"open": "<x>", "close": "</x>"}}),
        "<x>ab</x>z",
        {"x": "ab"},
        chunks=[["<x>ab</x>", "z"]],
    ),
    Quirk(
        "Q12",
        T({"b": {"open": "<x>", "close": "</x>"}, "a": {"open": "<x>", "close": "</x>"}}),
        "<x>hi</x>",
        {"a": "hi"},
    ),
    Quirk(
        "Q13",
        T({"c": {"close": "END"}, "x": {"open": "END", "close": "</x>"}}),
        "hiENDyo</x>",
        {"c": "hi", "x": "yo"},
    ),
    Quirk(
        "Q14",
        T({"long": {"open": "bcdef", "close": "."}, "s": {"open": "ab", "close": "."}}),
        "abcdef.",
        {"s": "cdef"},
    ),
    Quirk(
        "Q15",
        catalogue("cohere"),
        "Sure!<|START_RESPONSE|>Ottawa.<|END_RESPONSE|> trailing",
        {"role": "assistant", "content": "Ottawa."},
    ),
    Quirk(
        "Q16",
        T({"c": {"open": "<c>"}, "t": {"open": "<t>", "close": "</t>"}}),
        "<c>body<t>inner</t>tail",
        {"c": "body<t>inner</t>tail"},
    ),
    Quirk("Q17", {"start_anchor": "aa", "fields": {"c": {}}}, "b", {"c": "ab"}, prefix="zaaa"),
    Quirk(
        "Q18",
        T({"x": {"open": "<x>", "close": "</x>"}, "c": {}}),
        "now",
        {"x": "hist", "c": "now"},
        prefix="<x>hist</x>",
    ),
    Quirk(
        "Q19",
        {"start_anchor_pattern": "x*", "fields": {"c": {}}},
        "b",
        {"c": "b"},
        prefix="hello",
    ),
    Quirk("Q20", T({"c": {"close": "<E>"}}), "before<A>after<E>", {"c": "before<A>after"}),
    Quirk("Q21", T({"x": JSON_X}), "", "raises:ValueError", prefix="<A><x>{bad</x>"),
    Quirk(
        "Q22",
        T(
            {
                "x": {"open": "<x>", "close": "</x>"},
                "n": {"open": "<n>", "close": "</n>", "content": "int"},
                "content": {},
            },
            defaults={"role": "assistant", "content": ""},
        ),
        "<x>  </x><n>0</n>",
        {"role": "assistant", "content": "", "n": 0},
    ),
    Quirk("Q23", T({"x": {"open": "<x>", "close": "</x>", "optional": False}}), "<x> </x>", {}),
    Quirk(
        "Q23-missing",
        T({"x": {"open": "<x>", "close": "</x>", "optional": False}}),
        "hi",
        "raises:ValueError",
    ),
    Quirk("Q24-zero", T({"x": {"open": "<x>", "optional": 0}}), "", "raises:ValueError"),
    Quirk("Q24-none", T({"x": {"open": "<x>", "optional": None}}), "", "raises:ValueError"),
    Quirk(
        "Q25-repeats",
        T({"x": {"open": "<x>", "close": "</x>", "repeats": True}}, defaults={"x": "d"}),
        "<x>a</x>",
        "raises:AttributeError",
    ),
    Quirk(
        "Q25-join",
        T(
            {"x": {"open": "<x>", "close": "</x>", "repeats": True, "join": "+"}},
            defaults={"x": "d"},
        ),
        "<x>a</x><x>b</x>",
        {"x": "d+a+b"},
    ),
    Quirk(
        "Q25-list-join",
        T(
            {"x": {"open": "<x>", "close": "</x>", "repeats": True, "join": "+"}},
            defaults={"x": []},
        ),
        "<x>a</x>",
        "raises:TypeError",
    ),
    Quirk(
        "Q26",
        T({"x": {"open": "<x>", "close": "</x>", "repeats": True, "join": "|"}}),
        "<x>a</x><x>c</x><x> </x>",
        {"x": "a|c|"},
    ),
    Quirk(
        "Q27",
        T({"x": {"open": "<x>", "close": "</x>", "repeats": True}}),
        "<x>a</x><x>c</x><x></x>",
        {"x": ["a", "c", ""]},
    ),
    Quirk(
        "Q28",
        T({"x": {"open": "<x>", "close_pattern": "</(?P<n>x)>", "transform": "{n}"}}),
        "<x>a</x>",
        "raises:KeyError",
    ),
    Quirk(
        "Q29",
        T({"x": {"open_pattern": r"<x(?: (?P<n>\w+))?>", "close": "</x>", "transform": "{n}"}}),
        "<x>a</x>",
        "raises:KeyError",
    ),
    Quirk(
        "Q30",
        T(
            {
                "x": {
                    "open_pattern": r"<(?P<content>\w+)>",
                    "close": "</x>",
                    "transform": "{content}",
                }
            }
        ),
        "<x>body</x>",
        {"x": "body"},
    ),
    Quirk(
        "Q31",
        T({"x": {**JSON_X, "transform_each": True, "transform": "{content}"}}),
        '<x>[{"a": 1}]</x>',
        "raises:KeyError",
    ),
    Quirk(
        "Q32",
        T({"x": {**JSON_X, "transform": {"{content}": 7}}, "y": {"open": "<y>", "transform": 7}}),
        "<x>1</x><y>zz",
        {"x": {"{content}": 7}, "y": 7},
    ),
    Quirk(
        "Q33", T({"x": {**JSON_X, "transform": "{content.0}"}}), "<x>[1]</x>", "raises:ValueError"
    ),
    Quirk(
        "Q34-space",
        T({"x": {**JSON_X, "content_args": {"unquoted_keys": True}}}),
        "<x>{ a:1}</x>",
        "raises:ValueError",
    ),
    Quirk(
        "Q34-inside-string",
        T({"x": {**JSON_X, "content_args": {"unquoted_keys": True}}}),
        '<x>{"k": "x,y:z"}</x>',
        "raises:ValueError",
    ),
    Quirk(
        "Q34-raw",
        T({"x": {**JSON_X, "content_args": {"allow_non_json": True, "strip": False}}}),
        "<x> no json </x>",
        {"x": " no json "},
    ),
    Quirk("Q35-duplicates", T({"x": JSON_X}), '<x>{"a": 1, "a": 2}</x>', {"x": {"a": 2}}),
    # nested beyond what json accepts on this interpreter (tests/limits.py)
    Quirk("Q35-deep", T({"x": JSON_X}), "<x>" + too_deep() + "</x>", "raises:RecursionError"),
    Quirk(
        "Q35-delims-null",
        T({"x": {**JSON_X, "content_args": {"string_delims": None}}}),
        "<x>1</x>",
        "raises:TypeError",
    ),
    Quirk(
        "Q35-sentinel",
        T({"x": {**JSON_X, "content_args": {"string_delims": [["'", "'"]]}}}),
        "<x>\x01</x>",
        "raises:ValueError",
    ),
    Quirk(
        "Q35-nan",
        T({"x": JSON_X}),
        "<x>[NaN, Infinity, -Infinity]</x>",
        {"x": [float("nan"), float("inf"), float("-inf")]},
    ),
    Quirk(
        "Q36-no-pattern",
        T({"x": {"open": "<x>", "close": "</x>", "content": "xml-inline"}}),
        "<x><a>1</a></x>",
        "raises:ValueError",
    ),
    Quirk(
        "Q36-bad-pattern",
        T(
            {
                "x": {
                    "open": "<x>",
                    "close": "</x>",
                    "content": "xml-inline",
                    "content_args": {"tag_pattern": "("},
                }
            }
        ),
        "<x><a>1</a></x>",
        "raises:regex.error",
    ),
    Quirk(
        "Q36-shapes",
        T(
            {
                name: {
                    "open": f"<{name}>",
                    "close": f"</{name}>",
                    "content": "xml-inline",
                    "content_args": args,
                }
                for name, args in {
                    "nokey": {"tag_pattern": r"<(?P<k>\w+)>"},
                    "novalue": {"tag_pattern": r"<(?P<key>\w+)/>"},
                    "merge": {
                        "tag_pattern": r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>",
                        "value_parser": {"name": "json"},
                        "merge_duplicates": True,
                    },
                }.items()
            }
        ),
        "<nokey>plain</nokey><novalue><a/><b/></novalue><merge><k>[1,2]</k><k>3</k></merge>",
        {"novalue": {"a": "", "b": ""}, "merge": {"k": [1, 2, 3]}},  # nokey: {} is dropped
    ),
    Quirk(
        "Q36-unset-value",
        T(
            {
                "x": {
                    "open": "<x>",
                    "close": "</x>",
                    "content": "xml-inline",
                    "content_args": {
                        "tag_pattern": r"<(?P<key>\w+)>(?:(?P<value>\d+)|-)</(?P=key)>",
                        "value_parser": {"name": "int"},
                    },
                }
            }
        ),
        "<x><a>-</a></x>",
        "raises:AttributeError",
    ),
    Quirk(
        "Q37-whitespace",
        T(
            {
                "x": {
                    "open": "<x>",
                    "close": "</x>",
                    "content": "kv-lines",
                    "content_args": {"line_sep": None},
                }
            }
        ),
        "<x>a:1 b:2\tc: 3</x>",
        {"x": {"a": "1", "b": "2", "c": ""}},
    ),
    Quirk(
        "Q37-empty-sep",
        T(
            {
                "x": {
                    "open": "<x>",
                    "close": "</x>",
                    "content": "kv-lines",
                    "content_args": {"kv_sep": ""},
                }
            }
        ),
        "<x>a:1</x>",
        "raises:ValueError",
    ),
    Quirk(
        "Q38",
        T(
            {
                "i": {"open": "<i>", "close": "</i>", "content": "int", "repeats": True},
                "f": {"open": "<f>", "close": "</f>", "content": "float", "repeats": True},
            }
        ),
        "<i> 4_2 </i><i>٤٢</i><f>1_0.5</f><f>inf</f><f>-nan</f>",
        {"i": [42, 42], "f": [10.5, float("inf"), float("nan")]},
    ),
    Quirk(
        "Q39",
        T({"b": {"open": "<b>", "close": "</b>", "content": "bool", "repeats": True}}),
        "<b>yes</b><b> TRUE </b><b>1</b><b></b>",
        {"b": [False, True, True, False]},
    ),
    Quirk(
        "Q40",
        T({"x": {"open": "<x>", "close": "</x>", "content_args": ["strip"]}}),
        "<x>a</x>",
        "raises:AttributeError",
    ),
    Quirk(
        "Q41",
        T(
            {
                "citation": {
                    **JSON_X,
                    "transform": {"function": {"name": "f", "arguments": "{content}"}},
                },
                "raw": {"open": "<r>", "close": "</r>", "content": "json"},
            }
        ),
        '<x>{"n": "7"}</x><r>{"name": "f", "arguments": {"n": "7"}}</r>',
        {
            "citation": {"function": {"name": "f", "arguments": {"n": 7}}},
            "raw": {"name": "f", "arguments": {"n": "7"}},
        },
        tools=TOOLS,
    ),
    Quirk(
        "Q42",
        T(
            {
                "x": {
                    "open_pattern": r"<(?P<name>\w+)>",
                    "close": "</x>",
                    "content": "json",
                    "transform": CALL,
                }
            }
        ),
        '<f>{"b": "1", "n": "1e3", "s": "5"}</x>',
        {
            "x": {
                "type": "function",
                "function": {"name": "f", "arguments": {"b": True, "n": 1000, "s": "5"}},
            }
        },
        tools=TOOLS,
    ),
    Quirk(
        "Q43",
        catalogue("qwen3_coder"),
        "<tool_call><function=f><parameter=s>1.50</parameter></function></tool_call>",
        None,
        tools=TOOLS,
    ),
    Quirk("Q44", T({"c": {}}), "hi", "raises:DocstringParsingException", tools=[undocumented]),
    Quirk(
        "Q45",
        T(
            {
                "x": {
                    "open_pattern": r"<(?P<name>\w+)>",
                    "close": "</x>",
                    "content": "json",
                    "transform": {
                        "function": {"name": "{name}", "arguments": "{content}"},
                        "copy": "{content}",
                    },
                }
            }
        ),
        '<f>{"n": "7"}</x>',
        {"x": {"function": {"name": "f", "arguments": {"n": 7}}, "copy": {"n": 7}}},
        tools=TOOLS,
    ),
    Quirk(
        "Q46",
        T({"x": JSON_X, "c": {}}),
        "<x>{bad</x>more<x>1</x>",
        "raises:ValueError",
        chunks=[["<x>{bad</x>", "more", "<x>1</x>"], ["<x>{b", "ad</x>", "x</x>"]],
    ),
    Quirk("Q47", T({"c": {}}, defaults={"role": "assistant"}), None, {"role": "assistant"}),
    Quirk(
        "Q47-feeds",
        T({"c": {}}),
        "ab",
        {"c": "ab"},
        chunks=[[None, "a", None, "", "b"], ["a", 5, "b"], ["a", b"b"]],
    ),
    Quirk("Q48-true", T({"c": {}}, version=True), "hi", {"c": "hi"}),
    Quirk("Q48-float", T({"c": {}}, version=1.0), "hi", {"c": "hi"}),
    Quirk(
        "Q49",
        T({"x": {**JSON_X, "content_args": {"prefix": "call:", "strip_prefix": "x"}}}),
        "<x>call:{}</x>",
        "raises:ValueError",
    ),
    Quirk("Q50", T({"x": {"open": "<x>", "close": "</x>"}}), "<x></x>", {}),
    Quirk(
        "Q51",
        T(
            {"b": {"open": "<b>", "close": "</b>"}, "a": {"open": "<a>", "close": "</a>"}},
            defaults={"z": 1, "role": "assistant"},
        ),
        "<a>1</a><b>2</b><a>3</a>",
        {"z": 1, "role": "assistant", "a": "3", "b": "2"},
    ),
    Quirk(
        "Q52-deepseek-string-true",
        catalogue("deepseek_v4"),
        '<｜DSML｜invoke name="f"><｜DSML｜parameter name="s" string="true">2024'
        "</｜DSML｜parameter></｜DSML｜invoke>",
        {
            "role": "assistant",
            "tool_calls": [
                {"type": "function", "function": {"name": "f", "arguments": {"s": 2024}}}
            ],
        },
    ),
    Quirk(
        "Q52-llama3-no-eot",
        catalogue("llama3"),
        '{"name": "f", "parameters": {"n": 1}}',
        "raises:ValueError",
    ),
    Quirk(
        "Q52-glm-observation",
        catalogue("glm4_moe"),
        "<tool_call>f\n<arg_key>n</arg_key>\n<arg_value>1</arg_value></tool_call><|observation|>",
        None,
    ),
    Quirk(
        "Q52-nemotron-truncated-think",
        catalogue("nemotron3"),
        "thinking without end",
        {"role": "assistant", "content": "thinking without end"},
        prefix="<|im_start|>assistant\n<think>\n",
    ),
]

LONG = "w " * 50
"""Longer than the context a compiled parser keeps behind the search position."""

EDGES = [
    Quirk(name, T({"x": {"open_pattern": pattern, "close": "</a>"}, "c": {}}), text)
    for name, pattern, text in [
        ("edge-K-open", r"<\Ka>", "z<a>v</a>"),
        ("edge-G-open", r"\G<a>", "<a>v</a>z<a>w</a>"),
        ("edge-reverse", "(?r)<a>", "z<a>v</a><a>w</a>"),
        ("edge-caret-after-trim", r"^<a>|\b<b>", "<a>q</a>" + LONG + "<a>x</a> <b>y</a>"),
        ("edge-multiline-caret", "(?m)^END", LONG + "\nEND v</a>" + LONG + "xEND"),
        ("edge-lookbehind-far", r"(?<=START[\s\S]*)END", "START" + LONG + "END v</a>"),
        ("edge-word-boundary", r"\bab\b", LONG + "xab ab v</a>"),
        ("edge-not-boundary", r"\Bab", LONG + " ab xab v</a>"),
        ("edge-word-start", r"\mab", LONG + "xab ab v</a>"),
        ("edge-A", r"\A<a>", LONG + "<a>v</a>"),
        ("edge-lookbehind-caret", r"(?<=^|\n)<a>", LONG + "\n<a>v</a>"),
    ]
] + [
    Quirk("edge-K-close", T({"x": {"close_pattern": r"a\Kb"}}), "ab", {"x": "ab"}),
    Quirk("edge-K-close-long", T({"c": {"close_pattern": r"a\Kb"}}), LONG + "ab" + LONG + "ab"),
]
"""Not quirks: constructs at the edges of the compiler's analyses (match start moved by \\K,
search-start-sensitive \\G and (?r), look-behinds and assertions after buffer trimming)."""

QUIRKS += EDGES


def _chunkings(quirk: Quirk) -> list[list[Any]]:
    if not isinstance(quirk.text, str):
        return [*quirk.chunks, [quirk.text]]
    ways = list(fixed_chunkings(quirk.text, quirk.id, randoms=2).values()) + quirk.chunks
    if len(quirk.text) <= 80:
        ways += [[quirk.text[:i], quirk.text[i:]] for i in range(1, len(quirk.text))]
    ways.append([quirk.text, "", None])
    return ways


@pytest.mark.parametrize("quirk", QUIRKS, ids=[q.id for q in QUIRKS])
def test_reference_still_shows_the_quirk(ref: Reference, quirk: Quirk) -> None:
    state, loaded = load(ref, quirk.template)
    assert state == "ok"
    step = record_oneshot(ref, loaded, quirk.text, quirk.prefix, quirk.tools)
    if quirk.expect == HANG:
        assert step.hang
    elif isinstance(quirk.expect, str):
        assert f"raises:{step.error}" == quirk.expect
    elif quirk.expect is not None:
        assert step.error is None and not step.hang, step.describe()
        assert canon(step.raw, aliases=False) == canon(quirk.expect, aliases=False), step.raw


@pytest.mark.parametrize("quirk", QUIRKS, ids=[q.id for q in QUIRKS])
def test_quirk(rtc: Rtc, quirk: Quirk) -> None:
    comparison = Comparison(Reference(timeout=0.3), rtc, quirk.template)  # Q5 hangs: be quick
    assert not (problem := comparison.load_problem()), problem
    problems = [comparison.oneshot_problem(quirk.text, quirk.prefix, quirk.tools)]
    problems += [comparison.stream_problem(quirk.prefix, quirk.tools, c) for c in _chunkings(quirk)]
    found = [p for p in problems if p]
    assert not found, f"{len(found)} of {len(problems)} runs differ; first:\n{found[0]}"
