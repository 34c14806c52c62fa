"""How each delimiter is matched: the ``Watch`` for one open or close in one state.

A single literal is searched with ``str.find`` (its own constant, its rarest character for
long searches); a look-ahead for a literal, ``(?=[\\s\\S]*?L)``, by finding ``L``; anything else
by its compiled pattern, a ``\\s*``-led pattern by the pattern after its leading whitespace
(see ``prefilter``). Also what can begin a delimiter (the first characters that let a chunk
pass straight through) and how a delimiter is described in comments.
"""

from __future__ import annotations

from ..literals import comment_text
from ..model import Delimiter, Field
from ..plan import Watch
from ..prefilter import first_fragments, lookahead_literal, whitespace_led
from .namespace import Namespace


def watch(ns: Namespace, delim: Delimiter, role: str, f: Field, target: int) -> Watch:
    """The watch of ``delim`` (``role``: "open" or "close" of ``f``), opening ``target``."""
    comment = f"{role} {comment_text(f.name)}: {describe(delim)}"
    single = delim.single_literal
    if single is not None:
        ns.imports.add("from rtc.runtime.matching import literal_tail")
        # The literal lives in one named constant, so changing it changes one line here.
        const = ns.const(f"{role}_{f.name}")
        while f"{const}_LEN" in ns.names or f"{const}_RARE" in ns.names:
            const = ns.const(f"{role}_{f.name}")
        ns.literal_const(const, comment, single)
        return Watch(comment, "literal", target, const, f"{const}_LEN")
    ahead = None if delim.is_literal else lookahead_literal(delim.pattern)
    if ahead is not None:
        # (?=[\s\S]*?L): an empty match at pos when L occurs ahead, else a partial match
        # holding everything from pos (see prefilter.lookahead_literal).
        const = ns.const(f"{role}_{f.name}_ahead")
        while f"{const}_LEN" in ns.names or f"{const}_RARE" in ns.names:
            const = ns.const(f"{role}_{f.name}_ahead")
        ns.literal_const(const, f"{comment}: the literal it looks for", ahead)
        return Watch(comment, "lookahead", target, const, f"{const}_LEN")
    rest = None if delim.is_literal else whitespace_led(delim.pattern)
    const = ns.regex_const(
        f"{role}_{f.name}",
        comment,
        delim.pattern,
        searched=not delim.is_literal and rest is None,
    )
    ws_lead = ""
    if rest is not None:
        ws_lead = ns.regex_const(
            f"{role}_{f.name}_after_ws",
            f"{comment}, after its leading \\s*",
            rest,
            searched=True,
        )
        ns.uses_whitespace = True
    prefix = next(r.prefix for r in ns.plan.regexes if r.name == (ws_lead or const))
    return Watch(
        comment,
        "regex",
        target,
        regex_const=const,
        grows_at_edge=not delim.is_literal or delim.can_extend,
        captures=role == "open" and bool(delim.group_names),
        ws_lead_const=ws_lead,
        list_maxlen=max(map(len, delim.literals)) if delim.is_literal else 0,
        led_by_literal=bool(prefix),
    )


def first_chars(delims: list[Delimiter | None]) -> tuple[str, list[str]] | None:
    """Characters and character classes that can begin any of ``delims``, or None."""
    chars: dict[str, None] = {}
    classes: dict[str, None] = {}
    for delim in delims:
        if delim is None:
            continue
        if delim.is_literal:
            chars.update((literal[0], None) for literal in delim.literals)
            continue
        frags = first_fragments(delim.pattern)
        if frags is None:
            return None
        for frag in frags:
            if len(frag) == 1:
                chars[frag] = None
            else:
                classes[frag] = None
    return "".join(chars), list(classes)


def describe(delim: Delimiter) -> str:
    """A delimiter as comments show it (shortened, escaped by ``comment_text``)."""
    if delim.single_literal is not None:
        return f"literal {comment_text(delim.single_literal)}"
    if delim.is_literal:
        shown = ", ".join(comment_text(x, 30) for x in delim.literals[:6])
        more = ", ..." if len(delim.literals) > 6 else ""
        return f"literals [{shown}{more}]"
    return f"pattern {comment_text(delim.pattern)}"
