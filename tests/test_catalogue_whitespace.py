"""Every rtc-written family keeps every word: README's content promise, checked family by family.

README promises that in the families rtc maintains, ``content`` is every character outside the
reasoning and the tool calls, as written: no piece is stripped, pieces are joined with nothing in
between (with the content field's ``join`` where each piece is its own explicit region), so the
words on the two sides of a call, of a stray delimiter or of a second reasoning block are never
glued together. The whitespace right after a reasoning block's close may go with it (chat
templates write a blank line after a prefilled ``</think>``); everything else stays.

The families are discovered from the catalogue (``origin: "rtc"`` in ``family.json``), so a family
added later is checked too. Texts are built from each family's own material:

- a call: the text of one of the family's real-output fixtures that is nothing but tool calls
  (without a leading close of reasoning the fixture's prompt opened) and that parses back to
  exactly those calls after the family's content prefix;
- the reasoning markup: the first literal open and close of the reasoning field, where both are
  literals (a second block must be kept, joined to the first);
- stray delimiters: the literal closes of the implicit content field that are not end-of-turn
  tokens (``</think>`` outside reasoning, ``</minimax:tool_call>`` …): the delimiter may be
  dropped or kept, the whitespace on its two sides is kept.

A family states in ``family.json``'s ``whitespace`` what the test needs to know about it, each
setting also stated in README: ``prefix`` (a prompt after which bare text is content, where the
family's prompt opens the reasoning), ``content`` (``[before, after]``: how a piece of content is
written where content lives in explicit regions), ``call`` (the fixture to take the call from),
``call_end`` (markup the stop-stripped call text lacks when more text follows it),
``text_after_calls: false`` (a call runs to the end of the turn), ``after_call: "dropped"`` (the
whitespace right after a call goes with it), ``call_header: true`` (the call is a message of its
own whose header takes the spaces around it).

Each text is parsed one shot and streamed one and three characters at a time; the content must
equal the expected string exactly, and the calls and reasoning must be those of the parts.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
import regex
from catalogue_data import GENERATED, Fixture, catalogue_names, expected_meaning, family, meaning

import rtc.generated as catalogue

FAMILIES = [name for name in catalogue_names() if family(name).meta["origin"] == "rtc"]

# Content pieces with the whitespace that must survive: spaces, tabs, blank lines on both sides.
AROUND = [
    ("Let me check. ", " Done."),
    ("Let me check.\n\n", "\n\nDone."),
    ("Checking:\t", "\nDone."),
]
REPEATED = ("First, ", " then\t", "\n and done.")


@cache
def _template(name: str) -> dict[str, Any]:
    return json.loads((GENERATED / f"{name}.json").read_text(encoding="utf-8"))


def _settings(name: str) -> dict[str, Any]:
    return family(name).meta.get("whitespace") or {}


def _prefix(name: str) -> str:
    return _settings(name).get("prefix", family(name).meta["prompt"])


def _literals(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _content_field(name: str) -> tuple[str, dict[str, Any]]:
    fields = _template(name)["fields"]
    return "content", fields["content"]


def _join(name: str) -> str:
    """What separates two content pieces written as separate regions."""
    before, after = _settings(name).get("content", ["", ""])
    spec = _content_field(name)[1]
    return (
        spec.get("join", "")
        if (before or after or "open" in spec or "open_pattern" in spec)
        else ""
    )


def _piece(name: str, text: str) -> str:
    before, after = _settings(name).get("content", ["", ""])
    return before + text + after


def _reasoning_close_at_start(name: str, text: str) -> str:
    """``text`` without a leading close of the reasoning the family's prompt opened (fixtures
    read after such a prompt begin with it)."""
    field = family(name).meta["reasoning_field"]
    if field is None:
        return text
    spec = _template(name)["fields"][field]
    if "close_pattern" in spec:
        found = regex.match(spec["close_pattern"], text, flags=regex.DOTALL)
        return text[found.end() :] if found and found.end() else text
    for close in _literals(spec.get("close")):
        if text.startswith(close):
            return text[len(close) :]
    return text


def _call_candidates(name: str) -> list[Fixture]:
    fam = family(name)
    wanted = _settings(name).get("call")
    if wanted is not None:
        found = [fx for fx in fam.fixtures if fx.id == wanted]
        assert found, f"{name}: whitespace.call names no fixture {wanted!r}"
        return found
    return [
        fx
        for fx in fam.fixtures
        if fx.id not in fam.gaps
        and expected_meaning(fx.expected)["tool_calls"]
        and expected_meaning(fx.expected)["content"] is None
        and expected_meaning(fx.expected)["reasoning"] is None
    ]


def _has_tools(name: str) -> bool:
    return "tool_calls" in _template(name)["fields"]


@cache
def _call(name: str) -> tuple[str, Any, list[Any]]:
    """(call markup, tools, the calls it means): the first real output that is nothing but
    calls and parses to exactly them after the family's content prefix."""
    module = catalogue.get(name)
    for fx in _call_candidates(name):
        text = _reasoning_close_at_start(name, fx.text.strip()).strip()
        text += _settings(name).get("call_end", "")
        want = expected_meaning(fx.expected)
        if meaning(module.parse_response(text, prefix=_prefix(name), tools=fx.tools)) == want:
            return text, fx.tools, want["tool_calls"]
    raise AssertionError(
        f"{name}: no fixture is nothing but tool calls that parse back after the content prefix; "
        "add one (or name one in family.json's whitespace.call)"
    )


def _runs(name: str, text: str, tools: Any) -> dict[str, dict[str, Any]]:
    module = catalogue.get(name)
    prefix = _prefix(name)
    runs = {"one shot": module.parse_response(text, prefix=prefix, tools=tools)}
    for size in (1, 3):
        parser = module.ResponseParser(prefix, tools=tools)
        for i in range(0, len(text), size):
            parser.feed(text[i : i + size])
        runs[f"streamed {size}-char"] = parser.finalize()[0]
    return runs


def _content(message: dict[str, Any]) -> str:
    value = message.get("content")
    return "" if value is None else value


def _check(name: str, text: str, tools: Any, expected: set[str], *calls: list[Any]) -> None:
    """Every run gives one of the ``expected`` contents and one of the ``calls`` readings."""
    for label, message in _runs(name, text, tools).items():
        got = _content(message)
        assert (
            got in expected
        ), f"{name} {label}: {text!r}\n  content {got!r}\n  expected {sorted(expected)!r}"
        found = meaning(message)["tool_calls"]
        assert found in calls, f"{name} {label}: {text!r}\n  calls {found}\n  expected {calls}"


# --- the tests ---------------------------------------------------------------------------------


def test_every_rtc_family_is_checked() -> None:
    assert len(FAMILIES) >= 40, FAMILIES
    for name in FAMILIES:
        assert "content" in _template(name)["fields"], f"{name}: no content field"
        if _has_tools(name):
            _call(name)  # every family with calls has a real call to build texts from


@pytest.mark.parametrize("name", [name for name in FAMILIES if _has_tools(name)])
def test_words_around_calls_keep_their_whitespace(name: str) -> None:
    call, tools, calls = _call(name)
    join = _join(name)
    after = _settings(name).get("text_after_calls", True)
    header = _settings(name).get("call_header", False)
    dropped = _settings(name).get("after_call") == "dropped"
    for before, following in AROUND:
        text = _piece(name, before) + call + (_piece(name, following) if after else "")
        if header:  # the call is a message of its own: its header takes the spaces around it
            before, following = before.rstrip(" \t"), following.lstrip()
        elif dropped:  # the family declares that a call takes the whitespace after it
            following = following.lstrip()
        _check(name, text, tools, {before + join + following if after else before}, calls)
    first, second, third = REPEATED
    if after:
        text = _piece(name, first) + call + _piece(name, second) + call + _piece(name, third)
        if header:
            first, second, third = first.rstrip(" \t"), second.strip(" \t"), third.lstrip()
        elif dropped:
            second, third = second.lstrip(), third.lstrip()
        content = first + join + second + join + third
    else:
        text, content = _piece(name, first) + call + call, first
    # A family whose calls are one list value per block keeps the last block's calls (README's
    # table says so): this test is about the words, so either reading of the calls passes.
    _check(name, text, tools, {content}, calls + calls, calls)


def _strays(name: str) -> list[str]:
    spec = _content_field(name)[1]
    if "open" in spec or "open_pattern" in spec:
        return []
    stops = set(family(name).meta["stop"])
    return [s for s in _literals(spec.get("close")) if s not in stops]


@pytest.mark.parametrize("name", [name for name in FAMILIES if _strays(name)])
def test_words_around_stray_delimiters_keep_their_whitespace(name: str) -> None:
    for stray in _strays(name):
        before, after = "Content with ", " tags"
        text = _piece(name, before + stray + after)
        _check(name, text, None, {before + after, before + stray + after}, [])


def _reasoning_markup(name: str) -> tuple[str, str] | None:
    field = family(name).meta["reasoning_field"]
    if field is None:
        return None
    spec = _template(name)["fields"][field]
    opens, closes = _literals(spec.get("open")), _literals(spec.get("close"))
    if not opens or not closes:
        return None
    return opens[0], closes[0]


@pytest.mark.parametrize("name", [name for name in FAMILIES if _reasoning_markup(name)])
def test_words_around_reasoning_blocks_keep_their_whitespace(name: str) -> None:
    markup = _reasoning_markup(name)
    assert markup is not None
    open_, close = markup
    first, second, third = REPEATED
    text = (
        _piece(name, first)
        + f"{open_}Thinking it over.{close}"
        + _piece(name, second)
        + f"{open_}Still thinking.{close}"
        + _piece(name, third)
    )
    join = _join(name)
    # The whitespace right after a reasoning block's close goes with it (chat templates write a
    # blank line after a prefilled </think>); everything else is kept.
    kept = {
        first + join + second + join + third,
        first + join + second.lstrip() + join + third.lstrip(),
    }
    for label, message in _runs(name, text, None).items():
        got = _content(message)
        assert got in kept, f"{name} {label}: content {got!r}, expected one of {sorted(kept)!r}"
        reasoning = meaning(message)["reasoning"] or ""
        assert (
            "Thinking it over." in reasoning
            and "Still thinking." in reasoning
            and reasoning.index("Thinking it over.") < reasoning.index("Still thinking.")
        ), f"{name} {label}: a second reasoning block must be kept: {reasoning!r}"
