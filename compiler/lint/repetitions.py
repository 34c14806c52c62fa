"""Degenerate generations: a looping model repeating a fragment of its own format.

Models loop: a degenerate generation repeats one fragment until ``max_tokens``, and the
fragment is often made of the format's own delimiters (an end marker, a tool-call head, a
parameter tag). A parser must stay linear on such text, or one bad request stalls a serving
worker. The texts here are ``OPENING + fragment * n``; the fragments come from the template
itself, never from a hand list:

- every sample of every open and close delimiter (the literals as written; two samples of a
  pattern, its captures filled in), and of the start anchor (text in a generation);
- the *call head* of each tool-call field: its open delimiter and the first half of the body
  that writes a call in the field's own content format (a call cut off where it loops);
- the *parameter tags* of an ``xml-inline`` field: a whole tag, and the tag up to its value,
  alone and after the field's open delimiter (so that they repeat inside the region);
- whitespace, where a delimiter pattern takes a run of it (``\\s*<tool_call>``), and inside a
  region whose close takes one (after the region's open: the close searches the run);

each alone and followed by a little text (:data:`FILLER`), as a model writes ``</s> x </s> x``.
The bench times them (``rtc bench --abuse``), the lint counts the work they cost, and the tests
check that this work grows linearly with the text.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from rtc.compiler.model import Delimiter, Template

from ..regex_syntax import nodes as n
from ..regex_syntax import parse, samples
from ..regex_syntax.chars import accepts
from .shapes import CALL, Shape, payload_for, shapes

OPENING = "Sure. "
"""What the generation says before it starts looping."""
FILLER = " x "
"""Text between two repetitions of a delimiter, in the variant that has some."""
MAX_FRAGMENTS = 40
"""Fragments per template, at most (each is repeated in a text of its own)."""
_SAMPLES = 2
"""Samples per delimiter pattern (the plainest and variants of it)."""
_CAPTURE = "f"
"""What a captured group (a tool name) holds in a fragment."""
_VALUE = "\ue000"
"""Marks where a parameter tag's value goes (a private-use character no sample contains)."""


@dataclass(frozen=True)
class Fragment:
    """A piece of text a looping model repeats, the template key it comes from, and what the
    model wrote once before it started repeating (an open delimiter: the loop is inside that
    region)."""

    text: str
    source: str
    head: str = ""

    def generation(self, times: int) -> str:
        """The degenerate generation: :data:`OPENING`, the head, the text ``times`` times."""
        return OPENING + self.head + self.text * times


def repeated(fragment: str, times: int) -> str:
    """The degenerate generation: :data:`OPENING`, then ``fragment`` ``times`` times."""
    return OPENING + fragment * times


def times_for(fragment: str, size: int) -> int:
    """How many repetitions of ``fragment`` make about ``size`` characters (at least one)."""
    return max(1, -(-size // max(1, len(fragment))))


def fragments(template: Template) -> list[Fragment]:
    """The template's fragments (see the module docstring), in template order, each once."""
    found: list[Fragment] = []
    whitespace = False
    for shape in shapes(template):
        f = shape.field
        where = f"fields.{f.name}"
        captures = {name: _CAPTURE for name in shape.captures}
        opens = _delimiter_texts(f.open, captures)
        for delim, texts in ((f.open, opens), (f.close, _delimiter_texts(f.close))):
            if delim is None:
                continue
            whitespace = whitespace or _takes_whitespace_run(delim.pattern)
            found += [Fragment(text, _key(where, delim)) for text in texts]
        if f.open is not None and _takes_whitespace_run(f.open.pattern):
            # Whitespace the model keeps writing right after an open that takes a run of it
            # (``<tool_call>\\s*``): the open's match keeps growing while the run does.
            after = f"{_key(where, f.open)}: whitespace runs after"
            found += [Fragment(ws, after, o) for o in opens[:1] for ws in ("\n", " ")]
        region = _region_head(shape)
        if region is not None and f.close is not None and _takes_whitespace_run(f.close.pattern):
            # Whitespace the model keeps writing inside the region, after its value, where only
            # the close is watched: the close searches the run.
            inside = f"{where}: whitespace runs inside"
            found[:0] = [Fragment(ws, inside, region) for ws in ("\n", " ")]
        head = _call_head(shape)
        if head is not None:
            found.append(Fragment(head, f"{where}: a call cut off"))
        tag = f.content_args.get("tag_pattern") if isinstance(f.content_args, dict) else None
        if isinstance(tag, str):
            whitespace = whitespace or _takes_whitespace_run(tag)
            key = f"{where}.content_args.tag_pattern"
            for text in _tag_texts(tag):
                found.append(Fragment(text, key))
                found += [Fragment(o + text, key) for o in opens[:1]]
    if whitespace:
        found[:0] = [Fragment("\n", "whitespace runs"), Fragment(" ", "whitespace runs")]
    anchor = template.start_anchor
    found += [Fragment(text, _key("", anchor)) for text in _delimiter_texts(anchor)]
    out: dict[tuple[str, str], Fragment] = {}
    for fragment in found:
        for text in (fragment.text, fragment.text + FILLER) if fragment.text else ():
            out.setdefault((fragment.head, text), Fragment(text, fragment.source, fragment.head))
    return list(out.values())[:MAX_FRAGMENTS]


def _key(where: str, delim: Delimiter) -> str:
    return f"{where}.{delim.key}" if where else delim.key


def _delimiter_texts(
    delim: Delimiter | None, captures: dict[str, str] | None = None, witness: bool = False
) -> list[str]:
    """The literals of a delimiter, or a few texts its pattern matches (``witness``: with what
    a trailing look-ahead needs to see after them)."""
    if delim is None:
        return []
    if delim.literals:
        return list(delim.literals)
    return _pattern_texts(delim.pattern, captures or {}, witness)


def _pattern_texts(pattern: str, captures: dict[str, str], witness: bool = False) -> list[str]:
    found = samples(pattern, captures, limit=_SAMPLES)
    if not found:
        # Unchecked: the texts of a pattern whose look-ahead or recursion needs more than the
        # sampler writes, still the text a model would repeat.
        found = samples(pattern, captures, limit=_SAMPLES, verify=False)
    return [s.witness if witness else s.text for s in found if s.text]


def _takes_whitespace_run(pattern: str) -> bool:
    """Whether an unbounded repeat in ``pattern`` takes any number of spaces or line breaks,
    one character per repetition (look-arounds aside: ``(?:(?!X)[\\s\\S])*?`` counts)."""
    tree = parse(pattern)
    if tree.error is not None:
        return False
    for node in n.walk(tree.root):
        if not isinstance(node, n.Repeat) or node.high is not None:
            continue
        body = node.body
        while isinstance(body, n.Group) and not body.is_lookaround:
            body = body.body  # the group around the body: (?:…)
        items = body.items if isinstance(body, n.Seq) else (body,)
        taken = [
            item
            for item in items
            if not (isinstance(item, (n.Assert, n.Empty)) or _lookaround(item))
        ]
        if len(taken) == 1 and isinstance(taken[0], (n.Char, n.Class)):
            if all(accepts(taken[0], c) for c in " \n"):
                return True
    return False


def _lookaround(node: n.Node) -> bool:
    return isinstance(node, n.Group) and node.is_lookaround


def _region_head(shape: Shape) -> str | None:
    """The open delimiter and the body of one value (one call), without the close."""
    f = shape.field
    if f.open is None:
        return None
    built = shape.body(payload_for(shape))
    body, captures = built if built is not None else ("", {})
    opens = _delimiter_texts(f.open, {**{n: _CAPTURE for n in shape.captures}, **captures})
    if not opens:
        return None
    if not body:
        witnesses = _delimiter_texts(f.open, captures, witness=True)
        return witnesses[0] if witnesses else opens[0]
    return opens[0] + body


def _call_head(shape: Shape) -> str | None:
    """A tool call cut off halfway: the open delimiter, then half the body of one call."""
    if shape.role != "tool" or shape.field.open is None:
        return None
    built = shape.body([CALL])
    if built is None:
        return None
    body, captures = built
    opens = _delimiter_texts(shape.field.open, captures)
    return opens[0] + body[: len(body) // 2] if opens else None


def _tag_texts(tag: str) -> list[str]:
    """A whole parameter tag, and the tag up to where its value starts."""
    out = []
    for sample in samples(tag, {"key": "k", "value": _VALUE}, limit=2, verify=False):
        whole = sample.text.replace(_VALUE, "v")
        if _VALUE not in sample.text or not _matches(tag, whole):
            continue
        out += [whole, sample.text[: sample.text.index(_VALUE)]]
    return list(dict.fromkeys(t for t in out if t))


def _matches(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches all of ``text``."""
    try:
        return regex.compile(pattern, regex.DOTALL).fullmatch(text) is not None
    except (RecursionError, regex.error):
        return False
