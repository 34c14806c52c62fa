"""The tool-call field from the renders of one call (typed arguments) and of two.

:mod:`.bodies` finds each call and its body format. The two-call render then tells the per-call
opening and close apart from a wrapper written once around all calls
(``<minimax:tool_call>…</minimax:tool_call>``) and from a separator between calls (``, ``): what
precedes each call is the opening, what precedes only the first is the wrapper's start, and
likewise at the end.

- Calls with their own opening and close: the field opens and closes on them; the wrapper's
  markers end the content like the end of the turn does.
- Calls as items of a list (a separator between them, nothing of their own before each, as
  ``[f(a=1), g(b=2)]``): the first call opens with the list's start, each later one with the
  separator after the previous call's end; a call closes at the list's end, or just before the
  separator when another call follows.
- Calls as items of one JSON list: one region holds the list, each item a call
  (``transform_each``).

Where the template renders one call per turn, the one-call render alone gives the opening and
close; a call that runs to the end of the turn is closed by it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtc.compiler.match.probes import LEAD_IN, Rendered

from .bodies import _DECODER, Call, Format, find_format, generalize, locate
from .evidence import Evidence, Unproven
from .layout import Layout, by_label, trailing_run
from .text import common_prefix, common_suffix, pattern, shown

NAME = r"(?P<name>[\w.\-]+)"
"""A tool name as OpenAI allows them (``[a-zA-Z0-9_-]{1,64}``), and dotted names."""
ANY_NAME = r"[\w.\-]+"


@dataclass
class Calls:
    """The tool-call field, the wrapper's markers (closes of the content field), evidence."""

    spec: dict[str, Any]
    markers: list[str]
    evidence: list[Evidence]


@dataclass
class Frame:
    """What surrounds the calls of a block: the wrapper's start and end, each call's opening
    and close, and the separator between calls."""

    start: str
    opening: str
    separator: str
    closing: str
    end: str
    where: str


def block(probe: Rendered, layout: Layout) -> str:
    """The turn's text around its calls: without the end of the turn and without the part it
    shares with the content-only turn's start (an empty reasoning block)."""
    text = probe.turn.rstrip()
    if layout.end and text.endswith(layout.end):
        text = text[: -len(layout.end)].rstrip()
    elif layout.end:
        run = trailing_run(text)
        if run.startswith(layout.end):
            text = text[: len(text) - len(run)].rstrip()
    shared = common_prefix([text, layout.lead]) if layout.lead.strip() else ""
    return text[len(shared) :]


def delimiter(key: str, text: str) -> dict[str, str]:
    """``{"open": text}`` or, where the text has whitespace inside, ``{"open_pattern": …}``
    that allows any whitespace there."""
    text = text.strip()
    if any(c.isspace() for c in text):
        return {f"{key}_pattern": pattern(text)}
    return {key: text}


def _frame(text: str, calls: list[Call], where: str) -> Frame:
    if len(calls) == 1:
        return Frame("", text[: calls[0].start], "", text[calls[0].end :], "", where)
    first, second = calls[0], calls[1]
    before, between, after = text[: first.start], text[first.end : second.start], text[second.end :]
    opening = common_suffix([before, between])
    if not opening.strip():
        opening = ""  # only whitespace: it separates the calls
    closing = common_prefix([between[: len(between) - len(opening)], after])
    separator = between[len(closing) : len(between) - len(opening)]
    # Whitespace at the edges of the close and the opening is what separates the calls.
    separator = closing[len(closing.rstrip()) :] + separator
    separator += opening[: len(opening) - len(opening.lstrip())]
    return Frame(
        before[: len(before) - len(opening)].strip(),
        opening.lstrip(),
        separator,
        closing.rstrip(),
        after[len(closing) :].strip(),
        where,
    )


def _json_list(text: str, calls: list[Call]) -> Call | None:
    """The JSON list whose items are the calls, if they are."""
    first, last = calls[0], calls[-1]
    if any(text[a.end : b.start].strip() != "," for a, b in zip(calls, calls[1:], strict=False)):
        return None
    start = text.rfind("[", 0, first.start)
    if start < 0 or text[start + 1 : first.start].strip():
        return None
    try:
        value, end = _DECODER.raw_decode(text, start)
    except ValueError:
        return None
    return Call(start, end) if isinstance(value, list) and end >= last.end else None


def _transform(fmt: Format) -> dict[str, Any]:
    name_key, args_key = fmt.keys
    if fmt.kind == "list":
        function: Any = {"name": f"{{{name_key}}}", "arguments": f"{{{args_key}}}"}
    elif fmt.kind == "object" and fmt.keys == ("name", "arguments"):
        function = "{content}"
    elif fmt.kind == "object":
        function = {"name": f"{{content.{name_key}}}", "arguments": f"{{content.{args_key}}}"}
    else:
        function = {"name": "{name}", "arguments": "{content}"}
    return {"type": "function", "function": function}


def _body(fmt: Format) -> dict[str, Any]:
    if fmt.kind in ("parameters", "pythonic"):
        return {"content": "xml-inline", "content_args": fmt.content_args}
    body: dict[str, Any] = {"content": "json"}
    if fmt.content_args:
        body["content_args"] = fmt.content_args
    return body


def _own_delimiters(fmt: Format, frame: Frame) -> dict[str, Any]:
    """Each call opens and closes on its own delimiters."""
    if fmt.kind in ("object", "list"):
        spec: dict[str, Any] = {**delimiter("open", frame.opening)}
    else:
        after_name = generalize(fmt.after_name)
        spec = {"open_pattern": pattern(frame.opening.strip()) + NAME + after_name}
    return spec | delimiter("close", frame.closing)


def _listed_delimiters(fmt: Format, frame: Frame) -> dict[str, Any]:
    """Calls are items of a list: the first opens with the list's start, the others with the
    separator after the previous call's end, which closes just before it."""
    if not frame.opening.strip() and fmt.kind in ("object", "list"):
        raise Unproven(
            "fields.tool_calls.open",
            f"nothing precedes a call in {frame.where}: the call is bare JSON, which only a "
            "pattern that reads JSON could open on",
        )
    if fmt.kind in ("object", "list"):
        raise Unproven("tool calls", f"calls are separated by {shown(frame.separator)}")
    if not frame.start or not frame.end:
        raise Unproven(
            "fields.tool_calls.open",
            f"in {frame.where}, calls have no delimiter of their own and no list marks them",
        )
    after_name = generalize(fmt.after_name)
    opening, closing = pattern(frame.opening.strip()), pattern(frame.closing.strip())
    if frame.separator.strip():
        separator = pattern(frame.separator.strip())
    elif "\n" in frame.separator:
        separator = r"[ \t]*\n"  # one call per line: a line break, not any space, between
    else:
        raise Unproven(
            "fields.tool_calls.open",
            f"in {frame.where}, nothing but spaces separates one call from the next",
        )
    first = rf"{pattern(frame.start)}\s*"
    later = rf"{closing}\s*{separator}"
    following = rf"(?={closing}\s*{separator}\s*{opening}{ANY_NAME}{after_name})"
    return {
        "open_pattern": rf"(?:{first}|{later})\s*{opening}{NAME}{after_name}",
        "close_pattern": rf"{closing}\s*{pattern(frame.end)}|{following}",
    }


def _lead_in_markers(
    probes: list[Rendered], layout: Layout, fmt: Format, frame: Frame
) -> list[str]:
    """What the content-then-call turn writes between the content and the call, besides the
    call's own opening: it ends the content."""
    probe = by_label(probes, "content and a tool call")
    if probe is None or LEAD_IN not in probe.turn or len(probe.expected.calls) != 1:
        return []
    text = block(probe, layout)
    if LEAD_IN not in text:
        return []
    after = text.index(LEAD_IN) + len(LEAD_IN)
    rest = text[after:]
    found = locate(rest, fmt, probe.expected.calls)
    if found and fmt.kind == "list":
        found = [listed] if (listed := _json_list(rest, found)) is not None else None
    if not found:
        return []
    between = rest[: found[0].start].strip()
    for own in (frame.opening.strip(), frame.start):  # the call's own opening, the wrapper's
        if own and between.endswith(own):
            between = between[: -len(own)].strip()
    return [between] if between else []


def call_field(probes: list[Rendered], layout: Layout) -> Calls | None:
    """The tool-call field the renders prove, or None when the template writes no call."""
    one = by_label(probes, "one tool call, typed arguments")
    if one is None or len(one.expected.calls) != 1:
        return None
    text = block(one, layout)
    ((name, arguments),) = one.expected.calls
    fmt, call = find_format(text, name, arguments)
    evidence = list(fmt.evidence)
    two = by_label(probes, "two parallel tool calls")
    if two is not None and len(two.expected.calls) == 2:
        both_text = block(two, layout)
        both = locate(both_text, fmt, two.expected.calls)
        if both is None:
            raise Unproven(
                "tool calls",
                "the two-call turn does not hold two calls written as the one-call turn writes "
                f"one: {shown(both_text, 100)}",
            )
        listed = _json_list(both_text, both) if fmt.kind == "object" else None
        if listed is not None:
            fmt.kind = "list"
            both = [listed]
            evidence.append(
                Evidence("tool call body", "json list", "the calls are items of one JSON list")
            )
        frame = _frame(both_text, both, "the two-call turn")
    else:
        frame = _frame(text, [call], "the one-call turn (the template renders one call per turn)")
    if fmt.kind == "parameters":
        frame.closing = _after_value(frame.closing, fmt.after)
    markers: list[str] = []
    if not frame.closing.strip() and frame.opening.strip() and not frame.end:
        spec, why = _until_next(fmt, frame, layout)
        evidence.append(Evidence("tool call close", spec["close_pattern"], why))
        return _calls(fmt, spec, markers, evidence, probes, layout, frame)
    if frame.separator.strip() or not frame.opening.strip():
        spec = _listed_delimiters(fmt, frame)
        evidence.append(
            Evidence(
                "tool calls list",
                f"{frame.start} … {frame.separator.strip()} … {frame.end}",
                f"{frame.where} writes the calls as items of a list",
            )
        )
    else:
        if not frame.closing.strip():
            raise Unproven(
                "fields.tool_calls.close", f"nothing in {frame.where} marks the end of a call"
            )
        spec = _own_delimiters(fmt, frame)
        markers = [m for m in (frame.start, frame.end) if m]
        for marker, side in ((frame.start, "before"), (frame.end, "after")):
            if marker:
                why = f"written once {side} all calls in {frame.where}: the content field drops it"
                evidence.append(Evidence("tool calls wrapper", marker, why))
    evidence += [
        Evidence(
            "tool call open", frame.opening.strip(), f"what precedes each call in {frame.where}"
        ),
        Evidence(
            "tool call close", frame.closing.strip(), f"what follows each call in {frame.where}"
        ),
    ]
    if len(set(fmt.after_name)) > 1:
        evidence.append(
            Evidence(
                "tool call name",
                generalize(fmt.after_name),
                "what follows the name differs between calls: "
                + ", ".join(shown(a) for a in fmt.after_name),
            )
        )
    return _calls(fmt, spec, markers, evidence, probes, layout, frame)


def _calls(
    fmt: Format,
    spec: dict[str, Any],
    markers: list[str],
    evidence: list[Evidence],
    probes: list[Rendered],
    layout: Layout,
    frame: Frame,
) -> Calls:
    for marker in _lead_in_markers(probes, layout, fmt, frame):
        why = "written between the content and the call in `content and a tool call`"
        evidence.append(Evidence("content marker", marker, why))
        markers.append(marker)
    spec |= {"repeats": True, **_body(fmt), "transform": _transform(fmt)}
    if fmt.kind == "list":
        spec["transform_each"] = True
    return Calls(spec, markers, evidence)


def _until_next(fmt: Format, frame: Frame, layout: Layout) -> tuple[dict[str, Any], str]:
    """Calls with an opening and nothing after them: each runs until the next call's opening,
    or the end of the turn."""
    if fmt.kind in ("object", "list"):
        opening = pattern(frame.opening.strip())
        spec: dict[str, Any] = {"open": frame.opening.strip()}
    else:
        opening = pattern(frame.opening.strip()) + ANY_NAME + generalize(fmt.after_name)
        spec = {"open_pattern": pattern(frame.opening.strip()) + NAME + generalize(fmt.after_name)}
    close = f"(?={opening})"
    if layout.stops:
        close += "|" + "|".join(pattern(t) for t in layout.stops)
    spec["close_pattern"] = close
    why = f"nothing follows a call in {frame.where}: a call ends where the next one opens" + (
        " or at the end of the turn" if layout.end else ""
    )
    return spec, why


def _after_value(closing: str, after: str) -> str:
    """The call's close: what follows the last parameter, less the parameter's own end."""
    text = closing.strip()
    mine = after.strip()
    if not text.startswith(mine):
        raise Unproven(
            "fields.tool_calls.close", f"the last parameter does not end with {shown(mine)}"
        )
    return text[len(mine) :]
