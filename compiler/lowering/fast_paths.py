"""The straight-through case of ``feed()``: per region, when a chunk cannot touch a delimiter.

A chunk holding none of the characters (or character classes) that can begin a delimiter
watched in the region's state is passed on without any search. Decides the test for each
region (a ``not in``, a ``frozenset.isdisjoint`` or a compiled class), the constants it needs,
and which regions get one (at most ``MAX_FAST_PATHS``).
"""

from __future__ import annotations

from ..literals import comment_text
from ..model import Template
from ..plan import FastPath
from ..regex_syntax.chars import class_source
from .namespace import Namespace

# Regions that get a straight-through case in feed() (see lower_fast_paths).
MAX_FAST_PATHS = 64


def lower_fast_paths(ns: Namespace, t: Template, table: dict[int, str]) -> None:
    """Per region, the test that lets ``feed()`` pass a chunk straight through."""
    plan = ns.plan
    by_function = {state.function: state for state in plan.states}
    first = -1 if t.implicit is None else 0  # no null sink beside an implicit field
    consts: dict[str, str] = {}
    for cur in range(first, len(t.fields)):
        state = by_function[table[cur]]
        if state.first_chars is None:
            continue
        chars, classes = state.first_chars
        f = t.fields[cur] if cur >= 0 else None
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
                const = consts[state.function] = ns.const(f"first_{state.function.strip('_')}")
                if classes:
                    source = class_source(chars, classes)
                    expr = f"regex.compile({source!r}, regex.DOTALL)"
                    plan.uses_regex = True
                else:
                    expr = f"frozenset({chars!r})"
                plan.fast_consts.append((const, expr))
            probe = const
            if classes:
                test = f"{const}.search(text) is None"
                shown = comment_text(class_source(chars, classes))
                comment = f"{where}: nothing matching {shown} in the chunk"
            else:
                test = f"{const}.isdisjoint(text)"
                comment = f"{where}: none of {comment_text(chars)} in the chunk"
        if len(plan.fast_paths) >= MAX_FAST_PATHS:
            # An if/elif chain nests in Python's parser: keep it short. Regions past the
            # limit take the ordinary path, which gives the same events.
            break
        plan.fast_paths.append(
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
