"""The serving-engine plugins' engine-neutral part: which parser a served model gets, and one
delta per engine call (no engine needed; the engines' own tests are test_vllm_plugin.py and
test_sglang_plugin.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rtc import generated
from rtc.compiler.engines import family
from rtc.compiler.engines.deltas import Request, merge, reasoning_open_after, tool_dicts

CATALOGUE = Path(generated.__file__).parent


def _template(name: str) -> dict:
    return json.loads((CATALOGUE / f"{name}.json").read_text(encoding="utf-8"))


def test_parser_names_are_rtc_and_one_per_family() -> None:
    names = family.parser_names()
    assert names[0] == "rtc" and len(names) == len(generated.names()) + 1
    assert "rtc-qwen3_coder" in names


class _Tokenizer:
    """What a transformers tokenizer shows the family choice."""

    def __init__(self, folder: Path, **attributes: object) -> None:
        self.name_or_path = str(folder)
        self.chat_template = None
        self.eos_token = "<|im_end|>"
        self.init_kwargs: dict[str, object] = {}
        self.__dict__.update(attributes)


def test_choose_for_tokenizer_reads_its_template_and_config(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"model_type": "qwen3_moe"}', encoding="utf-8")
    choice = family.choose_for_tokenizer("rtc", _Tokenizer(tmp_path))
    assert choice.name == "qwen3_rtc" and "qwen3_moe" in choice.reason
    kwargs = {"response_template": _template("smollm3")}
    choice = family.choose_for_tokenizer("rtc", _Tokenizer(tmp_path, init_kwargs=kwargs))
    assert choice.name == "smollm3"
    choice = family.choose_for_tokenizer("rtc", _Tokenizer(tmp_path), model_type="glm4_moe")
    assert choice.name == "glm4_moe"
    with pytest.raises(family.FamilyError, match="unknown model_type"):
        family.choose_for_tokenizer("rtc", _Tokenizer(tmp_path / "none"))


def test_a_named_family_is_that_family() -> None:
    choice = family.choose("rtc-qwen3_coder", model_type="qwen3_moe")
    assert (
        choice.module is generated.get("qwen3_coder") and choice.reason == "named: rtc-qwen3_coder"
    )
    with pytest.raises(family.FamilyError, match="unknown rtc parser 'rtc-nope'.*rtc-xlam"):
        family.choose("rtc-nope")


def test_the_model_type_chooses_and_prefers_the_rtc_sibling() -> None:
    choice = family.choose("rtc", model_type="qwen3_moe")
    assert choice.name == "qwen3_rtc" and "sibling qwen3_rtc" in choice.reason
    choice = family.choose("rtc", model_type="gemma4")
    assert choice.name == "gemma4_rtc" and "sibling gemma4_rtc" in choice.reason
    assert family.choose("rtc", model_type="qwen3_5_moe").name == "qwen3_5_rtc"


def test_no_confident_answer_refuses_and_names_the_choices() -> None:
    with pytest.raises(family.FamilyError) as error:
        family.choose("rtc", model_type="llama")
    message = str(error.value)
    assert "model_type 'llama'" in message and "\n" not in message
    assert all(f"rtc-{name}" in message for name in generated.names())


def test_the_tokenizer_template_comes_first_in_any_key_order() -> None:
    template = _template("smollm3")
    shuffled = json.loads(json.dumps(template, sort_keys=True))  # as transformers saves it
    choice = family.choose("rtc", response_template=shuffled, model_type="qwen3")
    assert choice.name == "smollm3" and "catalogue's smollm3" in choice.reason
    with pytest.raises(family.FamilyError, match="response_template is invalid: fields"):
        family.choose("rtc", response_template={"fields": {"x": {"nope": 1}}})


def test_an_own_template_is_compiled_once() -> None:
    template = _template("smollm3")
    template["fields"]["content"]["content_args"] = {"strip": True}
    first = family.choose("rtc", response_template=template)
    assert first.name == "response_template" and first.module.TEMPLATE == template
    assert family.choose("rtc", response_template=json.loads(json.dumps(template))).module is (
        first.module
    )


def test_without_the_compiler_an_own_template_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import rtc.compiler

    def missing(name: str) -> None:
        raise ImportError("No module named 'jinja2'", name="jinja2")

    monkeypatch.setattr(rtc.compiler, "__getattr__", missing)
    monkeypatch.delitem(vars(rtc.compiler), "load", raising=False)
    monkeypatch.setattr(family, "_COMPILED", {})
    template = _template("smollm3")
    template["fields"]["content"]["content_args"] = {"strip": True}
    with pytest.raises(family.FamilyError, match=r"jinja2 is missing.*rtc\[compiler\].*RTC_PARSER"):
        family.choose("rtc", response_template=template)


def test_a_precompiled_parser_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(family.PARSER_ENV, "rtc.generated.xlam")
    assert family.choose("rtc", model_type="llama").module is generated.get("xlam")
    source = (CATALOGUE / "smollm3.py").read_text(encoding="utf-8")
    (tmp_path / "parser_mine.py").write_text(source, encoding="utf-8")
    monkeypatch.setenv(family.PARSER_ENV, str(tmp_path / "parser_mine.py"))
    assert family.choose("rtc").module.TEMPLATE == _template("smollm3")
    monkeypatch.setenv(family.PARSER_ENV, "json")
    with pytest.raises(family.FamilyError, match="not a parser written by `rtc compile`"):
        family.choose("rtc")


def _evidence(best: tuple[str, ...]):
    def evidence(chat_template: str, special_tokens: dict[str, str]) -> family.Evidence:
        assert chat_template == "{{ messages }}" and special_tokens == {"bos_token": "<s>"}
        return family.Evidence(best, "3/3 probes")

    return evidence


@pytest.mark.parametrize(
    ("model_type", "best", "chosen"),
    [
        ("llama", ("llama3",), "llama3"),  # a shared type settled by the chat template
        ("qwen3_moe", ("qwen3", "qwen3_coder"), "qwen3"),  # the model type breaks the tie
        ("qwen3_moe", ("qwen3_coder",), "qwen3_coder"),  # evidence overrules the type's default
        ("gemma4", ("gemma4", "gemma4_rtc"), "gemma4_rtc"),
        (None, ("qwen3_5", "qwen3_5_rtc"), "qwen3_5_rtc"),  # siblings are one format
    ],
)
def test_evidence_from_the_chat_template_settles_shared_model_types(
    model_type: str | None, best: tuple[str, ...], chosen: str
) -> None:
    choice = family.choose(
        "rtc",
        model_type=model_type,
        chat_template="{{ messages }}",
        special_tokens={"bos_token": "<s>"},
        evidence=_evidence(best),
    )
    assert choice.name == chosen and "3/3 probes" in choice.reason


def test_evidence_that_does_not_decide_refuses() -> None:
    with pytest.raises(family.FamilyError, match="rtc-llama3 or rtc-pythonic"):
        family.choose(
            "rtc",
            model_type="llama",
            chat_template="{{ messages }}",
            special_tokens={"bos_token": "<s>"},
            evidence=_evidence(("llama3", "pythonic")),
        )


def test_special_tokens_kept_are_the_delimiters_among_them() -> None:
    specials = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "[TOOL_CALLS]", "<unused>"]
    assert family.special_tokens_kept(generated.get("mistral"), specials) == ["[TOOL_CALLS]"]
    kept = family.special_tokens_kept(generated.get("qwen3"), specials)
    assert kept == ["<|im_start|>", "<|im_end|>", "<|endoftext|>"]  # written in its patterns


def test_merge_folds_a_feed_into_one_delta() -> None:
    deltas = [
        {"reasoning": "a"},
        {"content": "b"},
        {"tool_calls": [{"index": 0, "id": "x", "type": "function", "function": {"name": "f"}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"k": '}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]},
        {"reasoning": "c", "content": "d"},
    ]
    assert merge(deltas) == {
        "content": "bd",
        "reasoning": "ac",
        "tool_calls": [
            {
                "index": 0,
                "id": "x",
                "type": "function",
                "function": {"name": "f", "arguments": '{"k": 1}'},
            }
        ],
    }
    assert merge(deltas[:2] + deltas[5:], reasoning_as_content=True) == {"content": "abcd"}
    assert merge([]) == {}


def test_tool_dicts_take_what_the_stream_reads_from_engine_models() -> None:
    class Model:  # an engine's pydantic tool: dumped whole only when it is not a chat tool
        def __init__(self, **fields: Any) -> None:
            self.__dict__.update(fields)

        def model_dump(self, exclude_none: bool) -> dict[str, Any]:
            return {"type": "function", "name": self.__dict__["name"]}

    parameters = {"type": "object", "properties": {"n": {"type": "integer"}}}
    chat = Model(type="function", function=Model(name="f", description="d", parameters=parameters))
    bare = Model(type="function", function=Model(name="g", description=None, parameters=None))
    flat = Model(type="function", name="h")
    assert tool_dicts([chat, bare, flat, {"function": {"name": "i"}}]) == [
        {"type": "function", "function": {"name": "f", "parameters": parameters}},
        {"type": "function", "function": {"name": "g"}},
        {"type": "function", "name": "h"},
        {"function": {"name": "i"}},
    ]
    stream = generated.get("qwen3").DeltaStream("", tools=tool_dicts([chat]))
    stream.feed('<tool_call>{"name": "f", "arguments": {"n": "7"}}</tool_call>')
    _, message, _ = stream.finish()
    assert message["tool_calls"][0]["function"]["arguments"] == '{"n": 7}'  # typed by the schema


def test_a_request_uses_the_engine_ids_and_counts_its_tokens() -> None:
    module = generated.get("qwen3")
    tools = tool_dicts([{"type": "function", "function": {"name": "f"}}, "not a tool"])
    ids = iter(["engine-1", "engine-2"])
    request = Request(module, "", tools, lambda name: next(ids), log_name="test")
    text = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    deltas = request.start() + request.feed(text, [1, 2, 3])
    request.limit, request.stop_ids = 3, frozenset({3})
    assert not request.cut_by_length()  # the last token stopped it
    last, message = request.finish()
    calls = [entry for d in deltas + last for entry in d.get("tool_calls", ())]
    assert [c["id"] for c in calls if "id" in c] == ["engine-1"]
    assert message["tool_calls"][0]["id"] == "engine-1"
    request = Request(module, "", tools, lambda name: "x", log_name="test")
    request.feed("abc", [7, 8])
    request.limit = 2
    assert request.cut_by_length()


def test_a_request_computes_its_limit_only_where_it_decides() -> None:
    """The engine's token limit may be given as a function: not called where the last token
    stops the generation (the limit cannot make it ``length`` then), called once otherwise."""
    module = generated.get("qwen3")
    asked: list[int] = []

    def limit() -> int:
        asked.append(1)
        return 2

    for last, cut, calls in ((3, False, 0), (8, True, 1)):
        asked.clear()
        request = Request(module, "", [], lambda name: "x", log_name="test")
        request.limit, request.stop_ids = limit, frozenset({3})
        request.feed("abc", [7, last])
        assert request.cut_by_length() is cut and request.cut_by_length() is cut
        assert len(asked) == calls
    request = Request(module, "", [], lambda name: "x", log_name="test")
    request.limit = lambda: None  # unknown: never length
    request.feed("abc", [7, 8])
    assert not request.cut_by_length()


def test_reasoning_open_after_a_prompt() -> None:
    qwen3 = generated.get("qwen3")
    assert reasoning_open_after(qwen3, "<|im_start|>assistant\n<think>\n")
    assert not reasoning_open_after(qwen3, "<|im_start|>assistant\n")
    assert not reasoning_open_after(generated.get("xlam"), "")


def test_a_parser_at_the_floor_ranks_above_every_other() -> None:
    """vllm_compare's ratio of two times per token less the floor: where rtc's is not above the
    floor's (noise makes it 0.00 or -0.02 µs on a family whose tokens it returns as they
    come), the quotient is not a figure (negative, it would rank lowest of all): infinite."""
    from rtc.compiler.engines.vllm_compare import _over, _summary, _times

    assert _over(6.0, 1.5) == 4.0
    assert _over(6.0, 0.0) == _over(6.0, -0.02) == float("inf")
    assert _times(_over(6.0, -0.02)) == "at the floor" and _times(4.0) == "4.0x"
    results = [
        {"ratio": {"hf": ratio}, "raw_ratio": {"hf": 2.0}}
        for ratio in (4.6, _over(5.5, -0.02), 5.2)
    ]
    assert "median 5.2x, lowest 4.6x" in _summary(results)
    assert "median at the floor" in _summary(results[1:] + results[1:2])
