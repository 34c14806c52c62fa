"""How the start anchor is found in the prefix: where the parsed answer begins.

The reference takes the end of the last match of the anchor in the prefix. Literals that can
never overlap are found with ``rfind`` (the last one found is the last match); a single literal
otherwise by repeated ``find``; anything else by its compiled pattern.
"""

from __future__ import annotations

from ..model import Template
from ..plan import Anchor
from .delimiters import describe
from .namespace import Namespace


def never_overlap(literals: tuple[str, ...]) -> bool:
    """Whether no two occurrences of these literals (of one literal twice, too) can overlap.

    Then scanning left to right for the leftmost match, again and again, meets every
    occurrence, and the last match is simply the occurrence that starts last (``rfind``).
    Checked for small sets only (the check is quadratic).
    """
    if len(literals) > 16 or sum(map(len, literals)) > 1024:
        return False
    for a in literals:
        if not a:
            return False
        for b in literals:
            for d in range(len(a)):
                if d == 0 and a == b:
                    continue
                tail = a[d:]
                if tail.startswith(b) or b.startswith(tail):
                    return False
    return True


def lower_anchor(ns: Namespace, t: Template) -> Anchor:
    anchor = t.start_anchor
    comment = describe(anchor)
    if anchor.is_literal and never_overlap(anchor.literals):
        return Anchor(comment, literals=repr(tuple(anchor.literals)))
    if anchor.single_literal is not None:
        return Anchor(comment, literal=repr(anchor.single_literal))
    # No re twin: through a whole prompt regex's literal search is faster (see regex_syntax.twin).
    return Anchor(comment, pattern=ns.pattern("start_anchor", comment, anchor.pattern))
