"""The parser's states: which delimiters each one watches, in which order.

State "outside" (the implicit field, or the null sink when there is none) watches every open
and the implicit field's close; the state inside an explicit field watches only its close.
Decides the tie-break rank of each watch (as the reference breaks ties: opens first, then by
field name), the order searches run in (cheapest first), the scanner of each region, whether
nothing can match at the end of the text, and each watch's slot in the one-shot memo.
"""

from __future__ import annotations

from ..literals import comment_text
from ..model import Template
from ..plan import Plan, State, Watch
from .context import delimiter_patterns, jumps_back
from .delimiters import first_chars, watch
from .eos import describe_search, search_lines
from .namespace import Namespace, identifier

MAX_PASS_FIELDS = 64
"""Templates with more fields get no one-shot pass of their own (see lower_pass)."""

TARGET_CLOSE = -2
"""``Watch.target`` of a close: it closes the current region instead of opening a field."""


def _search_order(w: Watch) -> int:
    return 2 if w.eos is None else w.eos.order


def lower_states(ns: Namespace, t: Template) -> dict[int, str]:
    """Add the states to ``ns.plan``; the scanner function of each region (-1: outside)."""
    plan = ns.plan
    plan.states.append(_outside(ns, t))
    table = {-1: "_scan_outside"}
    scan_names: set[str] = {"_scan_outside"}
    for f in t.fields:
        if f.implicit:
            table[f.index] = "_scan_outside"
            continue
        fn = identifier(f.name, scan_names, "_scan_in_")
        watches = []
        if f.close is not None:
            watches.append(watch(ns, f.close, "close", f, TARGET_CLOSE))
            doc = f"Inside {comment_text(f.name)}: only its close is watched."
        else:
            doc = f"Inside {comment_text(f.name)}: no close, the region runs to the end."
        plan.states.append(State(fn, doc, watches, first_chars([f.close])))
        table[f.index] = fn
    plan.scanner_table = [table[i] for i in range(-1, len(t.fields))]
    jumpy = any(jumps_back(p) for p in delimiter_patterns(t))
    for state in plan.states:
        state.empty_at_end = bool(state.watches) and state.first_chars is not None and not jumpy
    _number_memo_slots(plan)
    for state in plan.states:
        for index, w in enumerate(state.watches):
            if w.eos is not None:
                w.eos_lines = search_lines(w.eos, w.memo, first=index == 0)
                w.eos_note = describe_search(w.eos)
        state.eos_long = any(
            w.eos is not None and "if long_text:" in w.eos_lines for w in state.watches
        )
    return table


def _outside(ns: Namespace, t: Template) -> State:
    """The implicit region (or the null sink): every open, in tie-break order (opens first,
    then by field name as a plain string), then the implicit field's close."""
    outside: list[Watch] = []
    opens = sorted((f for f in t.fields if f.open is not None), key=lambda f: f.name)
    for f in opens:
        assert f.open is not None
        outside.append(watch(ns, f.open, "open", f, f.index))
    if t.implicit is not None and t.implicit.close is not None:
        outside.append(watch(ns, t.implicit.close, "close", t.implicit, TARGET_CLOSE))
    for rank, w in enumerate(outside):
        w.rank = rank
    # Cheapest first, as a candidate found early bounds the searches after it: single
    # literals, literal lists, other patterns, then patterns led by a literal (skipped when
    # that literal cannot start by the candidate). Stable; the rank decides ties anyway.
    outside.sort(key=_search_order)
    where = (
        f"the implicit field {comment_text(t.implicit.name)}"
        if t.implicit
        else "the null sink (no implicit field: text here is dropped)"
    )
    return State(
        "_scan_outside",
        f"Outside explicit regions: {where}.",
        outside,
        first_chars(
            [f.open for f in opens] + [t.implicit.close if t.implicit is not None else None]
        ),
    )


def _number_memo_slots(plan: Plan) -> None:
    """One slot per watch in the end-of-stream memo, in state order."""
    slot = 0
    for state in plan.states:
        for w in state.watches:
            w.memo = slot
            slot += 1
    plan.memo_size = slot


def lower_pass(ns: Namespace, t: Template, table: dict[int, str]) -> None:
    """The one-shot pass (``_run_to_end``, when one pass is exact): its dispatch on ``cur``,
    each field's own state first, the state outside explicit regions (the implicit field's,
    or the null sink's) last as the ``else``; and the runtime names it uses."""
    plan = ns.plan
    if not plan.whole_pass_exact:
        return
    plan.engine_imports.append("parse_once")
    if len(t.fields) > MAX_PASS_FIELDS:
        # Its if/elif chains nest in Python's parser: a template this big keeps the runtime's
        # general run_to_end (the same answers, with a scanner call per step).
        return
    # parse_response() writes out parse_once's steps around this pass (see the module template).
    plan.engine_imports += ["message", "prefix_state"]
    ns.imports.add("from rtc.runtime.tools import read_tools")
    by_function = {state.function: state for state in plan.states}
    inside = [f.index for f in t.fields if not f.implicit]
    for index in inside:
        keyword = "if" if not plan.pass_states else "elif"
        plan.pass_states.append((f"{keyword} cur == {index}:", by_function[table[index]]))
    outside = by_function["_scan_outside"]
    plan.pass_states.append(("else:" if inside else "if True:", outside))
    watches = [w for state in plan.states for w in state.watches]
    plan.pass_empty = any(w.can_be_empty for w in watches)
    plan.pass_captures = any(w.captures for w in watches)
    # Every open that passes captures on has one group name (a "name" group, usually): its
    # dict is built without a comprehension (a function call in this Python).
    plan.one_group = all(w.one_group for w in watches if w.captures)
    for w in watches:
        if w.captures:
            # The match comes from the pattern its end-of-stream search runs (the whole
            # pattern, or the part after a leading \s* or before |$: the same named groups).
            w.groups_const = ns.const(f"{w.eos.const}_groups")
            plan.group_tables.append((w.groups_const, w.eos.const))
    if plan.pass_empty:
        plan.engine_imports.append("note_stall")
    if any(f.store == 2 for f in plan.fields):
        plan.engine_imports.append("store_value")
    if any(f.coercible for f in plan.fields):
        ns.imports.add("from rtc.runtime.tools import coerce_tool_calls")
