"""``rtc bench``: how fast generated parsers are, next to transformers' interpreter (issues 4, 5).

The workloads are built from each template's own delimiters: literals are used as they are, and
for patterns a sample string is generated from the parsed regex (preferring realistic values for
named groups such as ``name``) and verified with ``regex.fullmatch``, or in place in the composed
text when the pattern needs context (look-arounds, ``^``). Every composed text is then parsed once
and checked (reasoning and content come back as written, the expected number of tool calls); a
workload that cannot be derived or does not parse as intended is skipped and the reason reported.

What is timed, for rtc, for the reference (transformers 5.23.0, when installed) and for a floor:

- one-shot: ``parse_response(text, prefix=ANCHOR, tools=TOOLS)``; the reference both given the
  template dict, as its ``parse_response`` is documented to be called (it then validates and
  compiles the template on each call: the "speedup"), and given a template loaded once
  beforehand with ``load_response_template`` (its best case: "x preload");
- streamed in 1-, 3- and 16-character chunks: ``feed()`` of every chunk then ``finalize()``, with
  the parser built beforehand (construction is measured on its own), reported per chunk;
- construction: ``ResponseParser(PROMPT, tools=TOOLS)`` with a multi-turn prompt of a few KB, the
  reference both from the template dict and from the preloaded template;
- the floor: a ``feed()`` that only returns a list holding one 4-key ``region_chunk`` dict, driven
  by the same loop; no parser can stream faster than that in Python;
- with ``--abuse`` (issue 5): an 8 MB generation fed in 4 KB chunks (per-character cost of the
  first and last eighth) and one character at a time at its start and at its end (under a time
  budget), and a flood of partial delimiters (``<`` repeated) at 1 MB and 8 MB: a parser whose
  per-character cost grows with the text shows ratios well above 1.

Measurements interleave rtc, the reference and the floor in one process (so machine noise hits all
alike), use ``time.perf_counter_ns`` (or, with ``--clock cpu``, the thread's CPU time), repeat
each op enough times per sample to be well above timer resolution, and report the minimum (or, on
request, the median) of several samples: other processes on the machine only ever add time, so
the minimum is the steadiest estimate of what the code costs; JSON keeps both. The garbage
collector is paused inside a sample only (as ``timeit`` does); collections still happen between
samples. Every sample runs under a wall-clock cap (``signal.setitimer``): the reference is
quadratic in places and never returns on some templates, so a slow call is reported as "timeout"
instead of hanging the run; each measurement and each template has a time budget too, and a
parser that timed out on a text is not run on longer ones.
"""

from __future__ import annotations

import gc
import json
import math
import os
import platform
import random
import signal
import statistics
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from importlib import resources
from pathlib import Path
from re import _constants as _sre
from re import _parser as _sre_parse
from types import FrameType, ModuleType
from typing import Any

import click
import regex

from .codegen import load
from .version import __version__

# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchConfig:
    """What to run and how long each measurement may take (seconds throughout)."""

    sizes: tuple[int, ...] = (4096, 16384, 131072)
    """Sizes (characters) of the reasoning-heavy workloads."""
    short_size: int = 200
    chunk_sizes: tuple[int, ...] = (1, 3, 16)
    tool_calls: int = 4
    min_repeats: int = 3
    max_repeats: int = 7
    budget: float = 1.0
    """A measurement stops repeating once it has min_repeats samples and has run this long."""
    hard_cap: float = 5.0
    """A measurement stops repeating after this long whatever min_repeats says."""
    min_sample: float = 0.002
    """Inner-loop length of one sample, so that fast ops stand well above timer noise."""
    ref_timeout: float = 10.0
    """Cap on one sample of the reference (reported as "timeout")."""
    rtc_timeout: float = 10.0
    template_budget: float = 240.0
    """Once a template has run this long, its remaining measurements are skipped."""
    reference: bool = True
    workloads: tuple[str, ...] = ()
    """Only these workloads (names as in the report); empty means all."""
    abuse: bool = False
    abuse_size: int = 8 * 2**20
    abuse_small: int = 2**20
    abuse_chunk: int = 4096
    abuse_segment: int = 65536
    """Characters fed one at a time at the start and at the end of the big text."""
    abuse_char_budget: float = 4.0
    """Time budget of each of the two 1-character feeding runs."""
    abuse_timeout: float = 60.0
    headline_chunk: int = 3
    headline_size: int = 16384
    clock: str = "wall"
    """"wall": ``time.perf_counter_ns``; "cpu": ``time.thread_time_ns``, which leaves out the
    time other processes take the CPU away, for a loaded machine (a long sample is preempted
    more often than a short one, which would bias the linearity ratios)."""
    statistic: str = "min"
    """Which sample of a measurement stands for it ("min" or "median"). The minimum by default:
    it is the least disturbed by other processes on a shared machine; JSON keeps both."""
    quick: bool = False

    @property
    def linearity_sizes(self) -> tuple[int, int]:
        """Per-chunk cost at the largest size over the cost at the smallest (128 KB / 4 KB)."""
        return min(self.sizes), max(self.sizes)


FULL = BenchConfig()
QUICK = BenchConfig(
    chunk_sizes=(3, 16),
    min_repeats=1,
    max_repeats=3,
    budget=0.05,
    hard_cap=0.5,
    min_sample=0.0005,
    ref_timeout=2.0,
    rtc_timeout=2.0,
    template_budget=30.0,
    abuse_size=2**20,
    abuse_small=2**17,
    abuse_segment=8192,
    abuse_char_budget=0.5,
    abuse_timeout=10.0,
    quick=True,
)

TARGETS: dict[str, tuple[str, float]] = {
    # metric key -> (comparison, target), from issue 4.
    "stream_speedup": (">=", 8.0),
    "stream_floor": ("<=", 2.5),
    "oneshot_short_speedup": (">=", 12.0),
    "oneshot_large_speedup": (">=", 5.0),
    "construct_speedup": (">=", 12.0),
    "linearity": ("<=", 1.2),
    # issue 5: cost per character must not grow with the length of the text.
    "abuse_linearity": ("<=", 1.2),
}

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather and a short forecast for a location.",
            "parameters": {
                "type": "object",
                "properties": {
                    "location": {"type": "string", "description": "City and country"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "days": {"type": "integer", "description": "Number of forecast days"},
                },
                "required": ["location"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "Get the current local time in a timezone.",
            "parameters": {
                "type": "object",
                "properties": {"timezone": {"type": "string"}},
                "required": ["timezone"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search_web",
            "description": "Search the web and return the top results.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "max_results": {"type": "integer"},
                },
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_alarm",
            "description": "Set an alarm.",
            "parameters": {
                "type": "object",
                "properties": {
                    "hour": {"type": "integer"},
                    "minute": {"type": "integer"},
                    "label": {"type": "string"},
                },
                "required": ["hour", "minute"],
            },
        },
    },
]

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_weather", {"location": "Paris, France", "unit": "celsius", "days": 3}),
    ("get_time", {"timezone": "Europe/Paris"}),
    ("search_web", {"query": "best bakeries near the Louvre", "max_results": 5}),
    ("set_alarm", {"hour": 7, "minute": 30, "label": "wake up"}),
]

SHORT_REASONING = (
    "The user asks about the weather in Paris. A general answer is enough here, so no tool is "
    "needed; keep it brief."
)
SHORT_CONTENT = "Paris is mild today, around 17 °C with a light breeze: no umbrella needed."

# --------------------------------------------------------------------------------------------
# Sample strings for regex delimiters
# --------------------------------------------------------------------------------------------

_MAX_CANDIDATES = 8
# Characters tried, in order, for a character class: readable ones first.
_CLASS_CHARS = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ \n-.:/,;!?'\"=<>[]{}()|#\t"
)


class _Unsupported(Exception):
    """A regex construct the sample generator does not handle (the workload is skipped)."""


def _category_has(char: str, category: Any) -> bool:
    name = str(category)
    space = char in " \t\n\r\f\v"
    word = char.isalnum() or char == "_"
    table = {
        "CATEGORY_DIGIT": char.isdigit(),
        "CATEGORY_NOT_DIGIT": not char.isdigit(),
        "CATEGORY_SPACE": space,
        "CATEGORY_NOT_SPACE": not space,
        "CATEGORY_WORD": word,
        "CATEGORY_NOT_WORD": not word,
        "CATEGORY_LINEBREAK": char == "\n",
        "CATEGORY_NOT_LINEBREAK": char != "\n",
    }
    if name not in table:
        raise _Unsupported(name)
    return table[name]


def _class_char(items: Sequence[tuple[Any, Any]]) -> str:
    """A readable character in the class ``[items]``."""
    negate = bool(items) and items[0][0] is _sre.NEGATE
    for char in _CLASS_CHARS:
        hit = False
        for op, av in items:
            if op is _sre.NEGATE:
                continue
            if op is _sre.LITERAL:
                hit = ord(char) == av
            elif op is _sre.RANGE:
                hit = av[0] <= ord(char) <= av[1]
            elif op is _sre.CATEGORY:
                hit = _category_has(char, av)
            else:
                raise _Unsupported(str(op))
            if hit:
                break
        if hit != negate:
            return char
    raise _Unsupported("empty character class")


class _SampleGenerator:
    """Short strings a parsed regex matches, most realistic first (a bounded list).

    Optional parts are included first (``(?:\\n\\n)?`` is usually how models write it), ``*``
    repeats nothing, ``+`` once, alternatives that write something come before empty ones, and a
    named group takes the preferred values given for its name before its generated text.
    """

    def __init__(self, names: dict[int, str], prefer: Callable[[str], list[str]]) -> None:
        self.names = names
        self.prefer = prefer
        self.needs_context = False

    def seq(self, items: Any) -> list[str]:
        out = [""]
        for op, av in items:
            alternatives = self.item(op, av)
            out = [a + b for a in out for b in alternatives][:_MAX_CANDIDATES]
        return out

    def item(self, op: Any, av: Any) -> list[str]:
        if op is _sre.LITERAL:
            return [chr(av)]
        if op is _sre.NOT_LITERAL:
            return ["a" if av != ord("a") else "b"]
        if op is _sre.ANY:
            return ["a"]
        if op is _sre.IN:
            return [_class_char(av)]
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
            low, high, sub = av
            inner = self.seq(sub)
            if low == 0:
                return inner + [""] if high == 1 else [""]
            return [text * low for text in inner]
        if op is _sre.SUBPATTERN:
            group, _add, _del, sub = av
            inner = self.seq(sub)
            name = self.names.get(group) if group is not None else None
            preferred = self.prefer(name) if name else []
            return (preferred + inner)[:_MAX_CANDIDATES]
        if op is _sre.ATOMIC_GROUP:
            return self.seq(av)
        if op is _sre.BRANCH:
            branches = [text for alternative in av[1] for text in self.seq(alternative)]
            ordered = [t for t in branches if t] + [t for t in branches if not t]
            return ordered[:_MAX_CANDIDATES]
        if op is _sre.AT:
            self.needs_context = True
            return [""]
        if op in (_sre.ASSERT, _sre.ASSERT_NOT):
            self.needs_context = True
            return [""]
        raise _Unsupported(str(op))


def pattern_samples(
    pattern: str, prefer: Callable[[str], list[str]] | None = None
) -> tuple[list[str], bool]:
    """Candidate strings for ``pattern`` and whether they still need checking in context.

    Candidates that ``regex.fullmatch`` accepts come back with ``False``. A pattern with
    look-arounds or anchors rarely fullmatches on its own: its candidates come back unchecked with
    ``True``, to be checked where they are placed. An empty list means no sample was found.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = _sre_parse.parse(pattern)
        names = {gid: name for name, gid in parsed.state.groupdict.items()}
        generator = _SampleGenerator(names, prefer or (lambda name: []))
        candidates = list(dict.fromkeys(generator.seq(list(parsed))))
    except Exception:
        # _Unsupported, or a `regex`-only construct (\p{..}, ...) the stdlib parser rejects.
        return [], False
    compiled = regex.compile(pattern, regex.DOTALL)
    matching = [c for c in candidates if compiled.fullmatch(c)]
    if matching:
        return matching, False
    return (candidates, True) if generator.needs_context else ([], False)


@dataclass
class _Delim:
    """One delimiter in a composed text: candidate strings and, for patterns, the regex."""

    candidates: list[str]
    pattern: Any | None = None
    """Set when there is a choice to check in place (see ``_Composer``)."""


def _delimiter(
    spec: dict[str, Any], literal_key: str, pattern_key: str, prefer: Callable[[str], list[str]]
) -> _Delim | str | None:
    """The delimiter of ``spec`` (a field, or the template for the anchor), an error message when
    no sample could be derived, or None when the field has no such delimiter."""
    if literal_key in spec:
        raw = spec[literal_key]
        literals = [raw] if isinstance(raw, str) else list(raw)
        return _Delim([literals[0]])
    if pattern_key in spec:
        # Candidates that need context are checked where they are placed, and any choice among
        # several candidates too: _Composer does both.
        candidates, _in_place = pattern_samples(spec[pattern_key], prefer)
        if not candidates:
            return f"no sample string derived for {pattern_key} {spec[pattern_key]!r}"
        return _Delim(candidates, regex.compile(spec[pattern_key], regex.DOTALL))
    return None


class _Composer:
    """Builds a text from plain parts and delimiters, choosing for each delimiter the first
    candidate that its pattern matches exactly where it stands (e.g. ``(?:^|<think>\\s*)`` at
    the start of a generation matches the empty string, not ``<think>``)."""

    def __init__(self) -> None:
        self.parts: list[str | _Delim] = []

    def add(self, *parts: str | _Delim | None) -> None:
        self.parts.extend(part for part in parts if part is not None and part != "")

    def build(self) -> str:
        pieces = [p if isinstance(p, str) else p.candidates[0] for p in self.parts]
        for index, part in enumerate(self.parts):
            if isinstance(part, str) or part.pattern is None or len(part.candidates) == 1:
                continue
            start = sum(len(p) for p in pieces[:index])
            for candidate in part.candidates:
                pieces[index] = candidate
                found = part.pattern.match("".join(pieces), start)
                if found is not None and found.end() == start + len(candidate):
                    break
            else:
                pieces[index] = part.candidates[0]
        return "".join(pieces)


# --------------------------------------------------------------------------------------------
# Workloads
# --------------------------------------------------------------------------------------------

_WORDS = (
    "the user wants a clear answer so I should check each step before writing it down "
    "first consider what the question really asks then compare the options and note which "
    "assumptions hold because a careful plan avoids mistakes later the data suggests a small "
    "change is enough but the edge cases matter too let me verify the numbers again and make "
    "sure the result stays consistent with what was said earlier café naïve déjà vu"
).split()


def prose(size: int, seed: int = 0) -> str:
    """Readable text of exactly ``size`` characters, deterministic for a seed.

    Sentences of plain words, with now and then a comparison ``x < 10`` (a lone ``<`` keeps
    tag-shaped delimiters' partial matching honest) and a few non-ASCII letters; no brackets,
    braces or parentheses, which delimiter patterns of real templates use.
    """
    rng = random.Random(seed)
    parts: list[str] = []
    length = 0
    while length < size:
        words = rng.choices(_WORDS, k=rng.randint(8, 18))
        sentence = " ".join(words).capitalize()
        if rng.random() < 0.15:
            sentence += f", since x < {rng.randint(2, 99)}"
        sentence += "." + ("\n\n" if rng.random() < 0.2 else " ")
        parts.append(sentence)
        length += len(sentence)
    text = "".join(parts)[:size]
    # No trailing whitespace: text fields are stripped, and the check compares them.
    return text[:-1] + "." if text[-1:].isspace() else text


@dataclass
class _FieldPlan:
    name: str
    spec: dict[str, Any]
    content: str
    open: _Delim | None
    close: _Delim | None
    problem: str | None = None


def _no_prefer(name: str) -> list[str]:
    return []


def _field_plan(name: str, spec: dict[str, Any]) -> _FieldPlan:
    problems: list[str] = []
    delims: list[_Delim | None] = []
    for literal_key, pattern_key in (("open", "open_pattern"), ("close", "close_pattern")):
        found = _delimiter(spec, literal_key, pattern_key, _no_prefer)
        if isinstance(found, str):
            problems.append(f"field {name!r}: {found}")
            found = None
        delims.append(found)
    return _FieldPlan(
        name=name,
        spec=spec,
        content=spec.get("content", "text"),
        open=delims[0],
        close=delims[1],
        problem="; ".join(problems) or None,
    )


def _placeholders(transform: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, tuple]]:
    """``(placeholder, path in the transform)`` for each ``"{x.y}"`` string of a transform."""
    if isinstance(transform, dict):
        for key, value in transform.items():
            yield from _placeholders(value, (*path, str(key)))
    elif isinstance(transform, list):
        for index, value in enumerate(transform):
            yield from _placeholders(value, (*path, str(index)))
    elif isinstance(transform, str):
        whole = regex.fullmatch(r"\{(\w+(?:\.\w+)*)\}", transform)
        if whole:
            yield whole.group(1), path


def _is_name_key(key: str) -> bool:
    return "name" in key.lower()


def _is_args_key(key: str) -> bool:
    return any(word in key.lower() for word in ("arg", "param", "input"))


def _set_path(target: dict[str, Any], keys: Sequence[str], value: Any) -> None:
    for key in keys[:-1]:
        target = target.setdefault(key, {})
    target[keys[-1]] = value


def _tool_value(spec: dict[str, Any], captures: set[str], name: str, args: dict) -> Any:
    """The parsed content a structured tool field needs so that its transform builds a call.

    Reads the transform: ``{content}`` under an ``arguments``-like key is the arguments object,
    ``{content}`` elsewhere a whole ``{"name", "arguments"}`` object, ``{content.x}`` and (with
    ``transform_each``) ``{x}`` name keys of the parsed object.
    """
    transform = spec.get("transform")
    each = spec.get("transform_each", False)
    if transform is None:
        return {"name": name, "arguments": args}
    item: dict[str, Any] = {}
    for placeholder, path in _placeholders(transform):
        root, *keys = placeholder.split(".")
        if root in captures:
            continue  # filled from the delimiter's named groups, not from the content
        if root == "content" and not each:
            if not keys:
                # The whole parsed content: the arguments where it lands on an arguments-like
                # key (`"arguments": "{content}"`), else a complete call object.
                if path and _is_args_key(path[-1]):
                    return args
                return {"name": name, "arguments": args}
            target = keys
        else:
            # With transform_each, the keys of each list item are the placeholders.
            target = [root, *keys]
        # A key that names the tool gets the name, any other the arguments.
        _set_path(item, target, name if _is_name_key(target[-1]) else args)
    return item


@dataclass
class Workload:
    name: str
    text: str
    description: str
    checks: list[tuple[str, str, Any]] = field(default_factory=list)
    """``(kind, field, expected)``: ("text", f, body) or ("count", f, n)."""


@dataclass
class TemplatePlan:
    """What the workloads of one template are made of."""

    anchor: str | None
    prompt: str
    reasoning: _FieldPlan | None
    content: _FieldPlan | None
    tools: _FieldPlan | None
    implicit: _FieldPlan | None
    notes: list[str]
    problems: list[str]


def plan_template(template: dict[str, Any]) -> TemplatePlan:
    fields = {name: _field_plan(name, spec) for name, spec in template["fields"].items()}
    notes: list[str] = []
    problems = [f.problem for f in fields.values() if f.problem]
    implicit = next(
        (f for f in fields.values() if "open" not in f.spec and "open_pattern" not in f.spec), None
    )
    texts = [f for f in fields.values() if f.content == "text"]
    reasoning = next(
        (f for f in texts if any(w in f.name.lower() for w in ("reason", "think"))), None
    )
    content = fields.get("content")
    if content is None or content.content != "text":
        content = implicit if implicit is not None and implicit.content == "text" else None
    structured = [f for f in fields.values() if f.content in ("json", "xml-inline", "kv-lines")]
    tools = next((f for f in structured if "tool" in f.name.lower()), None) or next(
        (f for f in structured if f.spec.get("repeats")), None
    )
    anchor_delim = _delimiter(template, "start_anchor", "start_anchor_pattern", _no_prefer)
    anchor: str | None = None
    if isinstance(anchor_delim, _Delim):
        anchor = anchor_delim.candidates[0]
    else:
        problems.append(f"start anchor: {anchor_delim}")
    end = _end_marker(content, implicit)
    prompt = _prompt(anchor or "", end)
    if reasoning is None:
        notes.append("no reasoning field: the reasoning-* workloads put their body in content")
    return TemplatePlan(anchor, prompt, reasoning, content, tools, implicit, notes, problems)


def _end_marker(content: _FieldPlan | None, implicit: _FieldPlan | None) -> str:
    for plan in (content, implicit):
        if plan is not None and plan.close is not None and plan.close.candidates[0]:
            return plan.close.candidates[0]
    return ""


def _prompt(anchor: str, end: str) -> str:
    """A multi-turn chat prompt (system prompt with tool schemas, three earlier exchanges) that
    ends with the template's start anchor, as the prompt of a generation does."""
    tools = "\n".join(json.dumps(tool) for tool in TOOLS)
    parts = [
        "<system>\nYou are a helpful assistant. Answer briefly and call tools when needed.\n\n"
        f"# Tools\n\nYou may call one or more functions. Available tools:\n{tools}\n</system>\n"
    ]
    questions = [
        "What's the weather like in Paris today?",
        "And what time is it there right now?",
        "Can you find a good bakery near the Louvre for tomorrow morning?",
    ]
    for turn, question in enumerate(questions):
        answer = prose(500, seed=100 + turn)
        parts.append(f"<user>\n{question}\n</user>\n{anchor}{answer}{end}\n")
    parts.append("<user>\nThanks. Plan my morning: weather, time, bakery and an alarm.\n</user>\n")
    parts.append(anchor)
    return "".join(parts)


def _region(plan: _FieldPlan, body: str, with_close: bool = True) -> list[str | _Delim | None]:
    return [plan.open, body, plan.close if with_close else None]


def _tool_body(plan: _FieldPlan, captures: set[str], name: str, args: dict) -> str | None:
    """The text inside one tool-call region, or None when it cannot be derived."""
    content_args = plan.spec.get("content_args", {}) or {}
    if plan.content == "json":
        value = _tool_value(plan.spec, captures, name, args)
        return json.dumps(value, ensure_ascii=False)
    if plan.content == "xml-inline":
        tag_pattern = content_args.get("tag_pattern")
        if not isinstance(tag_pattern, str):
            return None
        tags = []
        for key, argument in args.items():
            value = str(argument)
            preferred = {
                "key": [key],
                "value": [value, f"'{value}'", json.dumps(value), f"\n{value}\n"],
            }
            candidates, in_place = pattern_samples(tag_pattern, lambda g, p=preferred: p.get(g, []))
            if not candidates or in_place:
                return None
            tags.append(candidates[0])
        return "\n".join(tags)
    if plan.content == "kv-lines":
        line_sep = content_args.get("line_sep", "\n")
        kv_sep = content_args.get("kv_sep", ":")
        return line_sep.join(f"{k}{kv_sep} {v}" for k, v in args.items())
    return json.dumps(args)


def _tool_calls(plan: _FieldPlan, count: int) -> tuple[list[str | _Delim | None], str | None]:
    """The parts of ``count`` tool calls, or a reason why they cannot be derived."""
    calls = (CALLS * count)[:count]
    names: set[str] = set()
    for key in ("open_pattern", "close_pattern"):
        if key in plan.spec:
            try:
                names |= set(regex.compile(plan.spec[key]).groupindex)
            except regex.error:
                pass
    repeats = plan.spec.get("repeats", False)
    each = plan.spec.get("transform_each", False)
    if not repeats:
        if plan.content != "json":
            return [], f"field {plan.name!r} does not repeat and is not JSON"
        # One region holding the list of calls (e.g. Cohere's action list with transform_each).
        values = [_tool_value(plan.spec, names, n, a) for n, a in calls]
        if not each and plan.spec.get("transform") is not None:
            return [], f"field {plan.name!r}: one region cannot hold {count} calls"
        return [plan.open, json.dumps(values, ensure_ascii=False), plan.close], None
    parts: list[str | _Delim | None] = []
    for index, (name, args) in enumerate(calls):

        def prefer(group: str, tool: str = name) -> list[str]:
            return [tool] if _is_name_key(group) else []

        opened = _delimiter(plan.spec, "open", "open_pattern", prefer)
        closed = _delimiter(plan.spec, "close", "close_pattern", prefer)
        if isinstance(opened, str) or isinstance(closed, str):
            return [], str(opened if isinstance(opened, str) else closed)
        body = _tool_body(plan, names, name, args)
        if body is None:
            return [], f"field {plan.name!r}: no sample for its {plan.content} content"
        if each and plan.content == "json":
            body = json.dumps([json.loads(body)], ensure_ascii=False)
        parts += [opened, body, closed, "\n" if index < count - 1 else None]
    return parts, None


def build_workloads(
    plan: TemplatePlan, config: BenchConfig
) -> tuple[list[Workload], list[dict[str, str]]]:
    """The workloads of a template and the ones skipped, each with its reason."""
    workloads: list[Workload] = []
    skipped: list[dict[str, str]] = []
    if plan.problems and plan.anchor is None:
        skipped.append({"workload": "*", "reason": "; ".join(plan.problems)})
        return workloads, skipped
    end = None
    if plan.implicit is not None and plan.implicit.close is not None:
        end = plan.implicit.close

    def text_parts(reasoning: str, content: str) -> tuple[list, list, str | None]:
        """Parts and checks of reasoning followed by content, or the reason it is impossible."""
        parts: list[str | _Delim | None] = []
        checks: list[tuple[str, str, Any]] = []
        if plan.reasoning is not None:
            if plan.reasoning.problem:
                return [], [], plan.reasoning.problem
            parts += _region(plan.reasoning, reasoning)
            parts.append("\n\n")
            checks.append(("text", plan.reasoning.name, reasoning))
        elif plan.content is not None:
            content = (reasoning + "\n\n" + content).strip() if reasoning else content
        if plan.content is None:
            return [], [], "no text content field"
        if plan.content.problem:
            return [], [], plan.content.problem
        # The implicit field's close (end of turn) comes last, after any tool calls.
        parts += _region(plan.content, content, with_close=plan.content is not plan.implicit)
        checks.append(("text", plan.content.name, content))
        return parts, checks, None

    def add(name: str, description: str, parts: list, checks: list) -> None:
        composer = _Composer()
        composer.add(*parts, end)
        workloads.append(Workload(name, composer.build(), description, checks))

    parts, checks, problem = text_parts(SHORT_REASONING, SHORT_CONTENT)
    if problem:
        skipped.append({"workload": "short", "reason": problem})
    else:
        add("short", "reasoning + content", parts, checks)

    body_field = "reasoning" if plan.reasoning is not None else "content"
    for size in config.sizes:
        name = f"reasoning-{_size_label(size)}"
        filler = max(size - len(SHORT_CONTENT) - 40, 16)
        parts, checks, problem = text_parts(prose(filler, seed=size), SHORT_CONTENT)
        if problem:
            skipped.append({"workload": name, "reason": problem})
        else:
            add(name, f"{body_field}-heavy, {_size_label(size)}", parts, checks)

    name = f"tools-{config.tool_calls}"
    if plan.tools is None:
        skipped.append({"workload": name, "reason": "the template has no tool-call field"})
    elif plan.tools.problem:
        skipped.append({"workload": name, "reason": plan.tools.problem})
    else:
        parts, checks, problem = text_parts(SHORT_REASONING, "Let me look that up.")
        # Only the calls are checked: the newlines between calls fall into the implicit field
        # and, as in the reference, leave its last value empty.
        checks = [c for c in checks if plan.content is None or c[1] != plan.content.name]
        calls, call_problem = _tool_calls(plan.tools, config.tool_calls)
        if problem or call_problem:
            skipped.append({"workload": name, "reason": str(problem or call_problem)})
        else:
            checks.append(("count", plan.tools.name, config.tool_calls))
            add(name, f"{config.tool_calls} parallel tool calls", parts + ["\n"] + calls, checks)
    if config.workloads:
        workloads = [w for w in workloads if w.name in config.workloads]
    return workloads, skipped


def check_message(message: Any, checks: list[tuple[str, str, Any]]) -> str | None:
    """What differs between a parsed message and a workload's intent, or None."""
    if not isinstance(message, dict):
        return f"parsed to {type(message).__name__}"
    for kind, name, expected in checks:
        value = message.get(name)
        if kind == "text":
            if not isinstance(value, str) or value.strip() != expected.strip():
                return f"field {name!r} came back as {_short(value)}"
        elif kind == "count":
            if not isinstance(value, list) or len(value) != expected:
                return f"field {name!r}: expected {expected} calls, got {_short(value)}"
    return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _size_label(size: int) -> str:
    if size >= 2**20 and size % 2**20 == 0:
        return f"{size // 2**20}m"
    if size >= 1024 and size % 1024 == 0:
        return f"{size // 1024}k"
    return str(size)


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


class _Timeout(BaseException):
    """Raised by the timer; a BaseException so that no ``except Exception`` in a parser eats it."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise ``_Timeout`` in the block after ``seconds`` of wall time (main thread, POSIX only;
    elsewhere the block runs uncapped)."""
    if (
        not seconds
        or not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


Prepare = Callable[[int], Callable[[], object]]
"""``prepare(n)`` does the untimed setup of n ops and returns the closure that runs them."""


@dataclass
class Measured:
    status: str = "ok"
    samples_ns: list[float] = field(default_factory=list)
    """Nanoseconds per op, one value per sample."""
    number: int = 1

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.samples_ns)

    def value(self, statistic: str) -> float | None:
        """Nanoseconds per op by ``statistic`` ("min" or "median"), None unless ok."""
        if not self.ok:
            return None
        return min(self.samples_ns) if statistic == "min" else statistics.median(self.samples_ns)

    def summary(self, units: int, nbytes: int, statistic: str) -> dict[str, Any]:
        """``units`` divides an op (chunks per stream); ``nbytes`` is the text an op handles.

        ``us`` (per unit), ``op_us`` and ``mb_s`` follow ``statistic``."""
        if not self.ok:
            return {"status": self.status}
        best = min(self.samples_ns) if statistic == "min" else statistics.median(self.samples_ns)
        return {
            "status": "ok",
            "us": best / units / 1e3,
            "min_us": min(self.samples_ns) / units / 1e3,
            "median_us": statistics.median(self.samples_ns) / units / 1e3,
            "op_us": best / 1e3,
            "mb_s": nbytes / best * 1e3 if nbytes else None,
            "samples": len(self.samples_ns),
            "number": self.number,
        }


CLOCKS: dict[str, Callable[[], int]] = {"wall": time.perf_counter_ns, "cpu": time.thread_time_ns}


def _run_sample(
    prepare: Prepare, number: int, cap: float | None, clock: Callable[[], int]
) -> float:
    run = prepare(number)
    enabled = gc.isenabled()
    gc.disable()
    try:
        with time_limit(cap):
            start = clock()
            run()
            stop = clock()
    finally:
        if enabled:
            gc.enable()
    return (stop - start) / number


def _failure(exc: BaseException) -> str:
    if isinstance(exc, _Timeout):
        return "timeout"
    text = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
    return "error: " + (text if len(text) <= 100 else text[:97] + "...")


def measure(
    ops: dict[str, tuple[Prepare, float | None]], config: BenchConfig, deadline: float
) -> dict[str, Measured]:
    """Time every op, interleaved round by round, until the repeat rules or the budget stop it.

    The first (untimed) call of each op warms it up and calibrates how many ops one sample runs;
    an op that already took more than half the hard cap keeps that call as its only sample (a
    quadratic reference at 128 KB would otherwise eat the budget of the whole run).
    """
    results = {name: Measured() for name in ops}
    clock = CLOCKS[config.clock]
    active: list[str] = []
    for name, (prepare, cap) in ops.items():
        if time.monotonic() > deadline:
            results[name].status = "skipped: template time budget exhausted"
            continue
        try:
            first = _run_sample(prepare, 1, cap, clock)
        except (Exception, _Timeout) as exc:  # a timeout and any parser error are results
            results[name].status = _failure(exc)
            continue
        if first >= config.hard_cap * 1e9 / 2:
            results[name].samples_ns.append(first)
            continue
        results[name].number = max(
            1, min(10**6, math.ceil(config.min_sample * 1e9 / max(first, 1)))
        )
        active.append(name)
    start = time.monotonic()
    rounds = 0
    while active:
        for name in list(active):
            prepare, cap = ops[name]
            try:
                results[name].samples_ns.append(
                    _run_sample(prepare, results[name].number, cap, clock)
                )
            except (Exception, _Timeout) as exc:  # as above
                results[name].status = _failure(exc)
                active.remove(name)
        rounds += 1
        now = time.monotonic()
        elapsed = now - start
        if (
            rounds >= config.max_repeats
            or (rounds >= config.min_repeats and elapsed >= config.budget)
            or elapsed >= config.hard_cap
            or now > deadline
        ):
            break
    return results


def _capped_call(fn: Callable[[], Any], cap: float | None) -> tuple[Any, str | None]:
    try:
        with time_limit(cap):
            return fn(), None
    except (Exception, _Timeout) as exc:  # a timeout and any parser error are results
        return None, _failure(exc)


class FloorParser:
    """The cheapest ``feed()`` a streaming parser can have: one event dict in a new list."""

    __slots__ = ()

    def feed(self, text: str) -> list[dict[str, Any]]:
        return [{"type": "region_chunk", "field": "content", "text": text, "dirty": False}]


# --------------------------------------------------------------------------------------------
# The implementations under test
# --------------------------------------------------------------------------------------------


@dataclass
class Reference:
    """transformers' interpreter, when installed."""

    version: str
    parse_response: Callable[..., Any]
    parser: Callable[..., Any]
    load_template: Callable[[Any], Any]


def load_reference() -> Reference | None:
    try:
        import transformers
        from transformers.utils.chat_parsing import ResponseParser, parse_response
        from transformers.utils.chat_parsing.response_templates import load_response_template
    except Exception:  # absent or broken: benchmark rtc alone
        return None
    return Reference(
        version=str(getattr(transformers, "__version__", "?")),
        parse_response=parse_response,
        parser=ResponseParser,
        load_template=load_response_template,
    )


def _oneshot(fn: Callable[[], Any]) -> Prepare:
    def prepare(number: int) -> Callable[[], object]:
        def run() -> None:
            for _ in range(number):
                fn()

        return run

    return prepare


def _stream(make: Callable[[], Any], chunks: list[str], finalize: bool = True) -> Prepare:
    """Feed ``chunks`` to ``number`` parsers built beforehand (construction is not timed)."""

    def prepare(number: int) -> Callable[[], object]:
        parsers = [make() for _ in range(number)]

        def run() -> None:
            for parser in parsers:
                feed = parser.feed
                for chunk in chunks:
                    feed(chunk)
                if finalize:
                    parser.finalize()

        return run

    return prepare


def _chunked(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator


# --------------------------------------------------------------------------------------------
# One template
# --------------------------------------------------------------------------------------------

Progress = Callable[[str], None]


def bench_template(
    name: str,
    template: dict[str, Any],
    config: BenchConfig = FULL,
    *,
    reference: Reference | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Benchmark one template; a JSON-compatible record (see ``format_report``)."""
    say = progress or (lambda message: None)
    deadline = time.monotonic() + config.template_budget
    record: dict[str, Any] = {"name": name, "notes": [], "skipped": [], "workloads": []}
    try:
        module = load(template)
    except Exception as exc:  # an invalid template is a result in a catalogue
        record["error"] = _failure(exc)
        return record
    loaded = None
    if reference is not None:
        loaded, problem = _capped_call(lambda: reference.load_template(template), 10.0)
        if problem:
            record["notes"].append(f"reference cannot load the template ({problem})")
            reference = None

    plan = plan_template(template)
    record["notes"] += plan.notes
    workloads, skipped = build_workloads(plan, config)
    record["skipped"] += skipped
    prefix = plan.anchor or ""
    tools = TOOLS

    def rtc_parse(text: str) -> Callable[[], Any]:
        return lambda: module.parse_response(text, prefix=prefix, tools=tools)

    def ref_parse(text: str, preloaded: bool = True) -> Callable[[], Any]:
        assert reference is not None
        # From the dict is how the reference's parse_response is documented to be called (it
        # then validates and compiles the template on every call); preloaded is its best case.
        spec = loaded if preloaded else template
        return lambda: reference.parse_response(text, spec, prefix=prefix, tools=tools)

    def rtc_make() -> Any:
        return module.ResponseParser(prefix, tools=tools)

    def ref_make() -> Any:
        assert reference is not None
        return reference.parser(loaded, prefix, tools=tools)

    # Construction first: it is cheap and must not be lost to a template whose streams time out.
    say(f"{name}: construction")
    record["construction"] = _construction(
        module, reference, template, loaded, plan.prompt, config, deadline
    )
    # Smallest texts first, and an implementation that timed out on a text is not run again on
    # longer ones (same mode): a template on which a parser is quadratic (or worse) costs a few
    # timeouts, not hours.
    struck: dict[tuple[str, str], int] = {}

    def gated(
        ops: dict[str, tuple[Prepare, float | None]], mode: str, chars: int
    ) -> dict[str, Measured]:
        runnable = {k: v for k, v in ops.items() if chars <= struck.get((k, mode), chars)}
        timed = measure(runnable, config, deadline)
        for key in ops:
            if key not in runnable:
                timed[key] = Measured(status="skipped: timed out on a shorter text")
            elif timed[key].status == "timeout":
                struck[(key, mode)] = min(struck.get((key, mode), chars), chars)
        return timed

    for workload in sorted(workloads, key=lambda w: len(w.text)):
        say(f"{name}: {workload.name}")
        text = workload.text
        nbytes = len(text.encode("utf-8"))
        entry: dict[str, Any] = {
            "name": workload.name,
            "description": workload.description,
            "chars": len(text),
            "bytes": nbytes,
            "runs": [],
        }
        # Check the text parses as intended: by the reference when there is one (it is the
        # judge), else by rtc; and note when the two disagree.
        rtc_message, rtc_problem = _capped_call(rtc_parse(text), config.rtc_timeout)
        judge, judge_problem = rtc_message, rtc_problem
        if reference is not None:
            ref_message, ref_problem = _capped_call(ref_parse(text), config.ref_timeout)
            if ref_problem is None:
                judge, judge_problem = ref_message, None
                if rtc_problem is None and json.dumps(rtc_message) != json.dumps(ref_message):
                    entry["mismatch"] = "rtc and the reference return different messages"
                elif rtc_problem is not None:
                    entry["mismatch"] = f"rtc failed: {rtc_problem}"
        intent = judge_problem or check_message(judge, workload.checks)
        if intent is not None:
            record["skipped"].append(
                {"workload": workload.name, "reason": f"derived text does not parse: {intent}"}
            )
            continue
        record["workloads"].append(entry)

        ops: dict[str, tuple[Prepare, float | None]] = {
            "rtc": (_oneshot(rtc_parse(text)), config.rtc_timeout)
        }
        if reference is not None:
            ops["reference"] = (_oneshot(ref_parse(text, False)), config.ref_timeout)
            ops["reference_loaded"] = (_oneshot(ref_parse(text)), config.ref_timeout)
        timed = gated(ops, "one-shot", len(text))
        entry["runs"].append(_run_record("one-shot", None, 1, nbytes, timed, config))
        for size in config.chunk_sizes:
            chunks = _chunked(text, size)
            ops = {
                "rtc": (_stream(rtc_make, chunks), config.rtc_timeout),
                "floor": (_stream(FloorParser, chunks, finalize=False), None),
            }
            if reference is not None:
                ops["reference"] = (_stream(ref_make, chunks), config.ref_timeout)
            timed = gated(ops, f"stream/{size}", len(text))
            entry["runs"].append(_run_record("stream", size, len(chunks), nbytes, timed, config))
    # The report lists workloads in their usual order, whatever order they ran in.
    order = {w.name: i for i, w in enumerate(workloads)}
    record["workloads"].sort(key=lambda entry: order[entry["name"]])

    record["linearity"] = _linearity(record, config)
    # The headline linearity compares two measurements; taken from the table they were made
    # minutes apart, and a change of load on the machine in between shows up as (non-)linearity.
    # So the pair is measured again, interleaved.
    measured = {w["name"] for w in record["workloads"]}
    pair = [w for w in workloads if w.name in _linearity_names(config) and w.name in measured]
    chunk = config.headline_chunk
    if len(pair) == 2 and chunk in config.chunk_sizes:
        say(f"{name}: linearity")
        small, large = sorted(pair, key=lambda w: len(w.text))
        makers = {"rtc": (rtc_make, config.rtc_timeout)}
        if reference is not None:
            makers["reference"] = (ref_make, config.ref_timeout)
        ops: dict[str, tuple[Prepare, float | None]] = {}
        counts: dict[str, int] = {}
        for impl, (make, cap) in makers.items():
            if len(large.text) > struck.get((impl, f"stream/{chunk}"), len(large.text)):
                continue  # it timed out on a shorter text already
            for label, workload in (("small", small), ("large", large)):
                chunks = _chunked(workload.text, chunk)
                ops[f"{impl}@{label}"] = (_stream(make, chunks), cap)
                counts[f"{impl}@{label}"] = len(chunks)
        timed = measure(ops, config, deadline)
        cost = {key: _ratio(timed[key].value(config.statistic), counts[key]) for key in ops}
        record["linearity"]["interleaved"] = {
            "chunk": chunk,
            **{
                impl: _ratio(cost.get(f"{impl}@large"), cost.get(f"{impl}@small"))
                for impl in ("rtc", "reference")
            },
        }
    if config.abuse:
        say(f"{name}: abuse")
        record["abuse"] = _abuse(plan, module, reference, loaded, config, say, name)
    if time.monotonic() > deadline:
        record["notes"].append(
            f"template time budget ({config.template_budget:g} s) exhausted: some runs skipped"
        )
    return record


def _run_record(
    mode: str,
    chunk: int | None,
    units: int,
    nbytes: int,
    timed: dict[str, Measured],
    config: BenchConfig,
) -> dict[str, Any]:
    """One row: each side's times, and the ratios (one-shot: ``reference`` is from the dict,
    ``reference_loaded`` from a preloaded template; streamed: the parser is built untimed, so
    ``reference`` is simply the reference)."""
    run: dict[str, Any] = {"mode": mode, "chunk": chunk, "chunks": units}
    values: dict[str, float | None] = {}
    for key in ("rtc", "reference", "reference_loaded", "floor"):
        if key in timed:
            run[key] = timed[key].summary(units, nbytes, config.statistic)
        values[key] = timed[key].value(config.statistic) if key in timed else None
    run["speedup"] = _ratio(values["reference"], values["rtc"])
    run["speedup_loaded"] = _ratio(values["reference_loaded"], values["rtc"])
    run["floor_ratio"] = _ratio(values["rtc"], values["floor"])
    return run


def _construction(
    module: ModuleType,
    reference: Reference | None,
    template: dict[str, Any],
    loaded: Any,
    prompt: str,
    config: BenchConfig,
    deadline: float,
) -> dict[str, Any]:
    def once(make: Callable[[], Any]) -> Prepare:
        return _oneshot(make)

    ops: dict[str, tuple[Prepare, float | None]] = {
        "rtc": (once(lambda: module.ResponseParser(prompt, tools=TOOLS)), config.rtc_timeout)
    }
    if reference is not None:
        ops["reference_dict"] = (
            once(lambda: reference.parser(template, prompt, tools=TOOLS)),
            config.ref_timeout,
        )
        ops["reference_loaded"] = (
            once(lambda: reference.parser(loaded, prompt, tools=TOOLS)),
            config.ref_timeout,
        )
    timed = measure(ops, config, deadline)
    nbytes = len(prompt.encode("utf-8"))
    out: dict[str, Any] = {"prompt_chars": len(prompt)}
    for key, measured in timed.items():
        out[key] = measured.summary(1, nbytes, config.statistic)
    values = {key: measured.value(config.statistic) for key, measured in timed.items()}
    out["speedup_dict"] = _ratio(values.get("reference_dict"), values["rtc"])
    out["speedup_loaded"] = _ratio(values.get("reference_loaded"), values["rtc"])
    return out


def _linearity_names(config: BenchConfig) -> tuple[str, str]:
    small, large = config.linearity_sizes
    return f"reasoning-{_size_label(small)}", f"reasoning-{_size_label(large)}"


def _linearity(record: dict[str, Any], config: BenchConfig) -> dict[str, Any]:
    """Per-chunk cost at the largest size over the smallest, for each chunk size."""
    small, large = config.linearity_sizes
    names = _linearity_names(config)
    runs = {w["name"]: w["runs"] for w in record["workloads"] if w["name"] in names}
    out: dict[str, Any] = {"sizes": [small, large], "by_chunk": {}}
    if len(runs) < 2 or small == large:
        return out
    for chunk in config.chunk_sizes:
        pair = [
            next((r for r in runs[n] if r["mode"] == "stream" and r["chunk"] == chunk), None)
            for n in names
        ]
        if pair[0] is None or pair[1] is None:
            continue
        entry: dict[str, float | None] = {}
        for key in ("rtc", "reference"):
            costs = [run.get(key, {}).get("us") for run in pair]
            entry[key] = _ratio(costs[1], costs[0])
        out["by_chunk"][str(chunk)] = entry
    return out


# --------------------------------------------------------------------------------------------
# Abuse (issue 5): very long generations and floods of partial delimiters
# --------------------------------------------------------------------------------------------


def _abuse(
    plan: TemplatePlan,
    module: ModuleType,
    reference: Reference | None,
    loaded: Any,
    config: BenchConfig,
    say: Progress,
    name: str,
) -> dict[str, Any]:
    """Issue 5's workloads; the garbage collector stays on here, as in a long-running server
    (a parser whose live objects grow with the text would pay for it in collections)."""
    prefix = plan.anchor or ""
    region = plan.reasoning or plan.content
    if region is None or region.problem or plan.anchor is None:
        return {"skipped": "no text field with derivable delimiters"}
    makers: dict[str, Callable[[], Any]] = {
        "rtc": lambda: module.ResponseParser(prefix, tools=TOOLS)
    }
    if reference is not None:
        makers["reference"] = lambda: reference.parser(loaded, prefix, tools=TOOLS)
    cap = config.abuse_timeout
    clock = CLOCKS[config.clock]

    def text_in_region(body: str) -> str:
        # The region is left open: finalize() closes it, and is timed on its own, so that
        # building the value of an 8 MB region is not counted as a cost of the last chunks.
        composer = _Composer()
        composer.add(*_region(region, body, with_close=False))
        return composer.build()

    # A long generation: prose repeated (generating 8 MB of fresh prose would dominate the run).
    block = prose(65536, seed=7)
    body = (block * (config.abuse_size // len(block) + 1))[: config.abuse_size]
    big = text_in_region(body)
    out: dict[str, Any] = {
        "region": region.name,
        "body_size": config.abuse_size,
        "size": len(big),
        "chunk": config.abuse_chunk,
        "segment": config.abuse_segment,
    }

    say(f"{name}: abuse {_size_label(config.abuse_size)} in {config.abuse_chunk}-char chunks")
    chunks = _chunked(big, config.abuse_chunk)
    stream: dict[str, Any] = {}
    for key, make in makers.items():
        result, problem = _capped_call(lambda m=make: _segmented_feed(m, chunks, 8, clock), cap)
        if problem:
            stream[key] = {"status": problem}
            continue
        first, times, sizes, final = result
        total = first + sum(times)
        stream[key] = {
            "status": "ok",
            "us_per_chunk": total / len(chunks) / 1e3,
            "mb_s": len(big.encode("utf-8")) / total * 1e3,
            "first_chunk_us": first / 1e3,
            "finalize_us": final / 1e3,
            "last_over_first": _ratio(times[-1] / sizes[-1], times[0] / sizes[0]),
        }
    out["stream"] = stream

    say(f"{name}: abuse 1-char chunks (first and last {_size_label(config.abuse_segment)})")
    chars: dict[str, Any] = {}
    start_last = max(0, len(big) - config.abuse_segment)
    for key, make in makers.items():
        entry: dict[str, Any] = {}
        for label, start in (("first", 0), ("last", start_last)):
            result, problem = _capped_call(
                lambda m=make, s=start: _char_feed(
                    m,
                    big,
                    s,
                    config.abuse_segment,
                    config.abuse_chunk,
                    config.abuse_char_budget,
                    clock,
                ),
                cap + config.abuse_char_budget,
            )
            if problem:
                entry[label] = {"status": problem}
                continue
            per_char, fed = result
            entry[label] = {"status": "ok", "ns_per_char": per_char, "chars": fed}
        ok = all(entry.get(k, {}).get("status") == "ok" for k in ("first", "last"))
        entry["last_over_first"] = (
            _ratio(entry["last"]["ns_per_char"], entry["first"]["ns_per_char"]) if ok else None
        )
        chars[key] = entry
    out["chars"] = chars

    # A flood of partial delimiters: the first character of the delimiter that ends the region
    # (`<` for tag-shaped templates), repeated; each one could start a delimiter.
    closer = region.close.candidates[0] if region.close is not None else ""
    flood_char = (closer or "<")[0]
    out["flood_char"] = flood_char
    flood: dict[str, Any] = {}
    for key, make in makers.items():
        entry = {}
        for label, size in (("small", config.abuse_small), ("big", config.abuse_size)):
            say(f"{name}: abuse {_size_label(size)} of {flood_char!r} ({key})")
            pieces = _chunked(text_in_region(flood_char * size), config.abuse_chunk)
            result, problem = _capped_call(
                lambda m=make, p=pieces: _segmented_feed(m, p, 1, clock), cap
            )
            if problem:
                entry[label] = {"status": problem}
                continue
            first, times, sizes, final = result
            entry[label] = {
                "status": "ok",
                "ns_per_char": times[0] / max(sizes[0], 1),
                "first_chunk_us": first / 1e3,
                "finalize_us": final / 1e3,
            }
        ok = all(entry[k].get("status") == "ok" for k in ("small", "big"))
        entry["big_over_small"] = (
            _ratio(entry["big"]["ns_per_char"], entry["small"]["ns_per_char"]) if ok else None
        )
        flood[key] = entry
    out["flood"] = flood
    out["flood_sizes"] = [config.abuse_small, config.abuse_size]
    return out


def _segmented_feed(
    make: Callable[[], Any], chunks: list[str], parts: int, clock: Callable[[], int]
) -> tuple[float, list[float], list[int], float]:
    """Feed ``chunks`` into one parser: the first chunk's nanoseconds, then ``parts`` equal
    segments of the rest (nanoseconds, characters), then finalize's nanoseconds.

    The first chunk is timed apart: a one-time cost there (a first scan, a cache) is not a
    per-character cost, and would otherwise make the first segment look slower than the last.
    """
    parser = make()
    feed = parser.feed
    start = clock()
    feed(chunks[0])
    first = clock() - start
    rest = chunks[1:]
    size = max(1, -(-len(rest) // parts))
    times: list[float] = []
    sizes: list[int] = []
    for index in range(0, len(rest), size):
        segment = rest[index : index + size]
        start = clock()
        for chunk in segment:
            feed(chunk)
        times.append(clock() - start)
        sizes.append(sum(len(chunk) for chunk in segment))
    if not times:
        times, sizes = [0.0], [0]
    start = clock()
    parser.finalize()
    return first, times, sizes, clock() - start


def _char_feed(
    make: Callable[[], Any],
    text: str,
    start: int,
    length: int,
    fast: int,
    budget: float,
    clock: Callable[[], int],
) -> tuple[float, int]:
    """Nanoseconds per character of feeding ``text[start:start+length]`` one character at a
    time, after feeding everything before ``start`` in ``fast``-character chunks (untimed); stops
    early once ``budget`` seconds of feeding have been timed."""
    parser = make()
    feed = parser.feed
    for i in range(0, start, fast):
        feed(text[i : min(i + fast, start)])
    segment = text[start : start + length]
    fed = 0
    elapsed = 0
    while fed < len(segment) and elapsed < budget * 1e9:
        block = segment[fed : fed + 256]
        begin = clock()
        for char in block:
            feed(char)
        elapsed += clock() - begin
        fed += len(block)
    return elapsed / max(fed, 1), fed


# --------------------------------------------------------------------------------------------
# Several templates, the summary
# --------------------------------------------------------------------------------------------


def catalogue_sources() -> list[Path]:
    """The catalogue's templates: ``generated/*.json`` of the installed package if there are
    any, else the test catalogue beside the package (an editable install)."""
    generated = resources.files("rtc.generated")
    found = sorted(
        Path(str(entry))
        for entry in generated.iterdir()
        if entry.name.endswith(".json") and entry.is_file()
    )
    if found:
        return found
    import rtc.compiler

    root = Path(rtc.compiler.__file__).resolve().parent.parent
    return sorted((root / "tests" / "data" / "templates").glob("*.json"))


def run_benchmark(
    templates: Sequence[tuple[str, dict[str, Any]]],
    config: BenchConfig = FULL,
    *,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Benchmark ``(name, template)`` pairs; the whole JSON-compatible report with its summary."""
    reference = load_reference() if config.reference else None
    say = progress or (lambda message: None)
    records = []
    for index, (name, template) in enumerate(templates, 1):
        prefix = f"[{index}/{len(templates)}] "
        records.append(
            bench_template(
                name,
                template,
                config,
                reference=reference,
                progress=lambda message, p=prefix: say(p + message),
            )
        )
    return {
        "rtc_version": __version__,
        "reference_version": reference.version if reference else None,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "config": asdict(config),
        "templates": records,
        "summary": summarize(records, config),
    }


def _find_run(record: dict[str, Any], workload: str, mode: str, chunk: int | None) -> dict | None:
    for entry in record.get("workloads", []):
        if entry["name"] == workload:
            for run in entry["runs"]:
                if run["mode"] == mode and run["chunk"] == chunk:
                    return run
    return None


def template_metrics(record: dict[str, Any], config: BenchConfig) -> dict[str, float | None]:
    """The headline numbers of one template (keys of TARGETS)."""
    headline = f"reasoning-{_size_label(config.headline_size)}"
    large = f"reasoning-{_size_label(max(config.sizes))}"
    stream = _find_run(record, headline, "stream", config.headline_chunk) or {}
    short = _find_run(record, "short", "one-shot", None) or {}
    big = _find_run(record, large, "one-shot", None) or {}
    linearity = record.get("linearity", {})
    linear = linearity.get("interleaved") or linearity.get("by_chunk", {}).get(
        str(config.headline_chunk), {}
    )
    abuse = record.get("abuse", {})
    abuse_ratios = [
        abuse.get("stream", {}).get("rtc", {}).get("last_over_first"),
        abuse.get("chars", {}).get("rtc", {}).get("last_over_first"),
        abuse.get("flood", {}).get("rtc", {}).get("big_over_small"),
    ]
    known = [r for r in abuse_ratios if r is not None]
    return {
        "stream_speedup": stream.get("speedup"),
        "stream_floor": stream.get("floor_ratio"),
        "oneshot_short_speedup": short.get("speedup"),
        "oneshot_short_speedup_loaded": short.get("speedup_loaded"),
        "oneshot_large_speedup": big.get("speedup"),
        "construct_speedup": record.get("construction", {}).get("speedup_dict"),
        "linearity": linear.get("rtc"),
        "linearity_reference": linear.get("reference"),
        "abuse_linearity": max(known) if known else None,
    }


def template_failures(record: dict[str, Any], config: BenchConfig) -> dict[str, str]:
    """Headline metrics of one template that have no value because rtc itself did not finish
    (timeout, error): such a template is furthest from its target, not merely unmeasured."""
    headline = f"reasoning-{_size_label(config.headline_size)}"
    small, large = (f"reasoning-{_size_label(size)}" for size in config.linearity_sizes)
    runs = {
        "stream_speedup": [_find_run(record, headline, "stream", config.headline_chunk)],
        "oneshot_short_speedup": [_find_run(record, "short", "one-shot", None)],
        "oneshot_large_speedup": [_find_run(record, large, "one-shot", None)],
        "construct_speedup": [record.get("construction")],
        "linearity": [
            _find_run(record, name, "stream", config.headline_chunk) for name in (small, large)
        ],
    }
    runs["stream_floor"] = runs["stream_speedup"]
    abuse = record.get("abuse", {})
    runs["abuse_linearity"] = [
        {"rtc": abuse.get("stream", {}).get("rtc", {})},
        *({"rtc": part} for part in abuse.get("chars", {}).get("rtc", {}).values()),
        *({"rtc": part} for part in abuse.get("flood", {}).get("rtc", {}).values()),
    ]
    failed = {}
    for key, found in runs.items():
        for run in found:
            side = (run or {}).get("rtc", {})
            status = side.get("status", "ok") if isinstance(side, dict) else "ok"
            if status != "ok":
                failed[key] = "timeout" if "timed out" in status else status.split(":")[0]
    return failed


def _labels(config: BenchConfig) -> dict[str, str]:
    small, large = config.linearity_sizes
    head = _size_label(config.headline_size)
    large_label = _size_label(max(config.sizes))
    return {
        "stream_speedup": f"streaming per chunk ({config.headline_chunk}-char, {head}) speedup",
        "stream_floor": f"streaming per chunk ({config.headline_chunk}-char, {head}) / floor",
        "oneshot_short_speedup": "one-shot short speedup (vs from-dict)",
        "oneshot_short_speedup_loaded": "one-shot short speedup (vs preloaded)",
        "oneshot_large_speedup": f"one-shot {large_label} speedup (vs from-dict)",
        "construct_speedup": "construction with prompt speedup (vs from-dict)",
        "linearity": f"linearity per chunk {_size_label(large)} / {_size_label(small)} (rtc)",
        "linearity_reference": f"linearity per chunk {_size_label(large)} / "
        f"{_size_label(small)} (reference)",
        "abuse_linearity": "abuse: worst per-char cost growth (rtc)",
    }


def _meets(value: float, comparison: str, target: float) -> bool:
    return value >= target if comparison == ">=" else value <= target


def _margin(value: float, comparison: str, target: float) -> float:
    """How far a value is from missing its target: below 1 is a miss, the lower the worse."""
    if value <= 0:
        return 0.0
    return value / target if comparison == ">=" else target / value


def summarize(records: list[dict[str, Any]], config: BenchConfig) -> dict[str, Any]:
    per_template = {r["name"]: template_metrics(r, config) for r in records if "error" not in r}
    failures = {r["name"]: template_failures(r, config) for r in records if "error" not in r}
    labels = _labels(config)
    metrics = []
    for key, label in labels.items():
        values = [m[key] for m in per_template.values() if m.get(key) is not None]
        median = statistics.median(values) if values else None
        comparison, target = TARGETS.get(key, ("", 0.0))
        metrics.append(
            {
                "key": key,
                "label": label,
                "median": median,
                "templates": len(values),
                "rtc_failed": sum(key in failed for failed in failures.values()),
                "comparison": comparison or None,
                "target": target if comparison else None,
                "pass": (
                    _meets(median, comparison, target)
                    if comparison and median is not None
                    else None
                ),
            }
        )
    worst: list[dict[str, Any]] = []
    for template, failed in failures.items():
        for key, status in failed.items():
            comparison, target = TARGETS[key]
            worst.append(
                {
                    "template": template,
                    "key": key,
                    "label": labels[key],
                    "value": None,
                    "status": status,
                    "comparison": comparison,
                    "target": target,
                    "margin": 0.0,
                }
            )
    for template, values in per_template.items():
        for key, (comparison, target) in TARGETS.items():
            value = values.get(key)
            if value is not None:
                margin = _margin(value, comparison, target)
                worst.append(
                    {
                        "template": template,
                        "key": key,
                        "label": labels[key],
                        "value": value,
                        "comparison": comparison,
                        "target": target,
                        "margin": margin,
                    }
                )
    worst.sort(key=lambda item: item["margin"])
    return {
        "metrics": metrics,
        "per_template": per_template,
        "rtc_failed": {name: failed for name, failed in failures.items() if failed},
        "worst": worst[:5],
    }


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------


def _num(value: float | None, suffix: str = "", digits: int = 3) -> str:
    if value is None:
        return "-"
    if value == 0:
        return f"0{suffix}"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    return f"{value:.{decimals}f}{suffix}"


def _cell(side: dict[str, Any] | None, key: str, suffix: str = "") -> str:
    if side is None:
        return "-"
    status = str(side.get("status", "-"))
    if status != "ok":
        # The details (error messages, why skipped) are listed under the table.
        return status.split(":")[0]
    return _num(side.get(key), suffix)


def _table(rows: list[list[str]], header: list[str], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [
            cell.ljust(widths[i]) if i < 3 else cell.rjust(widths[i]) for i, cell in enumerate(row)
        ]
        lines.append(indent + "  ".join(cells).rstrip())
    return lines


def _size_text(nbytes: int) -> str:
    if nbytes >= 10 * 1024:
        return f"{nbytes / 1024:.0f} KB"
    if nbytes >= 1024:
        return f"{nbytes / 1024:.1f} KB"
    return f"{nbytes} B"


def format_report(report: dict[str, Any]) -> str:
    """The human-readable table of a report (per template, then the summary)."""
    config = report["config"]
    lines = [
        f"rtc {report['rtc_version']} vs "
        + (
            f"transformers {report['reference_version']}"
            if report["reference_version"]
            else "no reference (transformers not installed or disabled)"
        )
        + f"; Python {report['python']}; {'quick' if config['quick'] else 'full'} run",
        f"times ({config.get('clock', 'wall')} clock): one-shot in µs per op, streamed in µs per "
        f"chunk ({config['statistic']} of samples); speedup = reference / rtc (one-shot: "
        "reference given the template dict; x preload: given a preloaded template); "
        "xfloor = rtc / floor",
    ]
    header = ["workload", "size", "mode", "rtc µs", "ref µs", "speedup", "x preload"]
    header += ["rtc MB/s", "ref MB/s", "floor µs", "xfloor"]
    for record in report["templates"]:
        lines.append("")
        lines.append(f"== {record['name']}")
        if "error" in record:
            lines.append(f"  cannot benchmark: {record['error']}")
            continue
        rows = []
        for entry in record["workloads"]:
            for index, run in enumerate(entry["runs"]):
                mode = "one-shot" if run["mode"] == "one-shot" else f"stream/{run['chunk']}"
                rows.append(
                    [
                        entry["name"] if index == 0 else "",
                        _size_text(entry["bytes"]) if index == 0 else "",
                        mode,
                        _cell(run.get("rtc"), "us"),
                        _cell(run.get("reference"), "us"),
                        _num(run.get("speedup"), "x"),
                        _num(run.get("speedup_loaded"), "x"),
                        _cell(run.get("rtc"), "mb_s"),
                        _cell(run.get("reference"), "mb_s"),
                        _cell(run.get("floor"), "us"),
                        _num(run.get("floor_ratio"), "x"),
                    ]
                )
        if rows:
            lines += _table(rows, header)
        details: dict[str, list[str]] = {}
        for entry in record["workloads"]:
            if "mismatch" in entry:
                lines.append(f"  ! {entry['name']}: {entry['mismatch']}")
            for run in entry["runs"]:
                mode = "one-shot" if run["mode"] == "one-shot" else f"stream/{run['chunk']}"
                for side in ("rtc", "reference", "reference_loaded"):
                    status = run.get(side, {}).get("status", "ok")
                    if status not in ("ok", "timeout"):
                        details.setdefault(f"{side}: {status}", []).append(
                            f"{entry['name']} {mode}"
                        )
        for status, where in details.items():
            lines.append(f"  {status} ({', '.join(where)})")
        construction = record.get("construction")
        if construction:
            lines.append(
                f"  construction ({construction['prompt_chars']} chars of prompt): "
                f"rtc {_cell(construction.get('rtc'), 'us')} µs; reference from dict "
                f"{_cell(construction.get('reference_dict'), 'us')} µs "
                f"({_num(construction.get('speedup_dict'), 'x')}), preloaded "
                f"{_cell(construction.get('reference_loaded'), 'us')} µs "
                f"({_num(construction.get('speedup_loaded'), 'x')})"
            )
        linearity = record.get("linearity", {})
        if linearity.get("by_chunk"):
            small, large = linearity["sizes"]
            parts = [
                f"{chunk}-char rtc {_num(v.get('rtc'), 'x')} ref {_num(v.get('reference'), 'x')}"
                for chunk, v in linearity["by_chunk"].items()
            ]
            again = linearity.get("interleaved")
            if again:
                parts.append(
                    f"measured again interleaved, {again['chunk']}-char: rtc "
                    f"{_num(again.get('rtc'), 'x')} ref {_num(again.get('reference'), 'x')}"
                )
            lines.append(
                f"  linearity (per chunk, {_size_label(large)} / {_size_label(small)}): "
                + "; ".join(parts)
            )
        if "abuse" in record:
            lines += _abuse_lines(record["abuse"])
        for note in record["notes"]:
            lines.append(f"  note: {note}")
        for skip in record["skipped"]:
            lines.append(f"  skipped {skip['workload']}: {skip['reason']}")
    lines += ["", *format_summary(report["summary"])]
    return "\n".join(lines) + "\n"


def _abuse_lines(abuse: dict[str, Any]) -> list[str]:
    if "skipped" in abuse:
        return [f"  abuse: skipped ({abuse['skipped']})"]
    lines = [f"  abuse ({_size_label(abuse['body_size'])} in {abuse['region']}):"]
    for key, side in abuse["stream"].items():
        if side.get("status") != "ok":
            lines.append(f"    {key:9} {abuse['chunk']}-char chunks: {side.get('status')}")
            continue
        lines.append(
            f"    {key:9} {abuse['chunk']}-char chunks: {_num(side['us_per_chunk'])} µs/chunk, "
            f"{_num(side['mb_s'])} MB/s, per-char cost last/first eighth "
            f"{_num(side['last_over_first'], 'x')} (first chunk {_num(side['first_chunk_us'])} "
            f"µs, finalize {_num(side['finalize_us'])} µs)"
        )
    for key, side in abuse["chars"].items():
        cells = []
        for label in ("first", "last"):
            part = side.get(label, {})
            if part.get("status") == "ok":
                cells.append(f"{label} {_num(part['ns_per_char'])} ns/char ({part['chars']} fed)")
            else:
                cells.append(f"{label} {part.get('status', '-')}")
        lines.append(
            f"    {key:9} 1-char chunks: {', '.join(cells)}; last/first "
            f"{_num(side.get('last_over_first'), 'x')}"
        )
    small, big = (_size_label(s) for s in abuse["flood_sizes"])
    for key, side in abuse["flood"].items():
        cells = []
        for label in ("small", "big"):
            part = side.get(label, {})
            if part.get("status") == "ok":
                cells.append(f"{_num(part['ns_per_char'])} ns/char")
            else:
                cells.append(str(part.get("status", "-")))
        lines.append(
            f"    {key:9} {abuse['flood_char']!r} flood {small} / {big}: {' / '.join(cells)}; "
            f"per-char {big}/{small} {_num(side.get('big_over_small'), 'x')}"
        )
    return lines


def format_summary(summary: dict[str, Any]) -> list[str]:
    lines = ["Summary (median over templates)"]
    rows = []
    for metric in summary["metrics"]:
        target = (
            f"{'≥' if metric['comparison'] == '>=' else '≤'}{_num(metric['target'], 'x')}"
            if metric["comparison"]
            else ""
        )
        verdict = {True: "PASS", False: "MISS", None: "-" if metric["comparison"] else ""}[
            metric["pass"]
        ]
        rows.append(
            [
                metric["label"],
                _num(metric["median"], "x"),
                target,
                verdict,
                str(metric["templates"])
                + (f", rtc failed on {metric['rtc_failed']}" if metric["rtc_failed"] else ""),
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for row in rows:
        lines.append(
            f"  {row[0].ljust(widths[0])}  {row[1].rjust(widths[1])}  "
            f"{row[2].ljust(widths[2])}  {row[3].ljust(widths[3])}  (n={row[4]})".rstrip()
        )
    if summary["worst"]:
        lines.append("Furthest from target (template: metric value, target)")
        for item in summary["worst"]:
            sign = "≥" if item["comparison"] == ">=" else "≤"
            target = f"target {sign}{_num(item['target'], 'x')}"
            if item.get("status"):
                lines.append(
                    f"  {item['template']}: {item['label']}: rtc {item['status']} ({target})"
                )
                continue
            lines.append(
                f"  {item['template']}: {item['label']} {_num(item['value'], 'x')} "
                f"({target}, {item['margin']:.2f} of target)"
            )
    return lines


# --------------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------------


def _template_name(source: str) -> str:
    path = Path(source)
    if source == "-":
        return "stdin"
    if path.is_dir():
        return path.resolve().name
    if path.stem == "tokenizer_config":
        return path.resolve().parent.name
    return path.stem


@click.command("bench")
@click.argument("source", required=False)
@click.option(
    "--catalogue", is_flag=True, help="Benchmark every template of the installed catalogue."
)
@click.option("--quick", is_flag=True, help="A run of seconds: fewer chunk sizes and repeats.")
@click.option(
    "--abuse",
    is_flag=True,
    help="Also run the abuse workloads: a very long generation in 4 KB and 1-char chunks, and a "
    "flood of partial delimiters (8 MB; 1 MB with --quick).",
)
@click.option(
    "--json",
    "json_out",
    metavar="FILE",
    is_flag=False,
    flag_value="-",
    default=None,
    help="Write the results as JSON to FILE, or to stdout instead of the table with `--json -` "
    "(or --json last on the line).",
)
@click.option(
    "--no-reference", is_flag=True, help="Do not run transformers' interpreter, even if installed."
)
@click.option(
    "--workload",
    "workloads",
    multiple=True,
    metavar="NAME",
    help="Only this workload (short, reasoning-4k, ..., tools-4); repeatable.",
)
@click.option(
    "--statistic",
    type=click.Choice(["min", "median"]),
    default="min",
    show_default=True,
    help="Which sample of each measurement is reported and compared.",
)
@click.option(
    "--clock",
    type=click.Choice(["wall", "cpu"]),
    default="wall",
    show_default=True,
    help="wall: time.perf_counter_ns; cpu: the thread's CPU time (steadier on a loaded machine).",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")
@click.option(
    "--batch",
    is_flag=True,
    help="Offline throughput: records/s, JSONL in, Parquet out, for rtc with 1 and 2 workers "
    "and for transformers (rtc.compiler.offline.bench_batch).",
)
def bench_command(
    source: str | None,
    catalogue: bool,
    quick: bool,
    abuse: bool,
    json_out: str | None,
    no_reference: bool,
    workloads: tuple[str, ...],
    statistic: str,
    clock: str,
    quiet: bool,
    batch: bool,
) -> None:
    """Benchmark the parser of SOURCE (or of the whole --catalogue) against transformers.

    SOURCE is what `rtc compile` takes. Prints a table per template (progress goes to stderr)
    and a summary: the medians over templates of the headline ratios, each against its target,
    and the templates furthest from a target. Workloads are built from each template's own
    delimiters; one that cannot be derived is skipped and the reason printed.
    """
    # Imported here: cli.py imports this module to register the command.
    from rtc.compiler.cli import Failure, _write_atomically
    from rtc.compiler.errors import SourceError, TemplateError, TemplateTypeError
    from rtc.compiler.sources import read_template

    if batch:
        from rtc.compiler.offline import bench_batch

        result = bench_batch.run(2_000 if quick else 10_000, reference=not no_reference)
        click.echo(json.dumps(result, indent=2) if json_out == "-" else bench_batch.report(result))
        return
    if (source is None) == (not catalogue):
        raise click.UsageError(
            "give a template SOURCE or --catalogue, not both (note: --json takes a FILE, "
            "so write --json - or put --json last)"
        )
    if catalogue:
        paths = catalogue_sources()
        if not paths:
            raise Failure("no catalogue found: no generated/*.json and no tests/data/templates")
        sources = [str(p) for p in paths]
    else:
        assert source is not None
        sources = [source]
    templates = []
    for path in sources:
        try:
            template, label = read_template(path)
        except SourceError as exc:
            raise Failure(str(exc)) from None
        if not catalogue:
            # One template: an invalid one is the command's failure (in a catalogue, one
            # template's error is reported in its place and the others still run).
            try:
                load(template)
            except (TemplateError, TemplateTypeError) as exc:
                raise Failure(f"{label}: {exc}") from None
        templates.append((_template_name(path), template))
    if json_out not in (None, "-") and any(
        os.path.exists(json_out) and os.path.samefile(json_out, p) for p in sources if p != "-"
    ):
        raise Failure(f"{json_out}: refusing to write the JSON report over a benchmarked template")

    base = QUICK if quick else FULL
    known = {
        "short",
        f"tools-{base.tool_calls}",
        *(f"reasoning-{_size_label(n)}" for n in base.sizes),
    }
    unknown = sorted(set(workloads) - known)
    if unknown:
        raise click.UsageError(
            f"unknown workload {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    config = replace(
        base,
        reference=not no_reference,
        abuse=abuse,
        workloads=tuple(workloads),
        statistic=statistic,
        clock=clock,
    )

    def progress(message: str) -> None:
        if not quiet:
            click.echo(f"rtc bench: {message}", err=True)

    report = run_benchmark(templates, config, progress=progress)
    payload = json.dumps(report, indent=2, ensure_ascii=False)
    if json_out == "-":
        click.echo(payload)
        return
    if json_out is not None:
        _write_atomically(json_out, (payload + "\n").encode("utf-8"))
    click.echo(format_report(report), nl=False)
