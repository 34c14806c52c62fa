"""Precompiled content parsers: everything derived from ``content_args``, decided once.

The reference reads a field's ``content_args`` on every region close (``args.get`` in a fixed
order) and rebuilds what it derives from them: the ``string_delims`` patterns (escape, compile,
cache lookup), the ``tag_pattern`` of ``xml-inline``, the value parser it looks up by name. When
the arguments are plain data this module reads them at compile time instead and writes the
result into the generated module: the patterns as named module-level constants (a comment names
the argument each comes from), a value parser as a small function, and the call of the runtime's
``json_with`` / ``xml_inline_with`` / ``kv_lines_with`` with the decided flags.

Why this is exact: ``content_args`` of a valid template is JSON data, so each ``args.get`` is a
plain dict lookup with no side effect, and reading all of them at compile time returns what the
reference reads at run time; their order only matters for arguments that make a lookup fail
(``content_args`` not a dict, ``value_parser`` not a dict, ...). Every argument the runtime uses
is specialised only for values whose use cannot raise by itself (``string_delims`` a list of
pairs of strings, a ``tag_pattern`` string that compiles, a non-empty ``kv_sep``, a known value
parser name...); anything else keeps the general runtime parser with the arguments as data, which
raises what the reference raises, where it raises it. ``tests/test_precompiled.py`` runs both on
random bodies and arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import regex

from rtc.runtime.content import PARSERS

from ..literals import comment_text
from ..regex_syntax.twin import re_twin, searches_well
from .namespace import Namespace, identifier, twin_comment

Call = Callable[[str], str]
"""Builds the call that parses the value named by its argument (``body``, ``raw``)."""

_TEXT_KINDS = ("text", "int", "float", "bool")


def precompiled_content(ns: Namespace, name: str, kind: str, args: Any) -> str | None:
    """The expression parsing ``body`` for field ``name``, or None: use the general parser."""
    call = _parser(ns, kind, args, f"content_args of {comment_text(name, 30)}", name)
    return None if call is None else call("body")


def _parser(ns: Namespace, kind: str, args: Any, where: str, stem: str) -> Call | None:
    if args.__class__ is not dict:
        return None  # the first args.get raises AttributeError at close: the runtime does it
    if kind in _TEXT_KINDS:
        return _text_rule(kind, bool(args.get("strip", True)))
    if kind == "json":
        return _json(ns, args, where, stem)
    if kind == "xml-inline":
        return _xml_inline(ns, args, where, stem)
    if kind == "kv-lines":
        return _kv_lines(ns, args, where, stem)
    return None


def _text_rule(kind: str, strip: bool) -> Call:
    def call(x: str) -> str:
        text = f"{x}.strip()" if strip else x
        if kind == "int":
            return f"int({text})"
        if kind == "float":
            return f"float({text})"
        if kind == "bool":
            return f'{text}.lower() in ("true", "1")'
        return text

    return call


def _json(ns: Namespace, args: dict[str, Any], where: str, stem: str) -> Call | None:
    delims = args.get("string_delims", [])
    if delims.__class__ is not list or not all(
        pair.__class__ is list and len(pair) == 2 and all(d.__class__ is str for d in pair)
        for pair in delims
    ):
        return None  # not pairs of strings: unpacking or escaping fails at close
    unquoted = bool(args.get("unquoted_keys", False))
    non_json = 0
    if args.get("allow_non_json"):
        non_json = 1 if args.get("strip", True) else 2
    const = "()"
    if delims:
        # Each pair's opener, and the pattern the reference builds from the pair.
        const = ns.const(f"{stem}_string_delims")
        pairs = ", ".join(
            f"({ns.literal(o)}, regex.compile(regex.escape({ns.literal(o)}) + {'(.*?)'!r} + "
            f"regex.escape({ns.literal(c)}), regex.DOTALL))"
            for o, c in delims
        )
        shown = ", ".join(f"{comment_text(o, 12)}...{comment_text(c, 12)}" for o, c in delims[:2])
        more = ", ..." if len(delims) > 2 else ""
        _add(ns, const, f"{where}: string_delims {shown}{more}", f"({pairs},)")
    if not delims and not unquoted:
        # No dialect: plain JSON, or JSON else the text (allow_non_json).
        if non_json:
            ns.imports.add("from rtc.runtime.content import json_or_text")
            return lambda x: f"json_or_text({x}, strip={non_json == 1})"
        ns.imports.add("from rtc.runtime.content import json_value")
        return lambda x: f"json_value({x})"
    ns.imports.add("from rtc.runtime.content import json_with")
    # non_json: 0 without allow_non_json, else the text on a syntax error (1 stripped, 2 raw).
    return lambda x: f"json_with({x}, {const}, unquoted_keys={unquoted}, non_json={non_json})"


def _xml_inline(ns: Namespace, args: dict[str, Any], where: str, stem: str) -> Call | None:
    tag_pattern = args.get("tag_pattern")
    if tag_pattern.__class__ is not str or not _compiles(tag_pattern):
        return None  # missing, not a string, or invalid: the error comes at close
    value_parser = args.get("value_parser")
    value = _value_expr(ns, value_parser, where, stem)
    if value is None:
        return None
    merge = bool(args.get("merge_duplicates", False))
    const = ns.const(f"{stem}_tag_pattern")
    source = ns.literal(tag_pattern)
    _add(ns, const, f"{where}: tag_pattern", f"regex.compile({source}, regex.DOTALL)")
    found = re_twin(tag_pattern) if searches_well(tag_pattern) else None
    twin = None
    if found is not None:
        twin = ns.const(f"{const}_re")
        comment = f"{where}: tag_pattern's re twin (re_twin), {twin_comment(found)}"
        _add(ns, twin, comment, f"re.compile({found.source!r}, {found.flags})")
        ns.plan.uses_re = True

    def pattern(x: str) -> str:
        if found is None:
            return const
        return f"({twin} if {x}.isascii() else {const})" if found.ascii_only else twin

    groups = regex.compile(tag_pattern, regex.DOTALL).groupindex
    if not merge and "key" in groups and "value" in groups:
        # xml_inline_with's loop without merging, written out: the groups read by the numbers
        # decided here, the value parser's expression inline (no call per value).
        function = identifier(stem, ns.names, "_tags_")
        lines = [
            "result: dict[str, Any] = {}",
            f"for m in {pattern('body')}.finditer(body):",
            f"    key = m[{groups['key']}]",
            "    if key is None:",
            f"        raise missing_key({const}.pattern)",
            f"    raw = m[{groups['value']}]",
            f"    result[key] = {value}",
            "return result",
        ]
        ns.imports.add("from rtc.runtime.content import missing_key")
        comment = f"{where}: xml-inline, each tag_pattern match read by group number"
        ns.plan.tag_functions.append((function, comment, lines))
        return lambda x: f"{function}({x})"
    function_name = _value_function(ns, value, value_parser, where, stem)
    ns.imports.add("from rtc.runtime.content import xml_inline_with")
    return lambda x: (
        f"xml_inline_with({x}, {pattern(x)}, value={function_name}, merge_duplicates={merge})"
    )


def _kv_lines(ns: Namespace, args: dict[str, Any], where: str, stem: str) -> Call | None:
    line_sep = args.get("line_sep", "\n")
    kv_sep = args.get("kv_sep", ":")
    if not (line_sep is None or (line_sep.__class__ is str and line_sep)):
        return None  # an empty or non-string separator fails in str.split at close
    if kv_sep.__class__ is not str or not kv_sep:
        return None
    value = _value_parser(ns, args.get("value_parser"), where, stem)
    if value is False:
        return None
    strip = bool(args.get("strip", True))
    ns.imports.add("from rtc.runtime.content import kv_lines_with")
    seps = f"{ns.literal(line_sep)}, {ns.literal(kv_sep)}"
    return lambda x: f"kv_lines_with({x}, {seps}, strip={strip}, value={value})"


def _value_parser(ns: Namespace, value_parser: Any, where: str, stem: str) -> str | bool:
    """The name of a generated function applying ``value_parser`` to one value, "None" for no
    value parser, or False when it cannot be read at compile time (not a dict, an unknown
    parser name, arguments that need the general parser)."""
    value = _value_expr(ns, value_parser, where, stem)
    if value is None:
        return False
    return _value_function(ns, value, value_parser, where, stem)


def _value_expr(ns: Namespace, value_parser: Any, where: str, stem: str) -> str | None:
    """The expression applying ``value_parser`` to ``raw`` ("raw" for no value parser), or
    None when it cannot be read at compile time (see _value_parser)."""
    if value_parser is None:
        return "raw"
    if value_parser.__class__ is not dict:
        return None
    kind = value_parser.get("name", "text")
    if kind.__class__ is not str or kind not in PARSERS:
        return None
    sub = value_parser.get("args", {})
    call = _parser(ns, kind, sub, f"{where}: value_parser", f"{stem}_value")
    return None if call is None else call("raw")


def _value_function(ns: Namespace, value: str, value_parser: Any, where: str, stem: str) -> str:
    """A generated function computing ``value`` from ``raw`` ("None" for no value parser)."""
    if value_parser is None:
        return "None"
    function = identifier(stem, ns.names, "_value_")
    comment = f"{where}: value_parser {value_parser.get('name', 'text')}"
    sub = value_parser.get("args", {})
    if sub:
        comment += " with " + ", ".join(comment_text(str(k), 20) for k in list(sub)[:4])
    ns.plan.value_functions.append((function, comment, value))
    return function


def _compiles(pattern: str) -> bool:
    try:
        regex.compile(pattern, regex.DOTALL)
    except Exception:  # regex.error, or anything else: the runtime reports it at close
        return False
    return True


def _add(ns: Namespace, name: str, comment: str, expr: str) -> None:
    ns.plan.content_consts.append((name, comment, expr))
    ns.plan.uses_regex = True
