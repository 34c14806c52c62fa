"""Each lint check: a template that triggers it, one that does not, and the example re-run.

``findings()`` re-runs every example on a fresh probe (the compiled parser) and checks that it
gives the recorded result; the tests below then check that the result shows what the finding
says (the value that was lost, the exception, the two different messages, ...).
"""

from __future__ import annotations

import json

import pytest
from lint_helpers import TOOL_TRANSFORM, chat_like, findings, outcomes, raised_types, template

from rtc.compiler.lint import lint, outputs
from rtc.compiler.lint.backtracking import analyse
from rtc.compiler.lint.findings import ERROR, INFO, WARNING
from rtc.compiler.lint.probe import Probe, ProbeTimeout, is_raised, same

CLEAN = chat_like()


def test_a_careful_template_has_no_findings_above_info() -> None:
    found = findings(CLEAN)
    assert [f for f in found if f.severity != INFO] == []


# -- overwritten-field ---------------------------------------------------------------------


def test_overwritten_implicit_field_keeps_only_the_text_after_a_tool_call() -> None:
    tpl = chat_like(content={"close": "<|end|>"})
    found = findings(tpl, "overwritten-field")
    around = [f for f in found if "after a `tool_calls` region" in f.message]
    assert len(around) == 1 and around[0].severity == WARNING
    assert around[0].path == "fields.content"
    result = around[0].result
    assert result["content"] == "Anything else?"
    assert "It is sunny" in around[0].example.text and "It is sunny" not in str(result)
    assert around[0].suggestion and '"join": ""' in around[0].suggestion
    trailing = [f for f in found if "newline after" in f.message]
    assert len(trailing) == 1 and "content" not in trailing[0].result
    assert trailing[0].example.text.endswith("<|end|>\n")
    assert "close_pattern" in trailing[0].suggestion


def test_overwritten_explicit_field_is_info_and_repeats_fields_are_not_reported() -> None:
    found = findings(CLEAN, "overwritten-field")
    assert [f.path for f in found] == ["fields.reasoning"]
    (f,) = found
    assert f.severity == INFO
    assert f.result["reasoning"] == "I should call the tool."
    assert "The user wants" in f.example.text
    assert '"repeats": true, "join": "\\n\\n"' in f.suggestion  # checked on the changed copy
    repeating = chat_like(
        reasoning={"open": "<think>", "close": "</think>", "repeats": True, "join": "\n"}
    )
    assert findings(repeating, "overwritten-field") == []


# -- ambiguous-delimiters and unreachable-field --------------------------------------------


TIED = template(
    {
        "beta": {"open": "<x>", "close": "</x>"},
        "alpha": {"open": "<x>", "close": "</x>"},
        "content": {},
    }
)


def test_tied_delimiters_go_to_the_alphabetically_first_field() -> None:
    (f,) = findings(TIED, "ambiguous-delimiters")
    assert f.severity == WARNING
    assert "tie-break" in f.message
    assert f.result.get("alpha") and "beta" not in f.result


def test_prefix_delimiters_are_info() -> None:
    tpl = template(
        {
            "note": {"open": "<n", "close": "</n>"},
            "name": {"open": "<name>", "close": "</name>"},
            "content": {},
        }
    )
    (f,) = findings(tpl, "ambiguous-delimiters")
    assert f.severity == INFO
    assert f.path == "fields.note.open"
    assert f.result.get("name") and "note" not in f.result  # the longer delimiter won
    assert findings(CLEAN, "ambiguous-delimiters") == []


def test_a_prefix_whose_rest_can_begin_ordinary_text_misroutes_it_and_is_a_warning() -> None:
    # `<|channel|>final` opens the answer, `<|channel|>` the analysis: analysis that starts
    # with "final" opens the answer instead.
    tpl = template(
        {
            "analysis": {"open": "<|channel|>", "close": "<|end|>"},
            "content": {"open": "<|channel|>final", "close": "<|end|>"},
        }
    )
    (f,) = findings(tpl, "ambiguous-delimiters")
    assert f.severity == WARNING and f.path == "fields.analysis.open"
    assert f.example.text.startswith("<|channel|>final ")
    assert "analysis" not in f.result and f.result["content"].startswith("The user wants")
    assert "`final`" in f.message and f.suggestion


def test_unreachable_field_never_gets_a_value() -> None:
    (f,) = findings(TIED, "unreachable-field")
    assert f.path == "fields.beta"
    assert "beta" not in f.result and f.example.text.startswith("<x>")
    assert findings(CLEAN, "unreachable-field") == []


def test_a_zero_width_implicit_close_makes_content_unreachable() -> None:
    tpl = template({"content": {"close_pattern": ""}})
    (f,) = findings(tpl, "unreachable-field")
    assert f.path == "fields.content" and "content" not in f.result


def test_a_field_the_sampler_cannot_open_is_reported_as_unprobed_not_passed() -> None:
    # The open ends in a grapheme cluster (\X: one or more characters), a construct the
    # sampler does not model: no region of the field can be built and its checks skip it.
    opening = "<tool_call>\\X"
    calls = chat_like()["fields"]["tool_calls"] | {"open_pattern": opening}
    (f,) = findings(chat_like(tool_calls=calls), "unprobed-field")
    assert f.severity == INFO and f.path == "fields.tool_calls.open_pattern"
    assert "`tool_calls`" in f.message and f.example is None
    assert findings(CLEAN, "unprobed-field") == []


# -- chunk-dependent -----------------------------------------------------------------------


def test_an_end_of_text_alternative_makes_results_chunk_dependent() -> None:
    tpl = chat_like(content={"close_pattern": "<\\|end\\|>\\s*|$", "repeats": True, "join": ""})
    (f,) = findings(tpl, "chunk-dependent")
    assert f.path == "fields.content.close_pattern"
    one, streamed = outcomes(f)
    assert not same(one, streamed)
    assert "<|end|>" in streamed["content"] and "<|end|>" not in one["content"]
    assert f.suggestion and "`<\\|end\\|>\\s*`" in f.suggestion


def test_an_optional_tail_makes_results_chunk_dependent() -> None:
    calls = chat_like()["fields"]["tool_calls"] | {"close_pattern": "</tool_call>(?:<done>)?"}
    (f,) = findings(chat_like(tool_calls=calls), "chunk-dependent")
    assert f.path == "fields.tool_calls.close_pattern" and "optional" in f.message
    one, streamed = outcomes(f)
    assert "<done>" in str(streamed) and "<done>" not in str(one)
    assert findings(CLEAN, "chunk-dependent") == []


# -- stop-token-dependent ------------------------------------------------------------------


def test_a_close_that_needs_the_end_of_turn_token_raises_without_it() -> None:
    calls = chat_like()["fields"]["tool_calls"] | {
        "open_pattern": "<tool_call>",
        "close_pattern": "\\}<\\|end\\|>",
    }
    (f,) = findings(chat_like(tool_calls=calls), "stop-token-dependent")
    assert f.severity == ERROR and f.path == "fields.tool_calls.close_pattern"
    without, with_token = outcomes(f)
    assert is_raised(without) and not is_raised(with_token)
    assert not f.example.text.endswith("<|end|>")
    assert findings(CLEAN, "stop-token-dependent") == []


def test_the_tokenizers_eos_token_is_an_end_of_turn_token() -> None:
    tpl = template({"content": {"close": "</s>"}, "note": {"open": "<n>", "close": "]</eos>"}})
    assert findings(tpl, "stop-token-dependent") == []
    (f,) = findings(tpl, "stop-token-dependent", special_tokens={"eos_token": "</eos>"})
    assert f.path == "fields.note.close"


# -- raises-on-output ----------------------------------------------------------------------


def test_a_transform_that_needs_a_missing_capture_raises_on_every_call() -> None:
    calls = {"open": "<call>", "close": "</call>", "content": "json", "transform": TOOL_TRANSFORM}
    found = findings(chat_like(tool_calls=calls), "raises-on-output")
    errors = [f for f in found if f.severity == ERROR]
    assert errors and {t for f in errors for t in raised_types(f)} == {"KeyError"}


def test_truncated_json_raises_and_allow_non_json_is_suggested() -> None:
    (f,) = findings(CLEAN, "raises-on-output")
    assert f.severity == INFO and f.path == "fields.tool_calls"
    assert raised_types(f) == ["ValueError"]
    assert "allow_non_json" in f.suggestion
    calls = CLEAN["fields"]["tool_calls"] | {"content_args": {"allow_non_json": True}}
    assert findings(chat_like(tool_calls=calls), "raises-on-output") == []


# -- narrow-tool-name ----------------------------------------------------------------------


def _named_calls(name_pattern: str) -> dict:
    return chat_like(
        tool_calls={
            "open_pattern": f"<tool_call name=(?P<name>{name_pattern})>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": TOOL_TRANSFORM,
        }
    )


def test_a_word_capture_rejects_hyphenated_tool_names() -> None:
    (f,) = findings(_named_calls("\\w+"), "narrow-tool-name")
    assert f.severity == ERROR and f.path == "fields.tool_calls.open_pattern"
    assert "get-weather" in f.example.text and "tool_calls" not in f.result
    assert "[\\w-]+" in f.suggestion
    assert findings(_named_calls("[\\w-]+"), "narrow-tool-name") == []


def test_the_openai_names_are_all_valid_openai_names() -> None:
    import re

    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", n) for n in outputs.OPENAI_NAMES)


# -- non-terminating -----------------------------------------------------------------------


def test_zero_width_delimiters_that_refire_are_non_terminating() -> None:
    tpl = template({"x": {"open_pattern": "(?=a)", "close_pattern": "(?=a)"}, "content": {}})
    (f,) = findings(tpl, "non-terminating")
    assert f.severity == ERROR and f.path == "fields.x.open_pattern"
    assert "LoopError" in raised_types(f)
    assert findings(CLEAN, "non-terminating") == []


# -- unbounded-holdback --------------------------------------------------------------------


def test_a_lookahead_open_holds_back_everything() -> None:
    reasoning = {"open_pattern": "(?=[\\s\\S]*?</think>)", "close_pattern": "</think>\\s*"}
    (f,) = findings(chat_like(reasoning=reasoning), "unbounded-holdback")
    assert f.path == "fields.reasoning.open_pattern"
    assert f.result["characters emitted before finalize"] == 0
    assert f.result["characters fed"] > 100


def test_a_lookbehind_keeps_the_whole_buffer() -> None:
    # A look-behind of unbounded width: the parser keeps everything before the search position.
    reasoning = {"open_pattern": "(?<=\\n[^<]*)<think>", "close": "</think>"}
    (f,) = findings(chat_like(reasoning=reasoning), "unbounded-holdback")
    assert "looks behind" in f.message and f.path == "fields.reasoning.open_pattern"
    assert findings(CLEAN, "unbounded-holdback") == []


def test_a_bounded_lookbehind_keeps_only_its_context() -> None:
    # One character back: the parser keeps that character (a bounded context), not the buffer.
    reasoning = {"open_pattern": "(?<=\\n)<think>", "close": "</think>"}
    assert findings(chat_like(reasoning=reasoning), "unbounded-holdback") == []


# -- catastrophic-backtracking -------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "pump"),
    [("<x>(?:a|aa)+</x>", "aa"), ("<x>(\\w+\\s?)+</x>", "a"), ("<x>(?:.*?,){11}</x>", ",")],
)
def test_ambiguous_repeats_are_catastrophic(pattern: str, pump: str) -> None:
    tpl = chat_like(reasoning={"open_pattern": pattern, "close": "</r>"})
    (f,) = findings(tpl, "catastrophic-backtracking")
    assert f.path == "fields.reasoning.open_pattern" and f.severity == WARNING
    blowup = analyse(pattern)
    assert blowup.pump == pump and f.example.text == "<x>" + pump * 8
    assert blowup.exponential and blowup.ways[2] > 100 * blowup.ways[0]


@pytest.mark.parametrize("pattern", ["<x>[a-z]+</x>", "<x>(?:\\w+,)*</x>", "\\s*<tool_call>"])
def test_unambiguous_repeats_are_not(pattern: str) -> None:
    assert analyse(pattern) is None


def test_a_tag_pattern_is_analysed_too() -> None:
    calls = CLEAN["fields"]["tool_calls"] | {
        "content": "xml-inline",
        "content_args": {"tag_pattern": "<(?P<key>\\w+)>(?P<value>(?:a|aa)+)</\\w+>"},
        "transform": {"type": "function", "function": {"name": "f", "arguments": "{content}"}},
    }
    (f,) = findings(chat_like(tool_calls=calls), "catastrophic-backtracking")
    assert f.path == "fields.tool_calls.content_args.tag_pattern"
    assert f.example.text.startswith("<tool_call><") and f.example.text.endswith("</tool_call>")


def test_a_probe_over_its_time_limit_stops_the_lint(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(self, prefix, text, mode, chunk=1, tools=True):  # noqa: ANN001
        raise ProbeTimeout(prefix, text)

    monkeypatch.setattr(Probe, "run", slow)
    (f,) = lint(CLEAN)
    assert f.code == "catastrophic-backtracking" and f.severity == ERROR
    assert f.result["exception"] == "TimeoutError"


# -- bounded and deterministic -------------------------------------------------------------


def test_the_lint_is_deterministic() -> None:
    tpl = chat_like(content={"close": "<|end|>"})
    first = [f.to_json() for f in lint(tpl)]
    second = [f.to_json() for f in lint(json.loads(json.dumps(tpl)))]
    assert first == second


def test_probe_texts_are_bounded_for_large_templates() -> None:
    from rtc.compiler import validate
    from rtc.compiler.lint.shapes import TOOLS
    from rtc.compiler.lint.texts import MAX_TEXTS, Corpus

    fields = {f"f{i}": {"open": f"<f{i}>", "close": f"</f{i}>"} for i in range(40)}
    tpl = template({**fields, "content": {"close": "<|end|>"}})
    probe = Probe(tpl, TOOLS)
    texts = Corpus(validate(tpl), probe).texts()
    assert len(texts) == MAX_TEXTS
    assert max(len(t.text) for t in texts) < 200


def test_probe_regions_close_with_their_own_delimiter_before_the_end_of_turn() -> None:
    from rtc.compiler import validate
    from rtc.compiler.lint.shapes import TOOLS
    from rtc.compiler.lint.texts import Corpus

    # `<|end|>` is listed first and is the longer one, but it is the end-of-turn text.
    tpl = chat_like(reasoning={"open": "<t>", "close": ["<|end|>", "</t>"]})
    corpus = Corpus(validate(tpl), Probe(tpl, TOOLS))
    assert corpus.end == "<|end|>"
    assert corpus.part("reasoning").close.text == "</t>"


# -- slow-prose ----------------------------------------------------------------------------


def test_prose_led_delimiters_send_chunks_off_the_fast_path() -> None:
    # A call open made of common letters ("[Tt]ool call:", which begins with no one literal,
    # so Fast.starts cannot clear them): prose chunks holding its characters are searched; the
    # share is counted (the same on every run), not timed.
    call = {**chat_like()["fields"]["tool_calls"], "open_pattern": "\\s*[Tt]ool call:"}
    tpl = chat_like(tool_calls=call)
    (f,) = findings(tpl, "slow-prose")
    assert f.severity == WARNING and f.path == "fields"
    assert "of token-sized chunks of prose leave the fast path" in f.message
    assert [x.to_json() for x in findings(tpl, "slow-prose")] == [f.to_json()]


def test_special_token_delimiters_keep_prose_on_the_fast_path() -> None:
    assert findings(CLEAN, "slow-prose") == []


def test_a_delimiter_without_known_needed_characters_is_info() -> None:
    # A close that matches where a JSON value ends has no character every match needs.
    tpl = chat_like(content={"close_pattern": "(?<=\\})\\s*$", "repeats": True, "join": " "})
    found = findings(tpl, "slow-prose")
    assert found and all(f.severity == INFO for f in found)
    assert "no chunk takes the fast path" in found[0].message
