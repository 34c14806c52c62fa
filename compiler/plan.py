"""The plan: what the code templates render, and the entry point that builds it.

Everything the reference decides again on every ``feed()`` is decided once by ``lower()``:
which delimiters each parser state watches and in which tie-break order, how each delimiter is
matched (``str.find`` for a single literal, the ``regex`` module for literal lists and
patterns), how much consumed text the patterns can still observe, how each field turns its
body into a value and how it stores it. The dataclasses below hold those decisions as source
text and flags; the code templates only lay these attributes out. The decisions themselves are
made in ``rtc.compiler.lowering``, one module per concern.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from .model import Template


def template_sha256(template: dict[str, Any]) -> str:
    canonical = json.dumps(template, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


@dataclass
class Watch:
    """One delimiter watched in one state, in tie-break order."""

    comment: str
    # "literal" (single literal, str.find), "literals" (a literal list, str.find of each),
    # "lookahead" (see prefilter) or "regex"
    kind: str
    target: int  # field index to open, or -2 for the close of the current region
    literal: str = ""  # name of the constant holding the literal, for kind == "literal"
    length: str = ""  # name of the constant holding its length
    regex_const: str = ""  # the compiled pattern, searched in partial mode (kind == "regex")
    literals_const: str = ""  # the literal list (kind == "literals"; see matching.find_any)
    grows_at_edge: bool = True  # a complete match ending at the buffer end stays pending
    captures: bool = False  # pass the match on: the open pattern has named groups
    rank: int = 0  # tie-break among equal spans: opens before closes, then field name
    memo: int = 0  # slot of this watch in the end-of-stream memo
    eos: Any = None  # how it is found at the end of the stream (lowering.eos.EosSearch)
    eos_lines: list[str] = field(default_factory=list)  # that search's code (sets i, j, m)
    eos_note: str = ""  # what the search does, for the comment above it
    can_be_empty: bool = True  # it may match the empty string (or it is not known)
    groups_const: str = ""  # captures: its named groups by number (the pattern giving `m`)
    one_group: bool = False  # captures: the pattern has exactly one group name


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
    # Its end-of-stream searches test whether the rest of the text is long (long_text).
    eos_long: bool = False


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
    # Its re twin ``NAME_RE`` (see compiler.re_twin): source (repr), flags and where it runs;
    # no source: none.
    twin_source: str = ""
    twin_flags: str = ""
    twin_comment: str = ""


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
    coercible: bool = True  # its value can be a list or dict, which tool typing revisits


@dataclass
class ServingPlan:
    """The attributes of the module's ``DeltaStream``, as source (see lowering.serving)."""

    roles: str = "()"
    strip: str = "()"
    # Per field: the lines of a comment and the expression of its CallPlan (or None).
    calls: list[tuple[list[str], str]] = field(default_factory=list)
    clear: str = "()"
    patterns: list[tuple[str, str, str]] = field(default_factory=list)  # name, comment, pattern
    uses_calls: bool = False


@dataclass
class Plan:
    sha256: str
    template_literal: str
    regexes: list[RegexConst] = field(default_factory=list)
    literal_consts: list[LiteralConst] = field(default_factory=list)
    data_consts: list[tuple[str, str, str]] = field(default_factory=list)  # name, comment, expr
    # Content parsers precompiled from content_args (lowering.content): constants (name,
    # comment, expr) and value-parser functions (name, comment, expression over ``raw``).
    content_consts: list[tuple[str, str, str]] = field(default_factory=list)
    value_functions: list[tuple[str, str, str]] = field(default_factory=list)
    # xml-inline parsers written out: name, comment, body lines (see lowering.content).
    tag_functions: list[tuple[str, str, list[str]]] = field(default_factory=list)
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
    uses_re: bool = False  # an re twin (compiler.re_twin) needs Python's re
    one_group: bool = False  # one-shot pass: every capturing open has one group name
    loop_warning: str = ""
    whole_pass_exact: bool = True
    memo_size: int = 0
    fast_paths: list[FastPath] = field(default_factory=list)
    fast_consts: list[tuple[str, str]] = field(default_factory=list)  # (name, frozenset expr)
    # Literal lists for matching.find_any: (name, comment, tuple expr), see lowering.eos.
    literal_lists: list[tuple[str, str, str]] = field(default_factory=list)
    # The one-shot pass (_run_to_end): each state with the test of ``cur`` that selects it.
    pass_states: list[tuple[str, State]] = field(default_factory=list)
    pass_empty: bool = True  # some delimiter may match the empty string (stall checks needed)
    group_tables: list[tuple[str, str]] = field(default_factory=list)  # (name, pattern const)
    pass_captures: bool = True  # some open pattern passes captures on
    engine_imports: list[str] = field(default_factory=lambda: ["CompiledParser"])
    serving: ServingPlan = field(default_factory=ServingPlan)  # the module's DeltaStream


def lower(template: Template) -> Plan:
    """The plan of a validated template (see ``rtc.compiler.lowering``)."""
    # Imported here: the lowering modules build the dataclasses above.
    from .lowering import lower_template

    return lower_template(template)
