"""The shape of the message: what a new output starts as, its default and required keys.

Defaults small enough are written inline (a fresh literal per message); larger ones live in a
constant that is deep-copied. Required fields are the non-optional ones, in field order.
"""

from __future__ import annotations

from ..literals import fits_inline
from ..model import Template
from .namespace import Namespace


def lower_output(ns: Namespace, t: Template) -> None:
    plan = ns.plan
    if fits_inline(t.defaults):
        plan.new_output_expr = ns.literal(t.defaults)
    else:
        name = ns.data("defaults", "the template's defaults", t.defaults)
        plan.new_output_expr = f"_copy.deepcopy({name})"
        plan.uses_copy = True
    plan.default_keys = (
        "frozenset(" + ns.literal(sorted(t.defaults)) + ")" if t.defaults else "frozenset()"
    )
    required = [f.name for f in t.fields if not f.optional]
    plan.required = (
        "(" + ", ".join(repr(n) for n in required) + ("," if len(required) == 1 else "") + ")"
    )
