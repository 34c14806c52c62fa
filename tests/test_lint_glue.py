"""``glued-text``: words glued where a stripped text field's occurrences meet."""

from __future__ import annotations

from lint_helpers import chat_like, findings

from rtc.compiler.lint.findings import WARNING

CALLS = chat_like()["fields"]["tool_calls"] | {"open": "<tool_call>", "close": "</tool_call>"}
CALLS.pop("open_pattern")
CALLS.pop("close_pattern")
JOINED = {"close": "<|end|>", "repeats": True, "join": ""}
STRIPPED_JOINED = chat_like(content=JOINED, tool_calls=CALLS)


def test_stripped_pieces_joined_with_nothing_are_glued_in_the_message() -> None:
    (f,) = findings(STRIPPED_JOINED, "glued-text")
    assert f.severity == WARNING and f.path == "fields.content"
    assert " <tool_call>" in f.example.text and "</tool_call> " in f.example.text
    assert f.result["content"] == "It is sunny in Paris today.Anything else?"
    assert f.suggestion is not None and '"content_args": {"strip": false}' in f.suggestion
    assert '"repeats"' not in f.suggestion  # already set: only what changes is suggested


def test_where_the_delimiters_eat_the_whitespace_too_a_separator_is_suggested() -> None:
    (f,) = findings(chat_like(content=JOINED), "glued-text")  # the call's \\s* eat the spaces
    assert f.result["content"] == "It is sunny in Paris today.Anything else?"
    assert f.suggestion is not None and '"join": " "' in f.suggestion


def test_without_join_the_openai_stream_glues_the_content() -> None:
    (f,) = findings(chat_like(content={"close": "<|end|>"}, tool_calls=CALLS), "glued-text")
    assert f.example.runs[0].mode == "openai"
    assert f.result["content"] == "It is sunny in Paris today.Anything else?"
    assert '"repeats": true, "join": ""' in f.suggestion and '"strip": false' in f.suggestion


def test_repeated_explicit_regions_joined_with_nothing_are_glued() -> None:
    reasoning = {"open": "<think>", "close": "</think>", "repeats": True, "join": ""}
    (f,) = findings(chat_like(reasoning=reasoning), "glued-text")
    assert f.path == "fields.reasoning"
    assert f.result["reasoning"] == "The user wants the weather in Paris.I should call the tool."
    assert '"join": "\\n\\n"' in f.suggestion


def test_text_kept_as_written_or_joined_by_a_separator_is_not_glued() -> None:
    assert findings(chat_like(), "glued-text") == []  # content joined by a space
    spaced = chat_like(content={"close": "<|end|>", "repeats": True, "join": " "})
    assert findings(spaced, "glued-text") == []
    unstripped = {"close": "<|end|>", "repeats": True, "join": "", "content_args": {"strip": False}}
    assert findings(chat_like(content=unstripped), "glued-text") == []
