"""parse_batch: one outcome per text, in order; the same answers as parse_response per text."""

from __future__ import annotations

import pytest

from rtc.generated import mistral, qwen3

GOOD = '<think>a</think>b<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'
BAD = "<tool_call>{bad</tool_call>"


def _expected(module, text, prefix, tools=None):
    try:
        return {"message": module.parse_response(text, prefix=prefix, tools=tools), "error": None}
    except Exception as exc:
        return {"message": None, "error": {"type": type(exc).__name__, "message": str(exc)}}


def test_one_outcome_per_text_in_order_and_one_bad_text_sinks_nothing() -> None:
    texts = [GOOD, BAD, "plain", "", BAD, GOOD]
    outcomes = qwen3.parse_batch(texts, prefix="")
    assert outcomes == [_expected(qwen3, t, "") for t in texts]
    assert [o["error"] is None for o in outcomes] == [True, False, True, True, False, True]
    assert outcomes[1]["error"]["type"] == "ValueError"
    # parse_response(list) keeps its declared all-or-nothing behaviour
    with pytest.raises(ValueError):
        qwen3.parse_response(texts, prefix="")


def test_prefix_per_text_and_tools() -> None:
    tools = [
        {
            "type": "function",
            "function": {"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}}},
        }
    ]
    text = '[TOOL_CALLS]f[ARGS]{"x": "3"}</s>'
    prefixes = ["[INST]hi[/INST]", ""]
    outcomes = mistral.parse_batch([text, text], prefix=prefixes, tools=tools)
    assert outcomes == [_expected(mistral, text, p, tools) for p in prefixes]
    assert outcomes[0]["message"]["tool_calls"][0]["function"]["arguments"] == {"x": 3}


def test_per_text_prefix_errors_are_that_text_s_outcome() -> None:
    outcomes = qwen3.parse_batch(["a", "b"], prefix=["", None])
    assert outcomes[0]["error"] is None
    assert outcomes[1]["error"]["type"] == "ValueError"


@pytest.mark.parametrize(
    ("texts", "prefix", "error"),
    [
        (["a", "b"], [""], ValueError),  # one prefix per text, or one for all
        (["a"], None, ValueError),  # the prefix is required, as in parse_response
        ("a", "", TypeError),  # a batch is a list
    ],
)
def test_mistakes_in_the_call_itself_raise(texts, prefix, error) -> None:
    with pytest.raises(error):
        qwen3.parse_batch(texts, prefix=prefix)


def test_interrupts_are_not_outcomes() -> None:
    from rtc.runtime.batch import parse_each

    def parse(text, *, prefix, tools):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        parse_each(parse, ["a"], [""], [None])


def test_every_generated_module_has_parse_batch() -> None:
    from rtc import generated

    for name in generated.names():
        module = generated.get(name)
        assert module.parse_batch([], prefix="") == []
