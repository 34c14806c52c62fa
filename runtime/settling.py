"""After the general path: what the fast path may do in the state the parsing loop left.

``settle`` picks the state's fast path (or none) and drops consumed text no pattern can look at
any more; ``holds_a_run`` says whether held whitespace may keep growing on the fast path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .growing import TRIM_SLACK

if TYPE_CHECKING:
    from .engine import CompiledParser


def settle(p: CompiledParser) -> None:
    """After the general path: drop consumed text the patterns can no longer look at, and
    allow the fast path (not for the next chunk where a match may begin right after the last
    consumed character: ``Fast.behind``; and, in a region not yet open, only while text is
    held: see ``held_case``)."""
    context = p._context
    pos = p._pos
    cur = p.region
    fast = p._region_fast[cur + 1]
    if fast is not None and not p._opened and cur >= 0 and pos == len(p._buf):
        # The region is not open and nothing is held: the next chunk's text would be the
        # first committed to it, which the loop opens first. (With text held, the fast path
        # only holds more, or leaves the chunk to the general path: see held_case.)
        fast = None
    # (fast[12]: Fast.behind, the characters a guard's look-behind ends with; see fast_tuple.)
    if fast is not None and fast[12] and pos and p._buf[pos - 1] in fast[12]:
        fast = None
    if context == 0 or p._drops[cur + 1]:
        if pos:
            p._buf = p._buf[pos:]
            p._pos = 0
    elif context is not None and pos > context + TRIM_SLACK:
        p._buf = p._buf[pos - context :]
        p._pos = context
    p._fast = fast


def holds_a_run(p: CompiledParser) -> bool:
    """After the general path: whether ``p`` holds a run of whitespace from where a partial
    match starts, in a state whose held runs stay held while whitespace is appended
    (``Fast.runs``): the fast path then takes such chunks."""
    fast = p._fast
    if fast is None or not fast[8]:  # runs, then lead: fast[1] and fast[20] (see fast_tuple)
        return False
    buf = p._buf
    pos = p._pos
    return pos < len(buf) and buf[-1] in fast[1] and not buf[pos:].strip(fast[20])
