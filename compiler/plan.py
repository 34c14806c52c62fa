"""The plan: what the code templates render, as typed data.

Everything the reference decides again on every ``feed()`` is decided once by the lowering
(``rtc.compiler.lowering``): which delimiters each parser state watches and in which tie-break
order, how each delimiter is searched in partial mode and at the end of the stream, what lets a
chunk pass straight through, how each field turns its body into a value and stores it. The
dataclasses below hold those decisions; the code templates only lay them out. Nothing here is
Python source except names of module constants and ``repr``s of template data (``Literal``).

This module is a leaf: it imports nothing of the compiler.
"""

from __future__ import annotations

import enum
import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .regex_syntax.json_value import JsonShape
    from .regex_syntax.positions import Positions


def template_sha256(template: dict[str, Any]) -> str:
    """sha256 of the template's canonical JSON (key order kept: it is observable)."""
    canonical = json.dumps(template, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


CLOSE = -2
"""``Watch.target`` of a close: it closes the current region instead of opening a field."""


class Store(enum.IntEnum):
    """How a field stores each value (``rtc.runtime.loop.STORE_*``)."""

    SET = 0
    APPEND = 1  # repeats
    JOIN = 2  # repeats with a join separator


class Shape(enum.Enum):
    """How a delimiter is found; each has its argument in ``lowering.delimiters``."""

    LITERAL = "literal"  # one literal: str.find; a complete match is final at once
    LITERAL_PATTERN = "literal pattern"  # a pattern that is one literal: at the edge it waits
    LITERAL_SPACES = "literal, then spaces"  # L\s*
    LITERALS = "literals"  # a list of literals (or an alternation of them): str.find of each
    REGEX_LITERALS = "many literals"  # a long list: one regex search
    LOOKAHEAD = "look-ahead"  # (?=[\s\S]*?L): str.find of L
    REGEX = "regex"  # the regex module (and its re twin at the end of the stream)


@dataclass(frozen=True)
class Literal:
    """A module constant holding a literal: ``NAME = 'text'``, ``NAME_LEN`` and ``NAME_RARE``
    (the index of its rarest character, where long searches look first)."""

    name: str
    comment: str
    source: str  # repr of the literal
    length: int
    rare: int
    rare_char: str  # the rarest character, for the comment
    text: str = ""  # the literal itself


@dataclass(frozen=True)
class LiteralList:
    """A constant holding literals for ``find_any``: ``((literal, length, rare), ...)``,
    longest first; with ``alternation``, also ``NAME_RE``, their alternation compiled by re."""

    name: str
    comment: str
    items: tuple[tuple[str, int, int], ...]  # (repr, length, rare)
    alternation: str  # repr of the alternation's source, or "" for none
    maxlen: int
    texts: tuple[str, ...] = ()  # the literals themselves, longest first


@dataclass(frozen=True)
class Twin:
    """An ``re`` twin of a pattern (``regex_syntax.twin``)."""

    source: str  # repr
    ascii_only: bool  # compiled with re.ASCII; runs only where the text is ASCII


@dataclass(frozen=True)
class Pattern:
    """A compiled pattern constant (the regex module, DOTALL), with what long searches and
    end-of-stream searches use of it."""

    name: str
    comment: str
    source: str  # repr of the pattern
    twin: Twin | None = None
    prefix: Literal | None = None  # literal text every match begins with (NAME_PREFIX)


@dataclass(frozen=True)
class Growing:
    """How the runtime checks, once, that a watch's held match keeps growing
    (``regex_syntax.growth``; ``runtime.growing.Growing``): the held text is the first of
    ``literals`` it starts with, then only characters it may grow by; or ``pattern`` (a
    compiled constant's name) matches at the held text's start, ending at the end of the buffer
    (``prefix`` ""), or the held text is ``prefix`` then only such characters. It may grow by
    whitespace (``stops`` None) or by any character but those in ``stops``."""

    literals: tuple[str, ...] = ()
    pattern: str | None = None
    prefix: str = ""
    stops: str | None = None
    run: str | None = None  # or by what a class accepts: a constant's name, its run compiled
    skip: int = 0  # or: ``pattern`` matches there and the held text from here on grows alike


@dataclass(frozen=True)
class Watch:
    """One delimiter watched in one state, with how it is searched in both modes."""

    comment: str
    shape: Shape
    target: int  # field index to open, or CLOSE
    rank: int  # tie-break among equal spans: opens before closes, then field name
    memo: int  # slot of its end-of-stream result
    literal: Literal | None = None  # LITERAL, LITERAL_PATTERN, LITERAL_SPACES, LOOKAHEAD
    literals: LiteralList | None = None  # LITERALS
    pattern: Pattern | None = None  # REGEX, REGEX_LITERALS: what is searched
    # The whole delimiter's pattern, searched in partial mode when no shape applies there.
    streamed: Pattern | None = None
    maxlen: int = 0  # REGEX_LITERALS: the longest literal
    grows: bool = True  # a complete match ending at the buffer's end stays pending
    back_over_ws: bool = False  # \s*REST: REST's match extended back over whitespace
    end: str = ""  # R|$ ("$") or R|\Z ("Z"): R's match, or the empty match at the end
    captures: bool = False  # pass the match on: the open pattern has named groups
    can_be_empty: bool = True  # it may match the empty string (or it is not known)
    how: str = ""  # how it is found at the end of the stream, for the comment
    # REGEX while streaming: (core, lead) characters, sorted, when the search can be skipped
    # in text from the search position that holds no core character and does not end in a
    # lead one (see lowering.delimiters.skippable); None: always searched.
    needs: tuple[str, str] | None = None
    growing: tuple[Growing, ...] = ()  # how its held match may keep growing through whitespace
    # A search of it from one position may answer later ones in the same pass (rtc.runtime.ahead):
    # a literal, or a pattern whose match at a position depends only on the text there.
    remembered: bool = True

    @property
    def bounded(self) -> bool:
        """Whether an end-of-stream search may stop at the candidate found so far (a match
        cannot reach back before its own start, nor an end alternative lie past it)."""
        return not self.back_over_ws and not self.end


@dataclass(frozen=True)
class Fast:
    """What lets ``feed()`` pass a chunk straight through in one state (``runtime.fast_path.Fast``):
    every match of a watched delimiter contains one of ``core``; before it, only ``lead``."""

    core: str  # the characters (sorted, no repeats); "" when nothing is watched
    lead: str  # "" or a constant's name holding the lead characters (e.g. SPACES_STR)
    star: bool
    dollar: bool
    late: bool  # only once text was consumed (a ^ alternative cannot match after that)
    why: str  # for the comment
    runs: bool = False  # a held whitespace run stays held while whitespace is appended
    # The literal-shaped watches whose pending match keeps held text held (see
    # lowering.states.pending_literals): (the constant it searches, led by \s*).
    pending: tuple[tuple[str, bool], ...] = ()
    # The parser keeps consumed text, but this state need not (lowering.states.drops).
    drops: bool = False
    # The characters one of which stands just before the match of an alternative that begins
    # with a look-behind (lowering.delimiters.pattern_facts: a guard); "" for none.
    behind: str = ""
    # Every watch is a literal the fast path finds itself (lowering.states.literals_only).
    literals: bool = False
    # A pattern watch may hold text at the search position (lowering.states.pending_patterns).
    patterns: bool = False
    # With patterns: the position automata (constant names) of the pattern watches that may be
    # pending there, which read a chunk instead of the scanner (lowering.states.pending_steps).
    steps: tuple[str, ...] = ()
    # The literals every match of every watch, complete or partial, begins with
    # (lowering.states.start_literals): the literal and literal-list constants of the state's
    # literal watches (their names), and its patterns' leading literals (their text); both
    # empty where that is not known.
    starts: tuple[str, ...] = ()
    starts_text: tuple[str, ...] = ()
    # The same for the watches led by \s* (their matches begin with whitespace, then one).
    starts_led: tuple[str, ...] = ()
    starts_led_text: tuple[str, ...] = ()


@dataclass(frozen=True)
class Combined:
    """One ``re`` search for every delimiter of a state at the end of the stream, over short
    spans of text (see lowering.states): ``NAME`` the alternation (one group per delimiter,
    ``matching.one_search`` of their constants), ``NAME_TARGETS`` each group's target."""

    name: str
    parts: tuple[tuple[str, bool, bool], ...]  # (literal constant, led by \s*, followed by)
    targets: tuple[int, ...]


@dataclass(frozen=True)
class State:
    """A parser state: the implicit region or null sink ("outside"), or inside a field."""

    suffix: str  # the functions are _scan_<suffix> and _eos_<suffix>
    doc: str
    watches: tuple[Watch, ...]
    fast: Fast | None
    empty_at_end: bool  # every watched delimiter needs at least one more character
    long_text: bool  # its end-of-stream searches test whether the rest of the text is long
    combined: Combined | None = None
    # Its watches' held matches that may keep growing through whitespace, in watch order.
    growing: tuple[Growing, ...] = ()
    # The watches in the order the streaming scanner searches them (lowering.states.streamed).
    streamed: tuple[Watch, ...] = ()
    # The characters one of which every watch needs from the search position on to match,
    # completely or in part (lowering.states.scan_skip); "": the scanner always searches.
    skip: str = ""


class ContentKind(enum.Enum):
    """How a content parser is written in the module."""

    TEXT = "text"  # body.strip() or body
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    JSON = "json"  # json_value
    JSON_OR_TEXT = "json or text"  # json_or_text
    JSON_WITH = "json dialect"  # json_with
    TAGS = "tags"  # an xml-inline loop written out in the module (_tags_<field>)
    XML_INLINE = "xml-inline"  # xml_inline_with
    KV_LINES = "kv-lines"  # kv_lines_with
    GENERAL = "general"  # the runtime's parser with content_args as data


@dataclass(frozen=True)
class Content:
    """A content parser, specialised to its ``content_args`` where they are plain data."""

    kind: ContentKind
    strip: bool = True  # TEXT, INT, FLOAT, BOOL; KV_LINES; JSON_OR_TEXT
    const: str = ""  # string delims (JSON_WITH), tag pattern, args (GENERAL)
    twin: str = ""  # the tag pattern's re twin constant
    twin_ascii: bool = False
    unquoted: bool = False  # JSON_WITH
    non_json: int = 0  # JSON_WITH: 0, 1 (text, stripped), 2 (text as it is)
    function: str = ""  # TAGS: the function; GENERAL: the runtime parser
    merge: bool = False  # XML_INLINE
    value: str = "None"  # XML_INLINE, KV_LINES: the value parser function, or None
    line_sep: str = ""  # KV_LINES, repr
    kv_sep: str = ""


@dataclass(frozen=True)
class ContentPattern:
    """A pattern a content parser uses, compiled once: a tag pattern (``source``, the regex
    module), its ``re`` twin, or ``string_delims`` (``pairs``: each opener and closer, as the
    reference turns them into ``opener(.*?)closer``)."""

    name: str
    comment: str
    source: str = ""  # repr of the pattern
    twin: Twin | None = None
    pairs: tuple[tuple[str, str], ...] = ()  # string_delims: reprs of opener and closer


@dataclass(frozen=True)
class TagsFunction:
    """An xml-inline parser without merging, its loop written out: groups read by number."""

    name: str
    comment: str
    pattern: str  # constant of the tag pattern
    twin: str  # its re twin constant, or ""
    twin_ascii: bool
    key_group: int
    value_group: int
    value: Content | None  # applied to each raw value; None: the raw text
    # The literal every match ends with when the pattern reads nothing past it (repr, length):
    # the search stops after its last occurrence (regex_syntax.literal_suffix); "" if none.
    end: str = ""
    end_len: int = 0


@dataclass(frozen=True)
class ValueFunction:
    """A value parser of xml-inline / kv-lines, as a function of ``raw``."""

    name: str
    comment: str
    content: Content


class NodeKind(enum.Enum):
    DICT = "dict"
    LIST = "list"
    DATA = "data"  # a JSON value written as it is
    PLACEHOLDER = "placeholder"


@dataclass(frozen=True)
class Node:
    """One node of a transform, rendered as the expression building it."""

    kind: NodeKind
    items: tuple[tuple[str, Node], ...] = ()  # DICT: (repr of key, value); LIST: ("", item)
    source: str = ""  # DATA: its expression (py_literal)
    root: str = ""  # PLACEHOLDER: repr of its root name
    path: str = ""  # PLACEHOLDER: repr of the dotted path, when it has keys after the root
    keys: str = ""  # PLACEHOLDER: repr of the tuple of those keys


@dataclass(frozen=True)
class Transform:
    """A transform written inline (``node``), or applied by the runtime (``const``)."""

    node: Node | None
    each: bool  # transform_each
    const: str = ""  # the transform as data, for the runtime's apply


@dataclass(frozen=True)
class FieldPlan:
    index: int
    name: str  # repr
    comment: str
    function: str  # _finish_<name>
    content: Content
    transform: Transform | None
    dirty: bool
    store: Store
    join: str  # repr


@dataclass(frozen=True)
class CallPlanSpec:
    """A tool-call field's ``CallPlan`` for the delta layer (see lowering.serving)."""

    why: tuple[str, ...]  # comment lines
    announce: bool = False
    name: str = ""  # repr, or ""
    name_group: str = ""  # repr, or ""
    params: str = ""  # constant of the parameters' tag pattern, or ""
    param_end: str = ""  # repr, or ""
    closes: bool = False  # the field has a close delimiter


@dataclass(frozen=True)
class Serving:
    """The module's ``DeltaStream`` attributes."""

    roles: tuple[str, ...]  # reprs, by field
    strip: tuple[bool, ...]
    calls: tuple[CallPlanSpec | None, ...]
    patterns: tuple[Pattern, ...]


@dataclass(frozen=True)
class Anchor:
    """How the start anchor is found in the prefix (see rtc.runtime.oneshot.truncate)."""

    comment: str
    literals: str = ""  # repr of the tuple of never-overlapping literals
    literal: str = ""  # repr of one literal
    pattern: Pattern | None = None


@dataclass(frozen=True)
class Constant:
    """Template data used at run time, referenced by name."""

    name: str
    comment: str
    source: str


@dataclass
class Imports:
    """What the module imports (besides the fixed header)."""

    runtime: dict[str, set[str]] = field(default_factory=dict)  # module -> names
    json: bool = False
    copy: bool = False
    regex: bool = False
    re: bool = False

    def add(self, module: str, *names: str) -> None:
        self.runtime.setdefault(module, set()).update(names)

    def lines(self) -> list[str]:
        return [
            f"from rtc.runtime.{m} import {', '.join(sorted(self.runtime[m]))}"
            for m in sorted(self.runtime)
        ]


@dataclass
class Plan:
    sha256: str
    template: str  # the source template, as a literal
    imports: Imports
    literals: list[Literal]
    literal_lists: list[LiteralList]
    patterns: list[Pattern]
    # Position automata of patterns (by the pattern constant's name): NAME_STEPS; a JsonShape
    # where the pattern reads the catalogue's JSON value grammar (NAME_STEPS = JsonSteps(...)).
    steps: dict[str, Positions | JsonShape]
    constants: list[Constant]  # template data (content_args, transforms, defaults)
    content_patterns: list[ContentPattern]
    value_functions: list[ValueFunction]
    tags_functions: list[TagsFunction]
    fields: list[FieldPlan]
    states: list[State]
    regions: list[State]  # the state of each region, by field index + 1 (0: outside)
    implicit: int
    context: int | None
    context_note: str
    whole_pass_exact: bool
    memo_size: int
    may_stall: bool  # some delimiter may match the empty string
    required: tuple[str, ...]  # reprs
    defaults: str  # expression of the defaults dict
    anchor: Anchor
    serving: Serving
