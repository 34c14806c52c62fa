"""The turn's frame from the renders: the start anchor, the end of the turn, the reasoning
block and the markers the content field must drop.

- **start anchor**: what every generation prompt adds to the conversation (with thinking on and
  off where the template has the switch), without a reasoning opening it prefills; where the
  generation prompt adds nothing (the prompt always ends ready for the answer, as Mistral's
  ``[/INST]``), the prompt's last special token;
- **end of turn**: what every turn ends with;
- **reasoning**: the probe that writes the reasoning gives the text before it (the opening;
  where the turn starts with the reasoning, the opening is the end of the generation prompt,
  chosen among its endings by round trips) and between it and the content (the close, less
  what the content-only turn also writes before its content);
- **content markers**: everything else the renders write around the content (what follows the
  content before the end of the turn, what precedes it besides an empty reasoning block, what a
  generation prompt adds after the anchor): text the content field must drop, so each ends it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import regex

from rtc.compiler.match.probes import CONTENT, REASONING, Rendered

from .evidence import Evidence, Unproven
from .text import common_prefix, common_suffix, shown, tokens

REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")


@dataclass(frozen=True)
class Reasoning:
    key: str
    open: str
    close: str
    prefilled: bool  # the generation prompt writes the opening


@dataclass(frozen=True)
class Setting:
    """The probes rendered with one set of template keywords, and their generation prompt's
    addition to the conversation."""

    kwargs: Mapping[str, Any]
    opening: str
    probes: tuple[Rendered, ...]

    def probe(self, label: str) -> Rendered | None:
        return by_label(list(self.probes), label)


@dataclass
class Layout:
    anchor: str
    end: str
    stops: list[str]  # where a turn may end: the end of the turn's tokens, or each turn's
    lead: str  # the content-only turn (default setting) before its content
    reasoning: Reasoning | None
    markers: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)


def split_markup(text: str) -> list[str]:
    """``text`` as its special tokens if it is nothing else, else whole (stripped)."""
    pieces = [t for t in tokens(text.strip()) if not t.isspace()]
    if pieces and all(t[0] in "<[" and t[-1] in ">]" for t in pieces):
        return pieces
    return [text.strip()] if text.strip() else []


def by_label(probes: list[Rendered], label: str) -> Rendered | None:
    return next((p for p in probes if p.label == label and p.error is None), None)


# -- the anchor ----------------------------------------------------------------------------


def anchor_base(settings: list[Setting], prompt: str) -> tuple[str, Evidence]:
    """What every generation prompt adds (token-bounded), or the prompt's last special token."""
    openings = [s.opening.lstrip() for s in settings]
    base = common_prefix(openings) if all(o.strip() for o in openings) else ""
    if base.strip():
        why = "what the generation prompt adds to the conversation" + (
            " with thinking on and off" if len(openings) > 1 else ""
        )
        return base, Evidence("start_anchor", base, why)
    last = [t for t in tokens(prompt.rstrip()) if not t.isspace()]
    if last and last[-1][0] in "<[":
        why = (
            "the generation prompt adds nothing to the conversation; the prompt ends with "
            "this special token, after which the turn starts"
        )
        return last[-1], Evidence("start_anchor", last[-1], why)
    raise Unproven(
        "start_anchor",
        "the generation prompt adds nothing to the conversation and the prompt does not end "
        f"with a special token ({shown(prompt[-40:])})",
    )


# -- the end of the turn -------------------------------------------------------------------


def trailing_run(text: str) -> str:
    """The special tokens (and whitespace) ``text`` ends with."""
    pieces = tokens(text.rstrip())
    at = len(pieces)
    while at and (
        pieces[at - 1].isspace() or pieces[at - 1][0] in "<[" and pieces[at - 1][-1] in ">]"
    ):
        at -= 1
    return "".join(pieces[at:]).strip()


def end_of_turn(probes: list[Rendered]) -> tuple[str, list[str], str, str, list[Evidence]]:
    """(end of turn, the special tokens turns end with, content-only lead, what follows the
    content before the end of the turn)."""
    content = by_label(probes, "content")
    if content is None or CONTENT not in content.turn:
        raise Unproven("fields.content", "the chat template does not write a content-only reply")
    at = content.turn.index(CONTENT)
    lead, after = content.turn[:at], content.turn[at + len(CONTENT) :].rstrip()
    rendered = [p for p in probes if p.error is None]
    end = common_suffix([p.turn.rstrip() for p in rendered] + [after])
    if end.strip():
        tail = after[: len(after) - len(end)]
        return (
            end,
            split_markup(end),
            lead,
            tail,
            [Evidence("end of turn", end, "what every turn ends with")],
        )
    # Turns end differently (`<|im_end|><|endofturn|>`, `<|im_end|><|stop|>`): the end is what
    # their final special tokens begin with, and each of those tokens may end the turn.
    runs = [trailing_run(p.turn) for p in rendered]
    end = common_prefix(runs) if all(runs) else ""
    if not end.strip():
        why = "the turns share no ending: none"
        return "", [], lead, after, [Evidence("end of turn", "", why)]
    stops = list(dict.fromkeys(t for run in runs for t in split_markup(run)))
    tail = after[: len(after) - len(trailing_run(after))]
    why = (
        "what the special tokens every turn ends with begin with ("
        + ", ".join(shown(r) for r in dict.fromkeys(runs))
        + "); each of those tokens ends the content"
    )
    return end, stops, lead, tail, [Evidence("end of turn", end, why)]


# -- reasoning -----------------------------------------------------------------------------


def _reasoning_probe(probes: list[Rendered]) -> tuple[str, Rendered] | None:
    for key in REASONING_KEYS:
        probe = by_label(probes, f"reasoning ({key}) and content")
        if probe is not None and probe.expected.reasoning and probe.expected.content:
            return key, probe
    probe = by_label(probes, "reasoning and content, thinking on")
    if probe is not None and probe.expected.reasoning and probe.expected.content:
        return "reasoning_content", probe
    return None


def _close(between: str, lead: str) -> str:
    """The reasoning close: what follows the reasoning, less what the content-only turn also
    writes before its content (a content marker), unless that leaves nothing."""
    close = between.strip()
    shared = common_suffix([close, lead.strip()]) if lead.strip() else ""
    if shared and len(shared) < len(close):
        return close[: -len(shared)].strip()
    return close


def prefill_candidates(text: str) -> list[str]:
    """Endings of ``text`` (a generation prompt's addition) that may open the reasoning,
    shortest first: whole tokens, not starting with whitespace, never all of it."""
    text = text.rstrip()
    pieces = tokens(text)
    out = []
    for count in range(1, min(len(pieces), 6) + 1):
        tail = "".join(pieces[-count:])
        if not tail[0].isspace() and tail != text:
            out.append(tail)
    return out


def _unclosed_opening(settings: list[Setting], source: str) -> None:
    """Refuse a generation prompt that ends with an opening tag (``<think>``) the template
    closes elsewhere (its source writes ``</think>``) but no rendered turn closes: the model
    writes something there and closes it, and no render shows what."""
    turns = [p.turn for s in settings for p in s.probes]
    for setting in settings:
        last = [t for t in tokens(setting.opening.rstrip()) if not t.isspace()]
        tag = regex.fullmatch(r"<([\w:.\-]+)>", last[-1]) if last else None
        if tag is None:
            continue
        close = f"</{tag.group(1)}>"
        if close in source and not any(close in turn for turn in turns):
            raise Unproven(
                "reasoning",
                f"the generation prompt ends with {shown(last[-1])}, which the template closes "
                f"with {shown(close)} elsewhere but no rendered turn does: what a model writes "
                "after it is not shown",
            )


def find_reasoning(
    settings: list[Setting],
    anchor: str,
    lead: str,
    works: Callable[[Reasoning, str], bool],
    source: str = "",
) -> tuple[Reasoning | None, str, list[Evidence]]:
    """(reasoning, start anchor, evidence). ``works(reasoning, anchor)`` tells whether a
    template with them round-trips the probes that hold no call."""
    found = None
    for setting in settings:
        found = _reasoning_probe(list(setting.probes))
        if found is not None:
            break
    if found is None:
        _unclosed_opening(settings, source)
        why = "no probe's turn writes the reasoning: no reasoning field"
        return None, anchor, [Evidence("reasoning", "", why)]
    key, probe = found
    turn = probe.turn
    at = turn.index(REASONING)
    before = turn[:at]
    close = _close(turn[at + len(REASONING) : turn.index(CONTENT, at)], lead)
    if not close:
        raise Unproven("reasoning close", "nothing separates the reasoning from the content")
    evidence = [
        Evidence("reasoning field", key, f"the probe `{probe.label}` writes the reasoning"),
        Evidence(
            "reasoning close", close, f"what `{probe.label}` writes between reasoning and content"
        ),
    ]
    if before.strip():
        reasoning = Reasoning(key, before.strip(), close, False)
        why = f"what `{probe.label}` writes before the reasoning"
        return reasoning, anchor, [Evidence("reasoning open", reasoning.open, why), *evidence]
    opening = setting.opening.lstrip()
    for candidate in prefill_candidates(opening):
        reasoning = Reasoning(key, candidate, close, True)
        cut = opening.rstrip()[: -len(candidate)]
        trimmed = anchor if len(cut) >= len(anchor) else cut
        if trimmed.strip() and works(reasoning, trimmed):
            why = (
                f"the turn of `{probe.label}` starts with the reasoning: the generation prompt "
                f"opens it with {shown(candidate)} (the shortest ending of the prompt with "
                "which the probes round-trip)"
            )
            return reasoning, trimmed, [Evidence("reasoning open", candidate, why), *evidence]
    raise Unproven(
        "reasoning open",
        f"the turn of `{probe.label}` starts with the reasoning, so the generation prompt "
        f"({shown(opening)}) opens it, but no ending of the prompt works as its opening",
    )


# -- content markers -----------------------------------------------------------------------


def unexplained(text: str, reasoning: Reasoning | None) -> str:
    """``text`` (written around content) less an empty reasoning block or a lone reasoning
    opening at its start. A lone close stays: where no reasoning is open (a generation prompt
    that writes ``</think>`` to turn thinking off), the content field must drop it."""
    rest = text.strip()
    if reasoning is None:
        return rest
    if rest.startswith(reasoning.open) and reasoning.close in rest:
        rest = rest[rest.index(reasoning.close) + len(reasoning.close) :]
    elif rest.startswith(reasoning.open):
        rest = rest[len(reasoning.open) :]
    return rest.strip()


def content_markers(
    settings: list[Setting], anchor: str, tail: str, reasoning: Reasoning | None
) -> list[str]:
    """What the content field must drop: the text after the content before the end of the
    turn, what each content-only turn writes before its content, and what each generation
    prompt adds after the anchor, each less reasoning blocks."""
    texts = [tail]
    for setting in settings:
        rest = setting.opening.lstrip()
        if rest.startswith(anchor):
            texts.append(rest[len(anchor) :])
        for label in ("content", "content, thinking off", "reasoning and content, thinking on"):
            probe = setting.probe(label)
            if probe is not None and CONTENT in probe.turn:
                before = probe.turn[: probe.turn.index(CONTENT)]
                if probe.expected.reasoning:
                    before = before[: before.find(REASONING)] if REASONING in before else before
                texts.append(before)
    out: list[str] = []
    for text in texts:
        for marker in split_markup(unexplained(text, reasoning)):
            if marker not in out:
                out.append(marker)
    return out
