"""Content parsers: everything derived from ``content_args``, decided once.

The reference reads a field's ``content_args`` on every region close (``args.get`` in a fixed
order) and rebuilds what it derives from them: the ``string_delims`` patterns (escape, compile,
cache lookup), the ``tag_pattern`` of ``xml-inline``, the value parser it looks up by name. When
the arguments are plain data this module reads them at compile time instead: the patterns
become named module-level constants (a comment names the argument each comes from), a value
parser a small function, and the parser the call of the runtime's ``json_with`` /
``xml_inline_with`` / ``kv_lines_with`` with the decided flags. The reading itself (which
arguments each kind uses, which could be read) is ``rtc.compiler.content_spec``'s: this module
turns a read spec into code.

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

import regex

from ..content_spec import ContentSpec
from ..literals import comment_text
from ..plan import Content, ContentKind, ContentPattern, TagsFunction, Twin, ValueFunction
from ..regex_syntax import parse, re_twin, searches_well
from ..regex_syntax.literal import literal_suffix
from .namespace import Namespace, identifier, twin_note

__all__ = ["content"]

_GENERAL = {
    "text": "parse_text",
    "int": "parse_int",
    "float": "parse_float",
    "bool": "parse_bool",
    "json": "parse_json",
    "xml-inline": "parse_xml_inline",
    "kv-lines": "parse_kv_lines",
}
_TEXT = {
    "text": ContentKind.TEXT,
    "int": ContentKind.INT,
    "float": ContentKind.FLOAT,
    "bool": ContentKind.BOOL,
}


def content(ns: Namespace, name: str, spec: ContentSpec) -> Content:
    """The content parser of field ``name``: specialised where its arguments were read
    (``spec.plain``), else the runtime's general parser with the arguments as data."""
    if spec.plain:
        return _parser(ns, spec, f"content_args of {comment_text(name, 30)}", name)
    function = _GENERAL[spec.kind]
    ns.imports.add("content", function)
    const = ns.data(f"args_{name}", f"content_args of {comment_text(name)}", spec.args)
    return Content(ContentKind.GENERAL, const=const, function=function)


def _parser(ns: Namespace, spec: ContentSpec, where: str, stem: str) -> Content:
    if spec.text_like:
        return Content(_TEXT[spec.kind], strip=spec.strip)
    if spec.kind == "json":
        return _json(ns, spec, where, stem)
    if spec.kind == "xml-inline":
        return _xml_inline(ns, spec, where, stem)
    return _kv_lines(ns, spec, where, stem)


def _json(ns: Namespace, spec: ContentSpec, where: str, stem: str) -> Content:
    delims = spec.string_delims
    non_json = (1 if spec.strip else 2) if spec.allow_non_json else 0
    const = "()"
    if delims:
        # Each pair's opener, and the pattern the reference builds from the pair.
        const = ns.name(f"{stem}_string_delims")
        pairs = tuple((ns.literal(o), ns.literal(c)) for o, c in delims)
        shown = ", ".join(f"{comment_text(o, 12)}...{comment_text(c, 12)}" for o, c in delims[:2])
        more = ", ..." if len(delims) > 2 else ""
        ns.content_pattern(
            ContentPattern(const, f"{where}: string_delims {shown}{more}", pairs=pairs)
        )
    if not delims and not spec.unquoted_keys:
        # No dialect: plain JSON, or JSON else the text (allow_non_json).
        if non_json:
            ns.imports.add("content", "json_or_text")
            return Content(ContentKind.JSON_OR_TEXT, strip=non_json == 1)
        ns.imports.add("content", "json_value")
        return Content(ContentKind.JSON)
    ns.imports.add("content", "json_with")
    return Content(
        ContentKind.JSON_WITH, const=const, unquoted=spec.unquoted_keys, non_json=non_json
    )


def _xml_inline(ns: Namespace, spec: ContentSpec, where: str, stem: str) -> Content:
    tag_pattern = spec.tag_pattern
    assert tag_pattern is not None  # (a plain xml-inline spec has one)
    value = _value(ns, spec.value, where, stem)
    const = ns.name(f"{stem}_tag_pattern")
    ns.content_pattern(ContentPattern(const, f"{where}: tag_pattern", ns.literal(tag_pattern)))
    made = re_twin(tag_pattern) if searches_well(tag_pattern) else None
    twin = ""
    if made is not None:
        twin = ns.name(f"{const}_re")
        found = Twin(repr(made.source), made.ascii_only)
        comment = f"{where}: tag_pattern's re twin (regex_syntax.twin), {twin_note(found)}"
        ns.content_pattern(ContentPattern(twin, comment, twin=found))
    ascii_only = made is not None and made.ascii_only
    groups = regex.compile(tag_pattern, regex.DOTALL).groupindex
    if not spec.merge_duplicates and "key" in groups and "value" in groups:
        # xml_inline_with's loop without merging, written out: the groups read by the numbers
        # decided here, the value parser's expression inline (no call per value).
        function = identifier(stem, ns.names, "_tags_")
        suffix = literal_suffix(parse(tag_pattern))
        ns.imports.add("content", "missing_key")
        ns.tags_functions.append(
            TagsFunction(
                function,
                f"{where}: xml-inline, each tag_pattern match read by group number",
                const,
                twin,
                ascii_only,
                groups["key"],
                groups["value"],
                value[1] if value is not None else None,
                ns.literal(suffix) if suffix is not None else "",
                len(suffix) if suffix is not None else 0,
            )
        )
        return Content(ContentKind.TAGS, function=function)
    ns.imports.add("content", "xml_inline_with")
    return Content(
        ContentKind.XML_INLINE,
        const=const,
        twin=twin,
        twin_ascii=ascii_only,
        merge=spec.merge_duplicates,
        value=_value_function(ns, value, where, stem),
    )


def _kv_lines(ns: Namespace, spec: ContentSpec, where: str, stem: str) -> Content:
    value = _value(ns, spec.value, where, stem)
    ns.imports.add("content", "kv_lines_with")
    return Content(
        ContentKind.KV_LINES,
        strip=spec.strip,
        line_sep=ns.literal(spec.line_sep),
        kv_sep=ns.literal(spec.kv_sep),
        value=_value_function(ns, value, where, stem),
    )


def _value(
    ns: Namespace, value: ContentSpec | None, where: str, stem: str
) -> tuple[str, Content] | None:
    """A value parser read at compile time: None for none, else (description, its content
    parser)."""
    if value is None:
        return None
    found = _parser(ns, value, f"{where}: value_parser", f"{stem}_value")
    comment = f"{where}: value_parser {value.kind}"
    if value.args:
        comment += " with " + ", ".join(comment_text(str(k), 20) for k in list(value.args)[:4])
    return comment, found


def _value_function(ns: Namespace, value: tuple[str, Content] | None, where: str, stem: str) -> str:
    """A generated function applying the value parser to ``raw`` ("None" for none)."""
    if value is None:
        return "None"
    function = identifier(stem, ns.names, "_value_")
    ns.value_functions.append(ValueFunction(function, value[0], value[1]))
    return function
