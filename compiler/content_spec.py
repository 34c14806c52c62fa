"""A field's ``content`` and ``content_args``, read once into what each parser kind uses.

The reference reads ``content_args`` with ``args.get`` on every region close. Of a valid
template the arguments are JSON data, so each lookup is a plain dict read with no side effect:
reading them all here gives what the reference reads at run time. What cannot be read without
running the parser (arguments that are not an object, separators that make ``str.split``
fail, a ``tag_pattern`` that does not compile, a value parser that is not a known one...) is
recorded, not decided: then the generated module keeps the runtime's general parser with the
arguments as data, which raises what the reference raises, where it raises it.

Content lowering (``lowering.content``) and the OpenAI serving facts (``lowering.serving``)
both read :class:`ContentSpec`; neither looks into ``content_args`` again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import regex

from rtc.runtime.content import PARSERS

TEXT_KINDS = ("text", "int", "float", "bool")
"""Content kinds whose value is text-like (never a list or dict, never dirty)."""


@dataclass(frozen=True)
class ContentSpec:
    """One content parser and its arguments. ``plain``: every argument its kind uses was read
    (with ``value`` plain too, if any); else ``problem`` says the first that was not, in the
    reference's order of lookups (None where only the value parser is unreadable:
    ``value_ok``)."""

    kind: str
    args: Any  # the arguments as written (the general parser's data)
    is_object: bool
    plain: bool
    problem: str | None = None
    strip: bool = True
    # json
    string_delims: tuple[tuple[str, str], ...] = ()
    unquoted_keys: bool = False
    allow_non_json: bool = False
    # xml-inline
    tag_pattern: str | None = None
    merge_duplicates: bool = False
    # kv-lines
    line_sep: str | None = "\n"
    kv_sep: str = ":"
    # xml-inline and kv-lines: the value parser (None: none), and whether it could be read
    value: ContentSpec | None = None
    value_ok: bool = True

    @property
    def text_like(self) -> bool:
        return self.kind in TEXT_KINDS


def read_content(kind: str, args: Any) -> ContentSpec:
    """The spec of content parser ``kind`` with ``args`` (``content_args``, or a value
    parser's ``args``)."""
    if args.__class__ is not dict:
        # The first args.get raises AttributeError at close: the runtime does it.
        return ContentSpec(kind, args, False, False, "its content_args are not an object")
    strip = bool(args.get("strip", True))
    if kind in TEXT_KINDS:
        return ContentSpec(kind, args, True, True, strip=strip)
    if kind == "json":
        return _json(args, strip)
    if kind == "xml-inline":
        return _xml_inline(args, strip)
    if kind == "kv-lines":
        return _kv_lines(args, strip)
    return ContentSpec(kind, args, True, False, f"its content parser {kind!r} is not known")


def _json(args: dict[str, Any], strip: bool) -> ContentSpec:
    delims = args.get("string_delims", [])
    unquoted = bool(args.get("unquoted_keys", False))
    non_json = bool(args.get("allow_non_json"))
    if delims.__class__ is not list or not all(
        pair.__class__ is list and len(pair) == 2 and all(d.__class__ is str for d in pair)
        for pair in delims
    ):
        # Not pairs of strings: unpacking or escaping fails at close.
        problem = "its string_delims are not pairs of strings"
        return ContentSpec("json", args, True, False, problem, strip)
    pairs = tuple((o, c) for o, c in delims)
    return ContentSpec(
        "json",
        args,
        True,
        True,
        strip=strip,
        string_delims=pairs,
        unquoted_keys=unquoted,
        allow_non_json=non_json,
    )


def _xml_inline(args: dict[str, Any], strip: bool) -> ContentSpec:
    tag_pattern = args.get("tag_pattern")
    value, value_ok = _value(args.get("value_parser"))
    merge = bool(args.get("merge_duplicates", False))
    if tag_pattern.__class__ is not str or not _compiles(tag_pattern):
        # Missing, not a string, or invalid: the error comes at close.
        problem = "its tag_pattern is missing or invalid"
        return ContentSpec("xml-inline", args, True, False, problem, strip)
    return ContentSpec(
        "xml-inline",
        args,
        True,
        value_ok,
        strip=strip,
        tag_pattern=tag_pattern,
        merge_duplicates=merge,
        value=value,
        value_ok=value_ok,
    )


def _kv_lines(args: dict[str, Any], strip: bool) -> ContentSpec:
    line_sep = args.get("line_sep", "\n")
    kv_sep = args.get("kv_sep", ":")
    problem = None
    if not (line_sep is None or (line_sep.__class__ is str and line_sep)):
        problem = "its line_sep can fail"  # an empty or non-string separator fails in split
    elif kv_sep.__class__ is not str or not kv_sep:
        problem = "its kv_sep can fail"
    if problem is not None:
        return ContentSpec("kv-lines", args, True, False, problem, strip)
    value, value_ok = _value(args.get("value_parser"))
    return ContentSpec(
        "kv-lines",
        args,
        True,
        value_ok,
        strip=strip,
        line_sep=line_sep,
        kv_sep=kv_sep,
        value=value,
        value_ok=value_ok,
    )


def _value(value_parser: Any) -> tuple[ContentSpec | None, bool]:
    """A value parser: (None, True) for none; (its spec, True) when it can be read at compile
    time; (None, False) when not (not an object, an unknown parser name, arguments that need
    the general parser)."""
    if value_parser is None:
        return None, True
    if value_parser.__class__ is not dict:
        return None, False
    kind = value_parser.get("name", "text")
    if kind.__class__ is not str or kind not in PARSERS:
        return None, False
    spec = read_content(kind, value_parser.get("args", {}))
    return (spec, True) if spec.plain else (None, False)


def _compiles(pattern: str) -> bool:
    try:
        regex.compile(pattern, regex.DOTALL)
    except Exception:  # regex.error, or anything else: the runtime reports it at close
        return False
    return True
