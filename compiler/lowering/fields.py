"""Field values: how each field turns its body into a value and how it stores it.

Decides each field's ``_finish_`` function: its content parser (``lowering.content``), its
transform (built inline like the reference renders it, or the runtime's ``apply`` with the
transform as data when it is too big to write out), and whether the value is stored once,
appended or joined.
"""

from __future__ import annotations

from typing import Any

from rtc.runtime.transform import PLACEHOLDER

from ..content_spec import TEXT_KINDS
from ..literals import comment_text, fits_inline
from ..model import Field
from ..plan import FieldPlan, Node, NodeKind, Store, Transform
from .content import content
from .namespace import Namespace, identifier


def lower_field(ns: Namespace, f: Field, fn_names: set[str]) -> FieldPlan:
    store = Store.JOIN if f.join is not None else Store.APPEND if f.repeats else Store.SET
    return FieldPlan(
        index=f.index,
        name=repr(f.name),
        comment=comment_text(f.name),
        function=identifier(f.name, fn_names, "_finish_"),
        content=content(ns, f.name, f.spec),
        transform=_transform(ns, f) if f.has_transform else None,
        dirty=f.content not in TEXT_KINDS,
        store=store,
        join=repr(f.join),
    )


def _transform(ns: Namespace, f: Field) -> Transform:
    transform = f.transform
    if not fits_inline(transform):
        ns.imports.add("transform", "apply")
        const = ns.data(f"transform_{f.name}", f"transform of {comment_text(f.name)}", transform)
        return Transform(None, f.transform_each, const)
    if f.transform_each:
        # The reference renders each element in the scope {**captures, **element}; the
        # elements are checked as it checks them, each when its turn comes (each_element), so
        # an earlier element's render error still comes first.
        ns.imports.add("transform", "each_element")
    return Transform(_node(ns, transform), f.transform_each)


def _node(ns: Namespace, node: Any) -> Node:
    """The transform as a tree the template renders into the expression building it: a
    placeholder's root is read from the scope the reference renders in (the template's
    ``placeholder`` macro says where)."""
    if isinstance(node, dict):
        return Node(NodeKind.DICT, tuple((repr(k), _node(ns, v)) for k, v in node.items()))
    if isinstance(node, list):
        return Node(NodeKind.LIST, tuple(("", _node(ns, v)) for v in node))
    if isinstance(node, str):
        whole = PLACEHOLDER.fullmatch(node)
        if whole is None:
            return Node(NodeKind.DATA, source=repr(node))
        path = whole.group(1)
        root, *keys = path.split(".")
        if not keys:
            return Node(NodeKind.PLACEHOLDER, root=repr(root))
        ns.imports.add("transform", "lookup")
        return Node(NodeKind.PLACEHOLDER, root=repr(root), path=repr(path), keys=repr(tuple(keys)))
    return Node(NodeKind.DATA, source=ns.literal(node))
