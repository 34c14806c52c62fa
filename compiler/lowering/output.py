"""The shape of the message: what a parse starts from, and which fields are required.

The defaults are written into the module as data (the runtime copies them for every parse, deeply
when they hold lists or dicts, as the reference does). Required fields are the non-optional
ones, in field order.
"""

from __future__ import annotations

from ..model import Template
from .namespace import Namespace


def lower_output(ns: Namespace, t: Template) -> tuple[str, tuple[str, ...]]:
    """(the defaults' expression, the required fields' names as reprs)."""
    required = tuple(repr(f.name) for f in t.fields if not f.optional)
    return ns.literal(t.defaults), required
