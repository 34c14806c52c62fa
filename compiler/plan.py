"""Lowering a validated template to the plan the code templates render.

Everything the reference decides again on every ``feed()`` is decided here once: which
delimiters each parser state watches and in which tie-break order, how each delimiter is
matched (``str.find`` for a single literal, the ``regex`` module for literal lists and
patterns), how much consumed text the patterns can still observe, how each field turns its
body into a value and how it stores it. The code templates only lay these attributes out.
"""

from __future__ import annotations

import functools
import hashlib
import json
import keyword
import re
from dataclasses import dataclass, field
from typing import Any

import regex

from rtc.runtime.transform import PLACEHOLDER

from .literals import comment_text, fits_inline, py_literal
from .model import Delimiter, Field, Template
from .prefilter import (
    class_source,
    first_fragments,
    literal_prefix,
    lookahead_literal,
    whitespace_led,
)
from .rarity import rarest_index
from .serving import ServingPlan, lower_serving

# Patterns that can look at consumed text further back than a fixed window: look-behinds,
# and the reverse / word-boundary-rule flags. They keep the whole buffer (declared in README).
_LOOKS_BACK = re.compile(r"\(\?<[=!]|\(\?[a-zA-Z0-9-]*[rw][a-zA-Z0-9-]*[:)]|\\X")
# Patterns whose matches depend on where a search starts (\G, reverse searching, \K which
# reports a start after where the match began): for them
# one end-of-stream pass is not provably the same as a partial pass followed by it.
_START_SENSITIVE = re.compile(r"\\[GK]|\(\?[a-zA-Z0-9-]*r[a-zA-Z0-9-]*[:)]")
# Regions that get a straight-through case in feed() (see lower_fast_paths).
MAX_FAST_PATHS = 64
# How much consumed text other patterns may observe: \b, \B, \m, \M and (?m)^ look at the one
# character before the search position, and one character is enough for ^ and \A never to
# match at a trimmed buffer's start. (Grapheme rules and look-behinds keep the whole buffer.)
PATTERN_CONTEXT = 1
# Escapes that test text before the current position (word boundaries) or the start.
_BACKWARD_ESCAPES = frozenset("bBmMAGXKyY")


def _needs_context(pattern: str) -> bool:
    """Whether a match at ``pos`` may depend on text before ``pos`` (conservative)."""
    i = 0
    in_set = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 < len(pattern) and pattern[i + 1] in _BACKWARD_ESCAPES and not in_set:
                return True
            i += 2
            continue
        if in_set:
            if c == "]":
                in_set = False
            elif c == "[":
                return True  # nested sets / POSIX classes: not worth reasoning about
        elif c == "[":
            in_set = True
            if pattern.startswith("^", i + 1):
                i += 1
            if pattern.startswith("]", i + 1):
                i += 1
        elif c == "^":
            return True
        elif c == "(" and pattern.startswith("?", i + 1):
            rest = pattern[i + 2 : i + 3]
            if rest not in (":", "=", "!", "P") and not (
                rest == "<" and pattern[i + 3 : i + 4] not in ("=", "!")
            ):
                return True  # inline flags, look-behind, atomic groups, conditionals...
            if rest == "P" and pattern[i + 3 : i + 4] not in ("<",):
                return True
        i += 1
    return False


_TARGET_CLOSE = -2


# Probe texts for a defect of the regex module: some patterns searched at the very end of the
# text in partial mode report a complete match whose end lies before its start, and the
# reference then moves back to that absolute position. Reproducing it needs the whole buffer.
_PROBES = ("", "a", "xyz", "a\n1>\n> ", "hello world", "<tool_call>\n", " \n\t")


@functools.lru_cache(maxsize=256)
def _jumps_back(pattern: str) -> bool:
    compiled = regex.compile(pattern, regex.DOTALL)
    for probe in _PROBES:
        for pos in range(len(probe) + 1):
            m = compiled.search(probe, pos, partial=True)
            if m is not None and m.end() < m.start():
                return True
    return False


def _never_overlap(literals: tuple[str, ...]) -> bool:
    """Whether no two occurrences of these literals (of one literal twice, too) can overlap.

    Then scanning left to right for the leftmost match, again and again, meets every
    occurrence, and the last match is simply the occurrence that starts last (``rfind``).
    Checked for small sets only (the check is quadratic).
    """
    if len(literals) > 16 or sum(map(len, literals)) > 1024:
        return False
    for a in literals:
        if not a:
            return False
        for b in literals:
            for d in range(len(a)):
                if d == 0 and a == b:
                    continue
                tail = a[d:]
                if tail.startswith(b) or b.startswith(tail):
                    return False
    return True


def template_sha256(template: dict[str, Any]) -> str:
    canonical = json.dumps(template, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


@dataclass
class Watch:
    """One delimiter watched in one state, in tie-break order."""

    comment: str
    kind: str  # "literal" (single literal, str.find), "lookahead" (see prefilter) or "regex"
    target: int  # field index to open, or -2 for the close of the current region
    literal: str = ""  # name of the constant holding the literal, for kind == "literal"
    length: str = ""  # name of the constant holding its length
    tail_const: str = ""
    regex_const: str = ""
    grows_at_edge: bool = True  # a complete match ending at the buffer end stays pending
    captures: bool = False  # pass the match on: the open pattern has named groups
    rank: int = 0  # tie-break among equal spans: opens before closes, then field name
    ws_lead_const: str = ""  # end-of-stream search for a \s*-led pattern (see prefilter)
    list_maxlen: int = 0  # a literal list: its longest literal (bounds end-of-stream search)
    memo: int = 0  # slot of this watch in the end-of-stream memo
    led_by_literal: bool = False  # its searched pattern has a literal prefix (RegexConst)


@dataclass
class State:
    function: str
    doc: str
    watches: list[Watch]
    # Characters and classes that can begin a watched delimiter (None: unknown): a chunk
    # without any of them cannot touch a delimiter.
    first_chars: tuple[str, list[str]] | None = None
    # Every watched delimiter needs at least one character: nothing can match at the end.
    empty_at_end: bool = False


@dataclass
class FastPath:
    """The straight-through case of ``feed()`` for one region (``cur``)."""

    cur: int
    comment: str
    test: str  # expression over ``text``: true when the chunk cannot touch a delimiter
    name_literal: str
    dirty: bool
    lazy_open: bool  # the implicit field opens on its first text; explicit ones are open
    # The same test as data for the OpenAI delta layer: a character, or the name of the
    # frozenset or pattern constant (see rtc.runtime.openai).
    probe: str = ""


@dataclass
class LiteralConst:
    name: str
    comment: str
    literal: str  # repr
    rare: int  # index of its rarest character, where long searches look first
    rare_comment: str


@dataclass
class RegexConst:
    name: str
    comment: str
    pattern: str  # repr
    # Literal text every match begins with (repr), and the index of its rarest character:
    # long end-of-stream searches jump between occurrences of it (see matching).
    prefix: str = ""
    rare: int = 0
    rare_comment: str = ""


@dataclass
class FieldPlan:
    index: int
    name_literal: str
    comment: str
    function: str
    value_lines: list[str]
    dirty: bool
    store: int
    join_literal: str


@dataclass
class Plan:
    sha256: str
    template_literal: str
    regexes: list[RegexConst] = field(default_factory=list)
    literal_consts: list[LiteralConst] = field(default_factory=list)
    data_consts: list[tuple[str, str, str]] = field(default_factory=list)  # name, comment, expr
    fields: list[FieldPlan] = field(default_factory=list)
    states: list[State] = field(default_factory=list)
    scanner_table: list[str] = field(default_factory=list)
    implicit: int = -1
    context: str = "0"
    context_note: str = ""
    required: str = "()"
    default_keys: str = "frozenset()"
    new_output_expr: str = "{}"
    anchor_literal: str = ""
    anchor_length: int = 0
    anchor_regex: str = ""
    anchor_rfind: str = ""  # literals that can never overlap: the last one found is the last match
    anchor_comment: str = ""
    runtime_imports: list[str] = field(default_factory=list)
    uses_json: bool = False
    uses_copy: bool = False
    uses_regex: bool = False
    loop_warning: str = ""
    whole_pass_exact: bool = True
    memo_size: int = 0
    fast_paths: list[FastPath] = field(default_factory=list)
    fast_consts: list[tuple[str, str]] = field(default_factory=list)  # (name, frozenset expr)
    serving: ServingPlan = field(default_factory=ServingPlan)  # the module's DeltaStream


def _identifier(name: str, taken: set[str], prefix: str) -> str:
    """A readable, unique identifier derived from a field name (never trusted as-is)."""
    stem = re.sub(r"[^0-9a-zA-Z_]", "_", name)[:40].strip("_") or "field"
    candidate = f"{prefix}{stem}"
    if keyword.iskeyword(candidate):
        candidate += "_"
    unique = candidate
    n = 2
    while unique in taken:
        unique = f"{candidate}_{n}"
        n += 1
    taken.add(unique)
    return unique


def _search_order(w: Watch) -> int:
    if w.kind == "literal":
        return 0
    if w.list_maxlen:
        return 1
    return 3 if w.led_by_literal else 2


def _merge_imports(lines: set[str]) -> list[str]:
    """``from M import a`` lines, one per module with its names sorted; sorted by module."""
    names: dict[str, set[str]] = {}
    for line in lines:
        module, _, imported = line.removeprefix("from ").partition(" import ")
        names.setdefault(module, set()).update(x.strip() for x in imported.split(","))
    return [f"from {m} import {', '.join(sorted(names[m]))}" for m in sorted(names)]


class _Lowering:
    def __init__(self, template: Template) -> None:
        self.t = template
        self.plan = Plan(sha256=template_sha256(template.source), template_literal="")
        self.plan.template_literal = self.literal(template.source)
        self.names: set[str] = set()
        self.imports: set[str] = set()
        self.uses_whitespace = False
        self.names.add("_WHITESPACE")

    def literal(self, value: Any) -> str:
        """``py_literal``, noting when the expression needs the json module."""
        expr = py_literal(value)
        if expr.startswith("_json."):
            self.plan.uses_json = True
        return expr

    def const(self, stem: str) -> str:
        return _identifier(stem.upper(), self.names, "_")

    def data(self, stem: str, comment: str, value: Any) -> str:
        """A module-level constant holding template data, referenced by name."""
        name = self.const(stem)
        expr = self.literal(value)
        self.plan.data_consts.append((name, comment, expr))
        return name

    def regex_const(self, stem: str, comment: str, pattern: str, searched: bool = False) -> str:
        """A compiled pattern; ``searched``: also what long end-of-stream searches need."""
        name = self.const(stem)
        const = RegexConst(name, comment, repr(pattern))
        prefix = literal_prefix(pattern) if searched else None
        if prefix is not None:
            self.names.update((f"{name}_PREFIX", f"{name}_RARE"))
            self.imports.add("from rtc.runtime.matching import LONG_SPAN, search_literal_led")
            const.prefix = repr(prefix)
            const.rare = rarest_index(prefix)
            const.rare_comment = comment_text(prefix[const.rare])
        self.plan.regexes.append(const)
        self.plan.uses_regex = True
        return name

    def literal_const(self, name: str, comment: str, literal: str) -> None:
        self.names.update((f"{name}_LEN", f"{name}_RARE"))
        rare = rarest_index(literal)
        self.plan.literal_consts.append(
            LiteralConst(name, comment, repr(literal), rare, comment_text(literal[rare]))
        )
        self.imports.add("from rtc.runtime.matching import LONG_SPAN, find_literal")

    def watch(self, delim: Delimiter, role: str, f: Field, target: int) -> Watch:
        comment = f"{role} {comment_text(f.name)}: {self.describe(delim)}"
        single = delim.single_literal
        if single is not None:
            self.imports.add("from rtc.runtime.matching import literal_tail")
            # The literal lives in one named constant, so changing it changes one line here.
            const = self.const(f"{role}_{f.name}")
            while f"{const}_LEN" in self.names or f"{const}_RARE" in self.names:
                const = self.const(f"{role}_{f.name}")
            self.literal_const(const, comment, single)
            return Watch(comment, "literal", target, const, f"{const}_LEN")
        ahead = None if delim.is_literal else lookahead_literal(delim.pattern)
        if ahead is not None:
            # (?=[\s\S]*?L): an empty match at pos when L occurs ahead, else a partial match
            # holding everything from pos (see prefilter.lookahead_literal).
            const = self.const(f"{role}_{f.name}_ahead")
            while f"{const}_LEN" in self.names or f"{const}_RARE" in self.names:
                const = self.const(f"{role}_{f.name}_ahead")
            self.literal_const(const, f"{comment}: the literal it looks for", ahead)
            return Watch(comment, "lookahead", target, const, f"{const}_LEN")
        rest = None if delim.is_literal else whitespace_led(delim.pattern)
        const = self.regex_const(
            f"{role}_{f.name}",
            comment,
            delim.pattern,
            searched=not delim.is_literal and rest is None,
        )
        ws_lead = ""
        if rest is not None:
            ws_lead = self.regex_const(
                f"{role}_{f.name}_after_ws",
                f"{comment}, after its leading \\s*",
                rest,
                searched=True,
            )
            self.uses_whitespace = True
        prefix = next(r.prefix for r in self.plan.regexes if r.name == (ws_lead or const))
        return Watch(
            comment,
            "regex",
            target,
            regex_const=const,
            grows_at_edge=not delim.is_literal or delim.can_extend,
            captures=role == "open" and bool(delim.group_names),
            ws_lead_const=ws_lead,
            list_maxlen=max(map(len, delim.literals)) if delim.is_literal else 0,
            led_by_literal=bool(prefix),
        )

    @staticmethod
    def first_chars(delims: list[Delimiter | None]) -> tuple[str, list[str]] | None:
        """Characters and character classes that can begin any of ``delims``, or None."""
        chars: dict[str, None] = {}
        classes: dict[str, None] = {}
        for delim in delims:
            if delim is None:
                continue
            if delim.is_literal:
                chars.update((literal[0], None) for literal in delim.literals)
                continue
            frags = first_fragments(delim.pattern)
            if frags is None:
                return None
            for frag in frags:
                if len(frag) == 1:
                    chars[frag] = None
                else:
                    classes[frag] = None
        return "".join(chars), list(classes)

    @staticmethod
    def describe(delim: Delimiter) -> str:
        if delim.single_literal is not None:
            return f"literal {comment_text(delim.single_literal)}"
        if delim.is_literal:
            shown = ", ".join(comment_text(x, 30) for x in delim.literals[:6])
            more = ", ..." if len(delim.literals) > 6 else ""
            return f"literals [{shown}{more}]"
        return f"pattern {comment_text(delim.pattern)}"

    def lower(self) -> Plan:
        t, plan = self.t, self.plan
        fn_names: set[str] = set()
        for f in t.fields:
            plan.fields.append(self.lower_field(f, fn_names))
        plan.implicit = t.implicit.index if t.implicit else -1
        # State "outside": the implicit region (or the null sink) watches every open, in
        # tie-break order (opens first, then by field name as a plain string), then the
        # implicit field's close.
        outside: list[Watch] = []
        opens = sorted((f for f in t.fields if f.open is not None), key=lambda f: f.name)
        for f in opens:
            assert f.open is not None
            outside.append(self.watch(f.open, "open", f, f.index))
        if t.implicit is not None and t.implicit.close is not None:
            outside.append(self.watch(t.implicit.close, "close", t.implicit, _TARGET_CLOSE))
        for rank, w in enumerate(outside):
            w.rank = rank
        # Cheapest first, as a candidate found early bounds the searches after it: single
        # literals, literal lists, other patterns, then patterns led by a literal (skipped when
        # that literal cannot start by the candidate). Stable; the rank decides ties anyway.
        outside.sort(key=_search_order)
        where = (
            f"the implicit field {comment_text(t.implicit.name)}"
            if t.implicit
            else "the null sink (no implicit field: text here is dropped)"
        )
        plan.states.append(
            State(
                "_scan_outside",
                f"Outside explicit regions: {where}.",
                outside,
                self.first_chars(
                    [f.open for f in opens] + [t.implicit.close if t.implicit is not None else None]
                ),
            )
        )
        table = {-1: "_scan_outside"}
        scan_names: set[str] = {"_scan_outside"}
        for f in t.fields:
            if f.implicit:
                table[f.index] = "_scan_outside"
                continue
            fn = _identifier(f.name, scan_names, "_scan_in_")
            watches = []
            if f.close is not None:
                watches.append(self.watch(f.close, "close", f, _TARGET_CLOSE))
                doc = f"Inside {comment_text(f.name)}: only its close is watched."
            else:
                doc = f"Inside {comment_text(f.name)}: no close, the region runs to the end."
            plan.states.append(State(fn, doc, watches, self.first_chars([f.close])))
            table[f.index] = fn
        plan.scanner_table = [table[i] for i in range(-1, len(t.fields))]
        jumpy = any(
            _jumps_back(d.pattern)
            for f in t.fields
            for d in (f.open, f.close)
            if d is not None and not d.is_literal
        )
        for state in plan.states:
            state.empty_at_end = bool(state.watches) and state.first_chars is not None and not jumpy
        slot = 0
        for state in plan.states:
            for w in state.watches:
                w.memo = slot
                slot += 1
        plan.memo_size = slot
        self.lower_fast_paths(table)
        self.lower_context()
        self.lower_output()
        self.lower_anchor()
        probes = {fp.cur: fp.probe for fp in plan.fast_paths}
        plan.serving = lower_serving(t, probes, self.names)
        if plan.serving.patterns:
            plan.uses_regex = True
        plan.runtime_imports = _merge_imports(self.imports)
        if self.uses_whitespace:
            plan.regexes.append(
                RegexConst(
                    "_WHITESPACE", "what \\s matches, for whitespace-led patterns", repr("\\s")
                )
            )
        return plan

    def lower_fast_paths(self, table: dict[int, str]) -> None:
        """Per region, the test that lets ``feed()`` pass a chunk straight through."""
        by_function = {state.function: state for state in self.plan.states}
        first = -1 if self.t.implicit is None else 0  # no null sink beside an implicit field
        consts: dict[str, str] = {}
        for cur in range(first, len(self.t.fields)):
            state = by_function[table[cur]]
            if state.first_chars is None:
                continue
            chars, classes = state.first_chars
            f = self.t.fields[cur] if cur >= 0 else None
            where = "the null sink" if f is None else comment_text(f.name)
            if not chars and not classes:
                test = "True"
                probe = "frozenset()"
                comment = f"{where}: nothing is watched"
            elif len(chars) == 1 and not classes:
                test = f"{chars!r} not in text"
                probe = repr(chars)
                comment = f"{where}: no {comment_text(chars)} in the chunk"
            else:
                const = consts.get(state.function)
                if const is None:
                    const = consts[state.function] = self.const(
                        f"first_{state.function.strip('_')}"
                    )
                    if classes:
                        source = class_source(chars, classes)
                        expr = f"regex.compile({source!r}, regex.DOTALL)"
                        self.plan.uses_regex = True
                    else:
                        expr = f"frozenset({chars!r})"
                    self.plan.fast_consts.append((const, expr))
                probe = const
                if classes:
                    test = f"{const}.search(text) is None"
                    shown = comment_text(class_source(chars, classes))
                    comment = f"{where}: nothing matching {shown} in the chunk"
                else:
                    test = f"{const}.isdisjoint(text)"
                    comment = f"{where}: none of {comment_text(chars)} in the chunk"
            if len(self.plan.fast_paths) >= MAX_FAST_PATHS:
                # An if/elif chain nests in Python's parser: keep it short. Regions past the
                # limit take the ordinary path, which gives the same events.
                break
            self.plan.fast_paths.append(
                FastPath(
                    cur=cur,
                    comment=comment,
                    test=test,
                    name_literal=repr(f.name) if f is not None else "None",
                    dirty=f is not None and f.content not in ("text", "int", "float", "bool"),
                    lazy_open=f is not None and f.implicit,
                    probe=probe,
                )
            )

    def lower_context(self) -> None:
        patterns = [
            d.pattern
            for f in self.t.fields
            for d in (f.open, f.close)
            if d is not None and not d.is_literal
        ]
        self.plan.whole_pass_exact = not any(
            _START_SENSITIVE.search(p) or _jumps_back(p) for p in patterns
        )
        if not patterns:
            self.plan.context = "0"
            self.plan.context_note = "literal delimiters only: consumed text is never needed"
        elif any(_LOOKS_BACK.search(p) or _jumps_back(p) for p in patterns):
            self.plan.context = "None"
            self.plan.context_note = (
                "a pattern may look behind arbitrarily far: the whole buffer is kept "
                "(cost grows with the generation, as in the reference)"
            )
        elif not any(_needs_context(p) for p in patterns):
            self.plan.context = "0"
            self.plan.context_note = (
                "no pattern looks before the search position: consumed text is never needed"
            )
        else:
            self.plan.context = str(PATTERN_CONTEXT)
            self.plan.context_note = (
                f"patterns see at most {PATTERN_CONTEXT} characters of consumed text "
                "(enough for \\b, \\B, (?m)^ and the start of the buffer)"
            )

    def lower_output(self) -> None:
        t, plan = self.t, self.plan
        if fits_inline(t.defaults):
            plan.new_output_expr = self.literal(t.defaults)
        else:
            name = self.data("defaults", "the template's defaults", t.defaults)
            plan.new_output_expr = f"_copy.deepcopy({name})"
            plan.uses_copy = True
        plan.default_keys = (
            "frozenset(" + self.literal(sorted(t.defaults)) + ")" if t.defaults else "frozenset()"
        )
        required = [f.name for f in t.fields if not f.optional]
        plan.required = (
            "(" + ", ".join(repr(n) for n in required) + ("," if len(required) == 1 else "") + ")"
        )

    def lower_anchor(self) -> None:
        anchor = self.t.start_anchor
        plan = self.plan
        plan.anchor_comment = self.describe(anchor)
        if anchor.is_literal and _never_overlap(anchor.literals):
            plan.anchor_rfind = self.literal(list(anchor.literals))
        elif anchor.single_literal is not None:
            plan.anchor_literal = repr(anchor.single_literal)
            plan.anchor_length = len(anchor.single_literal)
        else:
            plan.anchor_regex = self.regex_const(
                "start_anchor", plan.anchor_comment, anchor.pattern
            )

    def lower_field(self, f: Field, fn_names: set[str]) -> FieldPlan:
        fn = _identifier(f.name, fn_names, "_finish_")
        lines = [f"content = {self.content_expr(f)}"]
        if f.has_transform:
            lines.append(f"return {self.transform_expr(f)}")
        else:
            lines.append("return content")
        if f.join is not None:
            store = 2
        elif f.repeats:
            store = 1
        else:
            store = 0
        return FieldPlan(
            index=f.index,
            name_literal=repr(f.name),
            comment=comment_text(f.name),
            function=fn,
            value_lines=lines,
            dirty=f.content not in ("text", "int", "float", "bool"),
            store=store,
            join_literal=repr(f.join),
        )

    def content_expr(self, f: Field) -> str:
        args = f.content_args
        if isinstance(args, dict) and f.content in ("text", "int", "float", "bool"):
            # The arguments are known now: specialise the text rule (strip or not).
            text = "body.strip()" if args.get("strip", True) else "body"
            if f.content == "text":
                return text
            if f.content == "int":
                return f"int({text})"
            if f.content == "float":
                return f"float({text})"
            return f'{text}.lower() in ("true", "1")'
        parser = {
            "text": "parse_text",
            "int": "parse_int",
            "float": "parse_float",
            "bool": "parse_bool",
            "json": "parse_json",
            "xml-inline": "parse_xml_inline",
            "kv-lines": "parse_kv_lines",
        }[f.content]
        self.imports.add(f"from rtc.runtime.content import {parser}")
        const = self.data(f"args_{f.name}", f"content_args of {comment_text(f.name)}", args)
        return f"{parser}(body, {const})"

    def transform_expr(self, f: Field) -> str:
        transform = f.transform
        if not f.transform_each and fits_inline(transform):
            return self.render_expr(transform)
        self.imports.add("from rtc.runtime.transform import apply")
        const = self.data(f"transform_{f.name}", f"transform of {comment_text(f.name)}", transform)
        return f"apply({f.name!r}, content, {const}, {f.transform_each!r}, captures)"

    def render_expr(self, node: Any) -> str:
        """A Python expression building the transform's output, evaluated like the reference."""
        if isinstance(node, dict):
            items = ", ".join(f"{k!r}: {self.render_expr(v)}" for k, v in node.items())
            return "{" + items + "}"
        if isinstance(node, list):
            return "[" + ", ".join(self.render_expr(v) for v in node) + "]"
        if isinstance(node, str):
            whole = PLACEHOLDER.fullmatch(node)
            if whole is None:
                return repr(node)
            path = whole.group(1)
            root, *keys = path.split(".")
            base = "content" if root == "content" else f"captures[{root!r}]"
            if not keys:
                return base
            self.imports.add("from rtc.runtime.transform import lookup")
            return f"lookup({base}, {path!r}, {tuple(keys)!r})"
        return self.literal(node)


def lower(template: Template) -> Plan:
    return _Lowering(template).lower()
