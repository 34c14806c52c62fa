"""How each delimiter is matched: the ``Watch`` for one open or close in one state.

A single literal is searched with ``str.find`` (its own constant, its rarest character for
long searches); a look-ahead for a literal, ``(?=[\\s\\S]*?L)``, by finding ``L``; anything else
by its compiled pattern, a ``\\s*``-led pattern by the pattern after its leading whitespace
(see ``regex_syntax.fast_paths``). Also what can begin a delimiter (the first characters that
let a chunk pass straight through) and how a delimiter is described in comments.
"""

from __future__ import annotations

from ..literals import comment_text
from ..model import Delimiter, Field
from ..plan import Watch
from ..regex_syntax.fast_paths import first_fragments, lookahead_literal
from .eos import EosSearch, eos_search
from .namespace import Namespace


def watch(ns: Namespace, delim: Delimiter, role: str, f: Field, target: int) -> Watch:
    """The watch of ``delim`` (``role``: "open" or "close" of ``f``), opening ``target``."""
    comment = f"{role} {comment_text(f.name)}: {describe(delim)}"
    stem = f"{role}_{f.name}"
    single = delim.single_literal
    if single is not None:
        ns.imports.add("from rtc.runtime.matching import literal_tail")
        # The literal lives in one named constant, so changing it changes one line here.
        const = ns.literal_name(stem)
        ns.literal_const(const, comment, single)
        search = EosSearch("literal", const)
        return Watch(
            comment, "literal", target, const, f"{const}_LEN", eos=search, can_be_empty=False
        )
    ahead = None if delim.is_literal else lookahead_literal(delim.pattern)
    if ahead is not None:
        # (?=[\s\S]*?L): an empty match at pos when L occurs ahead, else a partial match
        # holding everything from pos (see regex_syntax.fast_paths.lookahead_literal).
        const = ns.literal_name(f"{stem}_ahead")
        ns.literal_const(const, f"{comment}: the literal it looks for", ahead)
        return Watch(comment, "lookahead", target, const, f"{const}_LEN")
    search, full = eos_search(ns, delim, stem, comment)
    if delim.is_literal and search.kind == "any":
        # A literal list: the reference's alternation (longest first) by str.find of each,
        # in partial mode too (complete-first, then the leftmost partial; see find_any).
        ns.imports.add("from rtc.runtime.matching import tail_any")
        return Watch(
            comment,
            "literals",
            target,
            literals_const=search.const,
            grows_at_edge=delim.can_extend,
            eos=search,
            can_be_empty=False,
        )
    if full is None:
        # Partial mode (streaming) still asks the regex module; the literal found at the end
        # of the stream may have taken the plain name.
        named = f"{stem}_pattern" if search.kind in ("literal", "literal_ws") else stem
        full = ns.regex_const(named, comment, delim.pattern)
    return Watch(
        comment,
        "regex",
        target,
        regex_const=full,
        grows_at_edge=not delim.is_literal or delim.can_extend,
        captures=role == "open" and bool(delim.group_names),
        one_group=len(set(delim.group_names)) == 1,
        eos=search,
        # Literals never match empty; a pattern whose first characters are known does not.
        can_be_empty=not delim.is_literal and first_fragments(delim.pattern) is None,
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
