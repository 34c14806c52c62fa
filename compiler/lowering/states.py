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
from .namespace import Namespace, identifier

TARGET_CLOSE = -2
"""``Watch.target`` of a close: it closes the current region instead of opening a field."""


def _search_order(w: Watch) -> int:
    if w.kind == "literal":
        return 0
    if w.list_maxlen:
        return 1
    return 3 if w.led_by_literal else 2


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
