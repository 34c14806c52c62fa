"""Field values: how each field turns its body into a value and how it stores it.

Decides each field's ``_finish_`` function: its content parser (the text rules specialised when
their arguments are known, a runtime parser with its arguments as data otherwise), its
transform (an inline expression built like the reference builds it, or the runtime's ``apply``
with the transform as data), and whether the value is stored once, appended or joined.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rtc.runtime.transform import PLACEHOLDER

from ..literals import comment_text, fits_inline
from ..model import Field
from ..plan import FieldPlan
from .content import precompiled_content
from .namespace import Namespace, identifier

_PARSERS = {
    "text": "parse_text",
    "int": "parse_int",
    "float": "parse_float",
    "bool": "parse_bool",
    "json": "parse_json",
    "xml-inline": "parse_xml_inline",
    "kv-lines": "parse_kv_lines",
}


def lower_field(ns: Namespace, f: Field, fn_names: set[str]) -> FieldPlan:
    fn = identifier(f.name, fn_names, "_finish_")
    lines = [f"content = {content_expr(ns, f)}"]
    if f.has_transform:
        if f.transform_each:
            lines.append("# transform_each: each element of the list, its keys over the captures")
        lines.append(f"return {transform_expr(ns, f)}")
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
        # Text-like parsers give a str, int, float or bool; only a transform or a structured
        # parser can give the list or dict that tool typing looks into.
        coercible=f.has_transform or f.content not in ("text", "int", "float", "bool"),
    )


def content_expr(ns: Namespace, f: Field) -> str:
    args = f.content_args
    # The arguments are known now: where they are plain data, the parser is specialised to them
    # (the text rules inline, the structured ones precompiled; see lowering.content).
    expr = precompiled_content(ns, f.name, f.content, args)
    if expr is not None:
        return expr
    parser = _PARSERS[f.content]
    ns.imports.add(f"from rtc.runtime.content import {parser}")
    const = ns.data(f"args_{f.name}", f"content_args of {comment_text(f.name)}", args)
    return f"{parser}(body, {const})"


def transform_expr(ns: Namespace, f: Field) -> str:
    transform = f.transform
    if fits_inline(transform):
        if not f.transform_each:
            return render_expr(ns, transform, _content_scope)
        # transform_each: the reference renders each element in the scope {**captures,
        # **element}; a root is read from the element when it has that key, else from the
        # captures (a KeyError when neither has it, as the reference's lookup raises). The
        # elements are checked as the reference checks them, each when its turn comes
        # (each_element), so an earlier element's render error still comes first.
        ns.imports.add("from rtc.runtime.transform import each_element")
        item = render_expr(ns, transform, _element_scope)
        return f"[{item} for element in each_element({f.name!r}, content)]"
    ns.imports.add("from rtc.runtime.transform import apply")
    const = ns.data(f"transform_{f.name}", f"transform of {comment_text(f.name)}", transform)
    return f"apply({f.name!r}, content, {const}, {f.transform_each!r}, captures)"


def _content_scope(root: str) -> str:
    """Where a placeholder's root is read from without transform_each: the scope {**captures,
    "content": value}."""
    return "content" if root == "content" else f"captures[{root!r}]"


def _element_scope(root: str) -> str:
    """Where a placeholder's root is read from with transform_each: {**captures, **element}."""
    return f"(element[{root!r}] if {root!r} in element else captures[{root!r}])"


def render_expr(ns: Namespace, node: Any, scope: Callable[[str], str]) -> str:
    """A Python expression building the transform's output, evaluated like the reference;
    ``scope`` gives the expression that reads a placeholder's root."""
    if isinstance(node, dict):
        items = ", ".join(f"{k!r}: {render_expr(ns, v, scope)}" for k, v in node.items())
        return "{" + items + "}"
    if isinstance(node, list):
        return "[" + ", ".join(render_expr(ns, v, scope) for v in node) + "]"
    if isinstance(node, str):
        whole = PLACEHOLDER.fullmatch(node)
        if whole is None:
            return repr(node)
        path = whole.group(1)
        root, *keys = path.split(".")
        base = scope(root)
        if not keys:
            return base
        ns.imports.add("from rtc.runtime.transform import lookup")
        return f"lookup({base}, {path!r}, {tuple(keys)!r})"
    return ns.literal(node)
