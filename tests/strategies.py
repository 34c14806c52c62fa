"""Hypothesis strategies: random response templates (valid and broken), texts, prefixes, tools.

Templates are drawn as *plans*: the template itself plus, for every delimiter, sample texts that
match it, and for every field bodies that suit its content parser, so random texts actually hit the
template's delimiters (whole, partial, in the wrong place). Every key of the format is covered:
version, defaults, start anchors (literal, list, pattern), fields with literal / list / pattern
delimiters (prefix-overlapping lists, ``\\s*``-led patterns, ``|$`` alternatives, ``\\b``,
look-arounds, ``^``, named groups), every content parser with its arguments, repeats / join /
optional, transform and transform_each. Breakages covering every load-time rule are mixed in with
small probabilities, several at once sometimes, so validation order is exercised too.

Literals are kept short: the reference's regex engine is very slow on long literal alternations.
Features are switched on by *high* draws, so hypothesis shrinks towards plain valid templates.

``python tests/strategies.py [N]`` prints the mix (accepted / rejected, outcomes, delimiter hits)
the strategies give on the reference alone.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Literal

import regex
from hypothesis import strategies as st

# --- building blocks ---------------------------------------------------------------------------

TOKENS = ["<a>", "</a>", "<b>", "</b>", "[C]", "<|e|>", "END", "ab", "é>", "a", "\n", ":"]
"""Short delimiter words; texts are built from the same words so they collide."""

ODD_TOKENS = ['"', "'''", "\\", ".", "$x", "{{", "\\n", "ÉÀ", "\x00", '}}"', "\r\n"]
"""Rarer delimiters: quotes, backslashes, regex and format metacharacters (escaping tests)."""

OVERLAPPING_LISTS = [
    ["<a", "<ab"],
    ["<ab", "<a"],
    ["ab", "abc"],
    ["abc", "b"],
    ["<a>", "<a>"],
    ["</a>", "</a>\n"],
    ["END", "E"],
    ["<|e|>", "<|e", "[C]"],
]
"""Literal lists where one literal is a prefix (or an inner part) of another, or repeats."""

FILLERS = [
    "hi",
    " ",
    "\n",
    "Hello world",
    "x",
    "é",
    "٤٢",
    "a b",
    "<",
    "</",
    "<|",
    "{",
    "}",
    '"',
    "\t",
    "\xa0",
    "name=",
    "  \n",
    "7",
    "🙂",
    " " * 40,
    "\n\n\n\n",
    "<<<<<<",
    "word " * 12,
    "\x1c",  # str.isspace() but not regex \s
    "\x85\u2000",  # both
    "\u200b\ufeff",  # neither
]
"""Text that is not a delimiter, but may start one."""

NAMES = ["content", "tool_calls", "thinking", "a", "b", "x", "Z", "reasoning_content"]
"""Field names; template order and alphabetical order differ (the tie-break uses the latter)."""

ODD_NAMES = ["", "a'b", 'q"', "x\ny", "é", "__class__", "0", "None", "def", "self", "a b", "\\"]
"""Field names that must survive code generation (quotes, keywords, dunders, non-ASCII)."""

CAPTURES = ["name", "key", "arg", "content"]
"""Named groups of open/close patterns (``content`` is shadowed by the parsed body, Q30)."""

TOOL_NAMES = ["f", "g", "get_x"]
ARG_NAMES = ["x", "y", "k"]

INVALID_PATTERNS = ["(", "[a", "a{2,1}", "*a", "a)", "(?P<1>a)", "\\", "(?P=k)", "a**", "[z-a]"]
"""Patterns the regex module refuses (ValueError at load)."""

NON_STRINGS: list[Any] = [5, None, 1.5, True, {"a": 1}]


@dataclass
class Delim:
    """A delimiter as written in the template, with texts that make it match."""

    value: Any
    samples: list[str]
    pattern: bool
    groups: tuple[str, ...] = ()


@dataclass
class FieldPlan:
    name: str
    spec: Any
    opens: list[str] = field(default_factory=list)
    closes: list[str] = field(default_factory=list)
    bodies: list[str] = field(default_factory=list)


@dataclass
class TemplatePlan:
    """A drawn template and the material to write texts for it."""

    template: Any
    fields: list[FieldPlan]
    anchors: list[str]

    @property
    def delimiters(self) -> list[str]:
        return [s for f in self.fields for s in f.opens + f.closes if s]


def chance(draw: st.DrawFn, percent: int) -> bool:
    """True with about ``percent``% probability; shrinks towards False."""
    return draw(st.integers(0, 99)) >= 100 - percent


def pick(draw: st.DrawFn, items: list[Any]) -> Any:
    """One of ``items`` (a deep copy, since sampled objects are shared between examples)."""
    return copy.deepcopy(draw(st.sampled_from(items)))


# --- delimiters --------------------------------------------------------------------------------


@st.composite
def literal_delims(draw: st.DrawFn) -> Delim:
    kind = draw(st.integers(0, 9))
    if kind < 6:
        token = pick(draw, ODD_TOKENS if chance(draw, 8) else TOKENS)
        return Delim(token, [token], pattern=False)
    if kind < 8:
        items = draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=3))
    else:
        items = pick(draw, OVERLAPPING_LISTS)
    return Delim(items, list(items), pattern=False)


_CONNECTORS = [("", [""]), (r"\s*", ["", " ", "\n"]), (r"\s+", [" ", "\n "]), (r"\n?", ["", "\n"])]


def _product(heads: list[str], tails: list[str]) -> list[str]:
    return [h + t for h in heads for t in tails][:6]


@st.composite
def _pattern_parts(draw: st.DrawFn, groups: list[str]) -> tuple[str, list[str]]:
    """A sequence of escaped tokens, connectors and (sometimes) a named capture."""
    source, samples = "", [""]
    for i in range(draw(st.integers(1, 3))):
        if i:
            connector, texts = pick(draw, _CONNECTORS)
            source, samples = source + connector, _product(samples, texts)
        if groups is not None and chance(draw, 20):
            name = draw(st.sampled_from(CAPTURES))
            body, texts = pick(draw, [(r"\w+", ["f", "get_x"]), (r"[^>\n]+", ["g", "a b"])])
            if name in groups:  # a second group of the same name would be a back-reference
                source, samples = source + f"(?P={name})", samples
                continue
            groups.append(name)
            source, samples = source + f"(?P<{name}>{body})", _product(samples, texts)
        else:
            token = draw(st.sampled_from(TOKENS))
            source, samples = source + regex.escape(token), _product(samples, [token])
    return source, samples


SPECIAL_PATTERNS: list[tuple[str, list[str]]] = [
    ("", [""]),
    ("(?:)", [""]),
    ("$", ["", "\n"]),
    (r"\Z", [""]),
    (r"\b", ["x"]),
    ("(?=a)", ["a"]),
    ("x*", ["x", ""]),
    ("(?i)<A>", ["<a>", "<A>"]),
    ("(?m)^a", ["a", "\na"]),
    ("(?m)a$", ["a\n", "a"]),
    ("(?x) < a >", ["<a>"]),
    ("(?V1)<a>", ["<a>"]),
    (r"\x3ca>", ["<a>"]),
    (r"[<]a[>]", ["<a>"]),
    ("(?:<a>)", ["<a>"]),
    (r"\<a\>", ["<a>"]),
    ("a{2}", ["aa"]),
    ("(?:ab)+", ["ab", "abab"]),
    ("a++b", ["aab"]),
    ("(?>a|ab)c", ["ac"]),
    (r"\d+", ["42"]),
    (r"\p{Lu}+:", ["AB:"]),
    (r"(a)\1", ["aa"]),
    (r"(?<=\n)a", ["\na"]),
    ("(?<!b)a", ["a"]),
    (r"(?:\n|^)END", ["END", "\nEND"]),
    (r"é>|\Z", ["é>"]),
    (r"a\Kb", ["ab"]),
    (r"\Bb", ["ab"]),
    (r"(?<=a+)b", ["aab"]),
    (r"(?w)\bab\b", ["ab", " ab "]),
    ("(?r)ab", ["ab"]),
    (r"\Gab", ["ab"]),
    (r"(a)?(?(1)b|c)", ["ab", "c"]),
    ("(?i:é)>", ["É>"]),
    (r"\mab", ["ab"]),
    ("(?m)$", ["\n"]),
    ("[[:alpha:]]+:", ["ab:"]),
    ("(?|(a)|(b))x", ["ax"]),
    ("(?<![a-z]{3})b", ["b"]),
    (r"ab(?=\n)", ["ab\n"]),
    (r"\w+?:", ["ab:"]),
    (r"\X>", ["é>"]),
    ("(?f)SS", ["ß", "SS"]),
    ("(?:a|b)*+c", ["abc"]),
    (r"(?<=^|\n)a", ["a", "\na"]),
    ("(?s:.)END", ["xEND"]),
    (r"\s*", [" ", ""]),
    (r"<a\b[^>]*?\bname=", ["<a name=", "<a b name="]),
    (r"(?=[\s\S]*?</a>)", ["</a>"]),
    (r"[\s\S]*?END", ["xEND"]),
    (r"\n\n", ["\n\n"]),
]
"""Zero-width and empty-matching patterns (Q3-Q5, Q9, Q10, Q19), inline flags, escapes and
constructs that look behind the search position or spell a literal in another way: the edges of
the compiler's literal, prefilter and buffer-trimming analyses."""


@st.composite
def pattern_delims(draw: st.DrawFn) -> Delim:
    if chance(draw, 20):
        source, samples = pick(draw, SPECIAL_PATTERNS)
        return Delim(source, samples, pattern=True)
    groups: list[str] = []
    source, samples = draw(_pattern_parts(groups))
    wrap = draw(st.integers(0, 19))
    if wrap == 1:
        source, samples = r"\s*" + source, _product(["", " ", "\n"], samples)
    elif wrap == 2:
        source, samples = source + r"\s*", _product(samples, ["", "\n"])
    elif wrap == 3:
        other, more = draw(_pattern_parts(groups))
        source, samples = f"(?:{source}|{other})", samples + more
    elif wrap == 4:
        source, samples = source + pick(draw, ["|$", r"|\Z", r"\s*|$"]), samples + [""]
    elif wrap == 5:
        tail, more = draw(_pattern_parts(groups))
        source, samples = f"{source}(?:{tail})?", samples + _product(samples, more)
    elif wrap == 6:
        source = f"(?={source})"
    elif wrap == 7:
        token = draw(st.sampled_from(TOKENS))
        source, samples = f"(?<={regex.escape(token)}){source}", _product([token], samples)
    elif wrap == 8:
        source = "^" + source
    elif wrap == 9:
        source = pick(draw, [r"\b", ""]) + source + pick(draw, [r"\b", ""])
    elif wrap == 10:
        tail, more = draw(_pattern_parts(groups))
        source, samples = f"{source}.*?{tail}", _product(samples, ["", "zz"])
        samples = _product(samples, more)
    elif wrap == 11:
        source = f"(?=[\\s\\S]*?{source})"
    return Delim(source, samples, pattern=True, groups=tuple(groups))


@st.composite
def delims(draw: st.DrawFn) -> Delim:
    return draw(pattern_delims() if chance(draw, 45) else literal_delims())


def broken_delim(draw: st.DrawFn) -> Delim:
    """A delimiter the reference refuses at load (ValueError, or TypeError for a bad pattern)."""
    if chance(draw, 50):
        return Delim(pick(draw, INVALID_PATTERNS + NON_STRINGS + [["<a>"]]), [], pattern=True)
    return Delim(pick(draw, [[], [""], "", ["<a>", 1], 5, None, {"a": "b"}]), [], pattern=False)


# --- content -----------------------------------------------------------------------------------

TAG_PATTERNS: list[tuple[Any, list[str]]] = [
    (
        r"<(?P<key>\w+)>(?P<value>.*?)</(?P=key)>",
        ["<x>7</x>", "<y> a </y><x>1</x>", "<x>1</x><x>2</x>", "<k>[1,2]</k><k>3</k>", "<x>1</x>"],
    ),
    (r"<p=(?P<key>\w+)>\s*(?P<value>.*?)\s*</p>", ["<p=x> 7 </p>", '<p=x>1</p><p=y>"s"</p>']),
    (r"(?P<key>\w+)=(?P<value>[^,]*)", ["x=7,y=a", "k=1.5,k=2"]),
    (r"<(?P<key>\w+)/>", ["<x/>", "<x/><y/>"]),
    (r"<(?P<key>\w+)>(?:(?P<value>\d+)|-)</(?P=key)>", ["<x>-</x>", "<x>4</x>"]),
    (r"<(?P<k>\w+)>", ["<x>", "nothing"]),
    ("(", ["<x>1</x>"]),
]
"""xml-inline ``tag_pattern``s with bodies for them (missing value group, unset value, no key
group, invalid pattern included)."""

VALUE_PARSERS: list[Any] = [
    {"name": "json"},
    {"name": "json", "args": {"allow_non_json": True}},
    {"name": "int"},
    {"name": "text", "args": {"strip": False}},
    {"name": "bool"},
    {},
    {"name": "nope"},
    "json",
]

JSON_BODIES = [
    '{"x": "7", "y": "1e3"}',
    '{"name": "f", "arguments": {"x": "7", "k": "true"}}',
    '[{"name": "f", "arguments": {"x": "1"}}, {"name": "g", "arguments": {}}]',
    '{"type": "function", "function": {"name": "get_x", "arguments": {"y": "2.0"}}}',
    "[1, 2.0]",
    '"s"',
    "NaN",
    '{"a": 1, "a": 2}',
    "{bad",
    "[[[",
    " 3 ",
    '{"x": ["1", "2"]}',
]

SCALAR_BODIES = {
    "int": [" 42 ", "4_2", "-1", "٤٢", "7", "x", "1.0"],
    "float": ["1.5", " inf", "nan", "1_0.5", "-0.0", "1e3", "x"],
    "bool": ["true", "1", "yes", "False", " TRUE ", ""],
}

KV_BODIES = ["x: 7\ny: true", "x=1;y=2", "a:1 b:2\tc: 3", "\n\nx:\n:y\nnokv", "k: 1\nk: 2"]


CONTENT_KINDS = ["text"] * 6 + ["json"] * 3 + ["xml-inline"] * 2 + ["kv-lines", "int", "float"]
CONTENT_KINDS.append("bool")


@st.composite
def contents(draw: st.DrawFn) -> tuple[dict[str, Any], list[str]]:
    """``content`` / ``content_args`` keys of a field, and bodies that suit them."""
    kind = pick(draw, CONTENT_KINDS)
    spec: dict[str, Any] = {} if kind == "text" and chance(draw, 50) else {"content": kind}
    args: dict[str, Any] = {}
    if chance(draw, 25):
        args["strip"] = pick(draw, [False, True, 0, None])
    if kind in ("text", "int", "float", "bool"):
        bodies = SCALAR_BODIES.get(kind, FILLERS[:6])
    elif kind == "json":
        bodies = list(JSON_BODIES)
        if chance(draw, 30):
            pair = pick(draw, [["'", "'"], ["«", "»"], ['<|"|>', '<|"|>'], ["<<", ">>"]])
            args["string_delims"] = [pair]
            bodies += [f'{{"x": {pair[0]}a"b{pair[1]}}}', f"[{pair[0]}1{pair[1]}, 2]", "\x01"]
        if chance(draw, 25):
            args["unquoted_keys"] = True
            bodies += ['{x:1,y:"a,b:c"}', "{ x:1}", '{name:"f",arguments:{x:"7"}}']
        if chance(draw, 30):
            args["allow_non_json"] = True
        if chance(draw, 3):
            args["string_delims"] = pick(draw, [None, [["a"]], [["x", "y", "z"]]])
    elif kind == "xml-inline":
        pattern, bodies = pick(draw, TAG_PATTERNS)
        if chance(draw, 95):
            args["tag_pattern"] = pattern
        if chance(draw, 40):
            args["value_parser"] = pick(draw, VALUE_PARSERS)
        if chance(draw, 30):
            args["merge_duplicates"] = pick(draw, [True, False, 1])
    else:  # kv-lines
        bodies = list(KV_BODIES)
        if chance(draw, 30):
            args["line_sep"] = pick(draw, [";", None, "\n", " "])
        if chance(draw, 30):
            args["kv_sep"] = pick(draw, ["=", ":", " ", ""])
        if chance(draw, 25):
            args["value_parser"] = pick(draw, VALUE_PARSERS)
    if args or chance(draw, 10):
        spec["content_args"] = args
    if chance(draw, 3):
        spec["content_args"] = pick(draw, [[], "strip", None])
    return spec, bodies


# --- transforms --------------------------------------------------------------------------------

PLAIN_TRANSFORMS: list[Any] = [
    "{content}",
    ["{content}", "{content}"],
    {"a": "{content}", "b": "{content}"},
    {"{content}": 7},
    7,
    "lit",
    True,
    1.5,
    [],
    {},
    "{}",
    "{a-b}",
    "{ x }",
    {"type": "function", "function": "{content}"},
    {"k": [1, "{content}", {"n": None}]},
]

RISKY_TRANSFORMS: list[Any] = [
    "{content.x}",
    "{content.name}",
    "{content.x.y}",
    "{content.0}",
    "{zzz}",
]
"""Transforms that fail at close for most bodies (dotted paths, unknown roots)."""

BAD_TRANSFORMS: list[Any] = ["pre {x}", "{a}{b}", "{{x}}", {"k": ["ok", "x {content}"]}]
"""Mixed placeholder strings: ValueError at load."""


@st.composite
def transforms(draw: st.DrawFn, groups: tuple[str, ...], each: bool) -> Any:
    if each:
        name = "{name}" if chance(draw, 90) else pick(draw, ["f", "{zzz}"])
        return {"type": "function", "function": {"name": name, "arguments": "{arguments}"}}
    if chance(draw, 60):
        refs = [f"{{{g}}}" for g in groups] or ["f"]
        name = pick(draw, refs) if chance(draw, 90) else "{content.name}"
        return {"type": "function", "function": {"name": name, "arguments": "{content}"}}
    if groups and chance(draw, 30):
        return {g: f"{{{g}}}" for g in groups} | {"body": "{content}"}
    return pick(draw, RISKY_TRANSFORMS if chance(draw, 20) else PLAIN_TRANSFORMS)


# --- fields and templates ----------------------------------------------------------------------


@st.composite
def field_plans(draw: st.DrawFn, name: str, implicit: bool) -> FieldPlan:
    spec: dict[str, Any] = {}
    plan = FieldPlan(name, spec)
    groups: list[str] = []
    closer_groups: list[str] = []
    if not implicit:
        opener = draw(delims())
        spec["open_pattern" if opener.pattern else "open"] = opener.value
        plan.opens, groups = opener.samples, list(opener.groups)
    if chance(draw, 80):
        closer = draw(delims())
        spec["close_pattern" if closer.pattern else "close"] = closer.value
        plan.closes = closer.samples
        closer_groups = [g for g in closer.groups if g not in groups]
    content, plan.bodies = draw(contents())
    spec.update(content)
    if chance(draw, 35):
        spec["repeats"] = pick(draw, [True, True, 1, "yes", False, 0])
        if spec["repeats"] and chance(draw, 40):
            spec["join"] = pick(draw, ["+", "", "\n", None])
    if chance(draw, 8):
        spec["optional"] = pick(draw, [False, True, 0, None, ""])
    each = content.get("content") == "json" and chance(draw, 15)
    if each:
        spec["transform_each"] = True
        plan.bodies = [
            '[{"name": "f", "arguments": {"x": "1"}}]',
            '[{"name": "g", "arguments": {"y": "2", "x": "z"}}, {"name": "f", "arguments": {}}]',
            "[]",
            '[{"name": "f"}]' if chance(draw, 50) else "[1]",
        ]
    if groups or closer_groups or each or chance(draw, 30):
        usable = groups if chance(draw, 90) else groups + closer_groups
        spec["transform"] = draw(transforms(tuple(usable), each))
    _break_field(draw, spec, implicit)
    if chance(draw, 1) and chance(draw, 50):
        plan.spec = pick(draw, ["x", None, [], 5])
    return plan


def _break_field(draw: st.DrawFn, spec: dict[str, Any], implicit: bool) -> None:
    """Sometimes add one or two of the field-level load errors of reference-semantics §2."""
    if not chance(draw, 5):
        return
    for _ in range(draw(st.integers(1, 2))):
        kind = draw(st.integers(0, 10))
        if kind == 0:
            spec["opne"] = "<a>"
        elif kind == 1:
            spec["content"] = pick(draw, ["yaml", None, ["text"], "python-call-list"])
        elif kind in (2, 3):
            bad = broken_delim(draw)
            key = pick(draw, ["open", "close"]) if not implicit else "close"
            spec.pop(key, None), spec.pop(key + "_pattern", None)
            spec[key + "_pattern" if bad.pattern else key] = bad.value
        elif kind == 4:
            key = pick(draw, ["open", "close"])
            spec[key], spec[key + "_pattern"] = "<a>", "<a>"
        elif kind == 5:
            spec["join"] = pick(draw, [5, ["+"], "+"])
        elif kind == 6:
            spec["transform_each"] = pick(draw, [1, None, "yes", True])
        elif kind == 7:
            spec["transform"] = pick(draw, BAD_TRANSFORMS)
        elif kind == 8:
            spec.pop("transform", None)
        elif kind == 9:
            spec["transform"] = None
        else:
            spec["repeats"] = 0
            spec["join"] = "+"


ANCHORS: list[tuple[str, Any, list[str]]] = [
    ("start_anchor", "<A>", ["<A>"]),
    ("start_anchor", "aa", ["aa", "aaa"]),
    ("start_anchor", "<A>\n", ["<A>\n"]),
    ("start_anchor", ["<A>", "<AB>"], ["<A>", "<AB>"]),
    ("start_anchor", ["<B>", "<A>"], ["<A>", "<B>"]),
    ("start_anchor_pattern", r"<A>\s*", ["<A>", "<A> \n"]),
    ("start_anchor_pattern", "(?:<A>|<B>)", ["<A>", "<B>"]),
    ("start_anchor_pattern", "x*", ["x", ""]),
    ("start_anchor_pattern", "<A>(?:\n|</a>)?", ["<A>", "<A>\n", "<A></a>"]),
    ("start_anchor_pattern", "^<A>", ["<A>"]),
]

DEFAULT_VALUES: list[Any] = ["", "d", [], ["x"], {}, {"k": 1}, None, 0, False, 1.5]


@st.composite
def template_plans(draw: st.DrawFn) -> TemplatePlan:
    """A random template (about a quarter of them broken) with material for texts."""
    pool = NAMES + ODD_NAMES if chance(draw, 10) else NAMES
    names = draw(st.permutations(pool))[: draw(st.integers(1, 4))]
    implicit = draw(st.one_of(st.none(), st.integers(0, len(names) - 1)))
    plans = [draw(field_plans(n, i == implicit)) for i, n in enumerate(names)]
    template: dict[str, Any] = {}
    if chance(draw, 15):
        template["version"] = pick(draw, [1, 1.0, True])
    if chance(draw, 70):
        defaults: dict[str, Any] = {"role": "assistant"} if chance(draw, 90) else {}
        for n in names:
            if chance(draw, 10):
                defaults[n] = pick(draw, DEFAULT_VALUES)
        template["defaults"] = defaults
    key, anchor, anchor_samples = pick(draw, ANCHORS)
    template[key] = anchor
    template["fields"] = {p.name: p.spec for p in plans}
    if chance(draw, 2):  # a second implicit field
        template["fields"]["extra"] = {"close": "</a>"}
    _break_template(draw, template)
    return TemplatePlan(copy.deepcopy(template), plans, anchor_samples)


def _break_template(draw: st.DrawFn, template: dict[str, Any]) -> None:
    """Sometimes add a top-level load error of reference-semantics §2."""
    if not chance(draw, 4):
        return
    kind = draw(st.integers(0, 7))
    if kind == 0:
        template["version"] = pick(draw, ["1", None, 2, 0])
    elif kind == 1:
        template["extra"] = 1
    elif kind == 2:
        template["defaults"] = pick(draw, [None, [], "x"])
    elif kind == 3:
        template["fields"] = pick(draw, [{}, [], None])
    elif kind == 4:
        template.pop("fields")
    else:
        template.pop("start_anchor", None), template.pop("start_anchor_pattern", None)
        if kind == 5:
            template["start_anchor"], template["start_anchor_pattern"] = "<A>", "<A>"
        elif kind == 6:
            template["start_anchor"] = pick(draw, [None, [], "", [""], 5])
        else:
            template["start_anchor_pattern"] = pick(draw, [None, 5, "(", "[a"])
    if chance(draw, 20):
        template.clear() if chance(draw, 50) else None
        template["not"] = "a template"


# --- texts, prefixes, tools, chunkings ---------------------------------------------------------


def _partial(text: str, cut: int) -> str:
    return text[: 1 + cut % max(len(text) - 1, 1)] if text else ""


@st.composite
def pieces(draw: st.DrawFn, plan: TemplatePlan) -> str:
    """One piece of a generation: a whole region, a delimiter, part of one, a body or filler."""
    delimiters = plan.delimiters
    kind = draw(st.integers(0, 11))
    if kind <= 4 and plan.fields:
        f = draw(st.sampled_from(plan.fields))
        opening = draw(st.sampled_from(f.opens)) if f.opens else ""
        body = draw(st.sampled_from(f.bodies)) if f.bodies else ""
        if not f.closes or chance(draw, 10):
            return opening + body
        return opening + body + draw(st.sampled_from(f.closes))
    if kind <= 6 and delimiters:
        return draw(st.sampled_from(delimiters))
    if kind == 7 and delimiters:
        return _partial(draw(st.sampled_from(delimiters)), draw(st.integers(0, 20)))
    if kind == 8 and plan.fields:
        bodies = [b for f in plan.fields for b in f.bodies]
        return draw(st.sampled_from(bodies)) if bodies else ""
    if kind == 9 and plan.anchors:
        return draw(st.sampled_from(plan.anchors))
    return draw(st.sampled_from(FILLERS))


def texts(plan: TemplatePlan, max_pieces: int = 8) -> st.SearchStrategy[str]:
    """Generations: a few pieces, sometimes many (long texts stress hold-back across feeds)."""
    few = st.lists(pieces(plan), min_size=1, max_size=max_pieces)
    many = st.lists(pieces(plan), min_size=max_pieces, max_size=3 * max_pieces)
    return st.one_of(few, few, few, many).map("".join)


@st.composite
def prefixes(draw: st.DrawFn, plan: TemplatePlan) -> Any:
    """A chat prefix: empty, without anchor, with one or several anchors (multi-turn), rarely
    ``None`` or a non-string."""
    kind = draw(st.integers(0, 99))
    if kind < 40:
        return ""
    if kind >= 98:
        return pick(draw, [None, ["<A>"], 0, b"<A>"])
    turns = draw(st.integers(0, 2))
    parts = [draw(texts(plan, 3))]
    for _ in range(turns):
        parts += [draw(st.sampled_from(plan.anchors)), draw(texts(plan, 3))]
    return "".join(parts)


SCHEMAS: list[Any] = [
    {"type": "integer"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "null"},
    {"type": "object"},
    {"type": "array"},
    {"type": "string"},
    {"type": ["string", "integer"]},
    {"anyOf": [{"type": "boolean"}, {"type": "integer"}]},
    {"oneOf": [{"type": "number"}, {"type": "null"}]},
    {"type": "integer", "nullable": True},
    {"enum": [1]},
    "notadict",
    {},
]


def _tool_f(x: int, y: float | None = None, k: bool = False) -> str:
    """Do f.

    Args:
        x: an integer
        y: maybe a number
        k: a flag
    """
    return ""


def _tool_g(x: list[int], y: dict[str, int], k: Literal["a", "b"]) -> None:
    """Do g.

    Args:
        x: integers
        y: a mapping
        k: a choice
    """


def _tool_get_x(x: str, y: int | str, k: Any = None) -> tuple[int, str]:
    """Get x.

    Args:
        x: The x (choices: ["1", "2"])
        y: a union
        k: anything
    Returns:
        a pair
    """
    return 0, ""


def _tool_undocumented(x: int) -> int:
    return x


def _tool_undocumented_arg(x: int, y: int) -> int:
    """Doc.

    Args:
        x: documented
    """
    return x


def _tool_unhinted(x):  # type: ignore[no-untyped-def]
    """Doc.

    Args:
        x: no hint
    """


class _Toolbox:
    def f(self, n: int, s: str) -> None:
        """A method.

        Args:
            n: a count
            s: a string
        """


for _fn, _name in [(_tool_f, "f"), (_tool_g, "g"), (_tool_get_x, "get_x")]:
    _fn.__name__ = _name

CALLABLE_TOOLS: list[Any] = [
    _tool_f,
    _tool_g,
    _tool_get_x,
    _Toolbox().f,
    _tool_undocumented,
    _tool_undocumented_arg,
    _tool_unhinted,
]
"""Callables (converted with get_json_schema; some are rejected by it at construction)."""


@st.composite
def tool_lists(draw: st.DrawFn) -> Any:
    """``tools=``: mostly absent; JSON-schema tool dicts (some malformed, which are ignored)."""
    kind = draw(st.integers(0, 99))
    if kind < 65:
        return None
    if kind < 70:
        return []
    if kind >= 98:
        # not iterable (TypeError at construction), a dict (its keys are read), a tuple
        return pick(draw, [5, {"name": "f"}, ({"name": "f", "parameters": {}},)])
    tools: list[Any] = []
    for _ in range(draw(st.integers(1, 3))):
        props = {a: pick(draw, SCHEMAS) for a in draw(st.lists(st.sampled_from(ARG_NAMES)))}
        function = {
            "name": draw(st.sampled_from(TOOL_NAMES)),
            "parameters": {"type": "object", "properties": props},
        }
        shape = draw(st.integers(0, 11))
        if shape >= 10:
            tools.append(draw(st.sampled_from(CALLABLE_TOOLS)))
        elif shape < 6:
            tools.append({"type": "function", "function": function})
        elif shape < 8:
            tools.append(function)
        else:
            tools.append(pick(draw, [5, {"function": "x"}, {"name": 5}, {"name": "f", "x": []}]))
    return tools


@st.composite
def chunkings(draw: st.DrawFn, text: str) -> list[str]:
    """Ways to cut ``text`` into feeds (empty feeds included sometimes)."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return [text] if chance(draw, 90) else [None, text, "", None]
    if kind == 1:
        size = draw(st.integers(2, 5))
        return [text[i : i + size] for i in range(0, len(text), size)]
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=10)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


# --- mix report --------------------------------------------------------------------------------


def _mix_report(examples: int) -> None:
    """Print what the strategies give on the reference alone."""
    import collections
    import time

    from hypothesis import HealthCheck, given, settings
    from reference import Reference, load, record_stream

    ref = Reference()
    stats: collections.Counter[str] = collections.Counter()

    @settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        plan = data.draw(template_plans())
        state, loaded = load(ref, plan.template)
        stats[f"load {state}"] += 1
        if state != "ok":
            return
        for _ in range(2):
            text, prefix = data.draw(texts(plan)), data.draw(prefixes(plan))
            steps = record_stream(ref, loaded, prefix, data.draw(tool_lists()), list(text))
            stats["texts"] += 1
            events = [e for s in steps if s.error is None and not s.hang for e in _events(s)]
            explicit = {f.name for f in plan.fields if f.opens}
            opened = {e["field"] for e in events if e["type"] == "region_open"}
            closed = {e["field"] for e in events if e["type"] == "region_close"}
            stats["texts opening an explicit region"] += bool(opened & explicit)
            stats["texts opening 2+ kinds of region"] += len(opened) > 1
            stats["texts closing a region"] += bool(closed)
            stats["texts closing an explicit region"] += bool(closed & explicit)
            final = [s for s in steps if s.call.startswith("finalize")]
            if any(s.hang for s in steps):
                stats["outcome hang"] += 1
            elif final and final[0].error is None:
                stats["outcome message"] += 1
            else:
                failed = next((s for s in steps if s.error), None)
                stats[f"outcome {failed.error if failed else '?'} at {failed and failed.call}"] += 1

    start = time.time()
    run()
    for key, count in sorted(stats.items()):
        print(f"{count:6d}  {key}")
    print(f"{time.time() - start:.1f}s")


def _events(step: Any) -> list[dict[str, Any]]:
    from reference import uncanon

    value = uncanon(step.result)
    if step.call.startswith("finalize"):
        value = value[1]  # (message, events)
    return value if step.call == "init" or step.call.startswith(("feed#", "finalize")) else []


if __name__ == "__main__":
    import sys

    _mix_report(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
