"""What reading a prompt leaves is remembered (``rtc.runtime.oneshot.read_prefix``): a parser or
stream started from a remembered prefix is the one a fresh pass gives, for every catalogue
family and each prompt of its fixtures, and nothing of one parser is shared with the next."""

from __future__ import annotations

from typing import Any

import pytest
from catalogue_data import all_fixtures, catalogue_names

import rtc.generated as catalogue
from rtc.runtime import oneshot
from rtc.runtime.engine import CompiledParser, Serving

pytestmark = pytest.mark.core

# Every slot of a parser but the objects handed to it (tools, serving).
# Families none of whose prompts is remembered, and why (elsewhere a test that kept none would
# check nothing). Since prompts that close a region with a string are kept, there are none.
NOT_KEPT: dict[str, str] = {}
STATE = tuple(s for s in CompiledParser.__slots__ if s not in ("tools", "serving"))


def _prompts(name: str) -> list[tuple[str, str, Any]]:
    """(prefix, text, tools) of the family's fixtures, and each prefix followed by the first
    characters of its text (a prompt that ends inside a region, or closes one)."""
    found: dict[str, tuple[str, str, Any]] = {}
    for fx in all_fixtures():
        if fx.family != name:
            continue
        for cut in (0, 1, 5, 12, 40):
            found.setdefault(
                fx.prefix + fx.text[:cut], (fx.prefix + fx.text[:cut], fx.text[cut:], fx.tools)
            )
    return list(found.values())


def _state(p: CompiledParser) -> dict[str, Any]:
    return {name: getattr(p, name) for name in STATE}


def _stream(p: CompiledParser, text: str) -> list[Any]:
    """Each 3-character chunk's events, then finalize's answer; an error ends the list."""
    out: list[Any] = []
    try:
        for i in range(0, len(text), 3):
            # (An error in an event is compared by what it says: exceptions are never equal.)
            out.append([{**e, "error": repr(e.get("error"))} for e in p.feed(text[i : i + 3])])
        out.append(p.finalize())
    except ValueError as error:
        out.append(str(error))
    return out


@pytest.mark.parametrize("name", catalogue_names())
def test_remembered_prefixes_start_the_same_parsers(name: str) -> None:
    module = catalogue.get(name)
    kept = 0
    for prefix, text, tools in _prompts(name):

        def new(serving: bool, prefix: str = prefix, tools: Any = tools) -> Any:
            made = Serving(recover=True) if serving else None
            return module.ResponseParser(prefix, tools=tools, serving=made)

        fresh = {}
        for serving in (False, True):
            oneshot._PREFIX_STATES.clear()
            fresh[serving] = new(serving)
            kept += bool(oneshot._PREFIX_STATES)
        # Remembered in either order: what a parser with serving reads is not what one
        # without reads (its events carry captures).
        for order in ((False, True), (True, False)):
            oneshot._PREFIX_STATES.clear()
            for serving in order:
                new(serving)
            for serving in order:
                warm, cold = new(serving), fresh[serving]
                assert _state(warm) == _state(cold), prefix
                assert warm.initial_events == cold.initial_events, prefix
                # What one parser is handed is its own: changing it changes no later parser.
                for event in warm.initial_events:
                    event["text"] = "changed"
                    event.get("captures", {})["changed"] = "yes"
                warm._parts.append("changed")
                warm._captures["changed"] = "yes"
                again = new(serving)
                assert _state(again) == _state(cold), prefix
                assert again.initial_events == cold.initial_events, prefix
                assert _stream(again, text) == _stream(new(serving), text), prefix
        oneshot._PREFIX_STATES.clear()
        cold_message = _oneshot(module, text, prefix, tools)
        assert _oneshot(module, text, prefix, tools) == cold_message, prefix
        oneshot._PREFIX_STATES.clear()
        cold_deltas = _deltas(module, prefix, text, tools)
        assert _deltas(module, prefix, text, tools) == cold_deltas, prefix
    assert bool(kept) != (name in NOT_KEPT), "a family with prompts kept, or none kept, not listed"


def _oneshot(module: Any, text: str, prefix: str, tools: Any) -> Any:
    try:
        return module.parse_response(text, prefix=prefix, tools=tools)
    except ValueError as error:
        return str(error)


def _deltas(module: Any, prefix: str, text: str, tools: Any) -> Any:
    stream = module.DeltaStream(prefix, tools=tools, id_factory=lambda: "call")
    return stream.initial_deltas, stream.feed(text), stream.finish(), stream.problems


def test_a_prompt_that_stores_a_string_is_remembered_one_that_stores_a_call_is_not() -> None:
    module = catalogue.get("qwen3")
    oneshot._PREFIX_STATES.clear()
    # A hybrid model asked not to think: the prompt closes an empty reasoning block.
    for _ in range(2):
        p = module.ResponseParser("<|im_start|>assistant\n<think>\nhm</think>\n\n")
        assert p._out == {"role": "assistant", "reasoning_content": "hm"}
        assert [e["type"] for e in p.initial_events] == [
            "region_open",
            "region_chunk",
            "region_close",
        ]
    assert len(oneshot._PREFIX_STATES) == 1
    # A call in the prompt is a dict typed by the request's tools: read each time.
    call = '<tool_call>\n{"name": "f", "arguments": {"n": "1"}}\n</tool_call>\n'
    tools = [
        {
            "type": "function",
            "function": {"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}},
        }
    ]
    typed = module.ResponseParser("<|im_start|>assistant\n" + call, tools=tools)
    plain = module.ResponseParser("<|im_start|>assistant\n" + call)
    assert typed._out["tool_calls"][0]["function"]["arguments"] == {"n": 1}
    assert plain._out["tool_calls"][0]["function"]["arguments"] == {"n": "1"}
    assert len(oneshot._PREFIX_STATES) == 1
    # What a remembered prefix stored is the parser's own to change.
    p._out["reasoning_content"] = "changed"
    again = module.ResponseParser("<|im_start|>assistant\n<think>\nhm</think>\n\n")
    assert again._out["reasoning_content"] == "hm"
