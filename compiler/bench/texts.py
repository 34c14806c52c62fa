"""What the generations say: the tools offered, the calls made, short answers and prose."""

from __future__ import annotations

import random
from typing import Any

from ..tool_decls import INTEGER, STRING, function_tool

TOOLS: list[dict[str, Any]] = [
    function_tool(
        "get_weather",
        "Get the current weather and a short forecast for a location.",
        {
            "location": {"type": "string", "description": "City and country"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer", "description": "Number of forecast days"},
        },
        ["location"],
    ),
    function_tool(
        "get_time", "Get the current local time in a timezone.", {"timezone": STRING}, ["timezone"]
    ),
    function_tool(
        "search_web",
        "Search the web and return the top results.",
        {"query": STRING, "max_results": INTEGER},
        ["query"],
    ),
    function_tool(
        "set_alarm",
        "Set an alarm.",
        {"hour": INTEGER, "minute": INTEGER, "label": STRING},
        ["hour", "minute"],
    ),
]

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_weather", {"location": "Paris, France", "unit": "celsius", "days": 3}),
    ("get_time", {"timezone": "Europe/Paris"}),
    ("search_web", {"query": "best bakeries near the Louvre", "max_results": 5}),
    ("set_alarm", {"hour": 7, "minute": 30, "label": "wake up"}),
]

NOTE_TOOL = function_tool(
    "save_note", "Save a note for the user.", {"title": STRING, "text": STRING}, ["title", "text"]
)
"""A tool whose call carries a long string argument (the ``arguments`` region workloads)."""


def note_call(text: str) -> tuple[str, dict[str, Any]]:
    """A call of ``NOTE_TOOL`` whose ``text`` argument is ``text``."""
    return ("save_note", {"title": "Plan for the morning", "text": text})


SHORT_REASONING = (
    "The user asks about the weather in Paris. A general answer is enough here, so no tool is "
    "needed; keep it brief."
)
SHORT_CONTENT = "Paris is mild today, around 17 °C with a light breeze: no umbrella needed."
CALL_REASONING = (
    "The user wants the weather in Paris and the local time there. Both need a tool: call "
    "get_weather first."
)
CALL_CONTENT = "Let me check."


_WORDS = (
    "the user wants a clear answer so I should check each step before writing it down "
    "first consider what the question really asks then compare the options and note which "
    "assumptions hold because a careful plan avoids mistakes later the data suggests a small "
    "change is enough but the edge cases matter too let me verify the numbers again and make "
    "sure the result stays consistent with what was said earlier café naïve déjà vu"
).split()


def prose(size: int, seed: int = 0) -> str:
    """Readable text of exactly ``size`` characters, deterministic for a seed.

    Sentences of plain words, with now and then a comparison ``x < 10`` (a lone ``<`` keeps
    tag-shaped delimiters' partial matching honest) and a few non-ASCII letters; no brackets,
    braces or parentheses, which delimiter patterns of real templates use.
    """
    rng = random.Random(seed)
    parts: list[str] = []
    length = 0
    while length < size:
        words = rng.choices(_WORDS, k=rng.randint(8, 18))
        sentence = " ".join(words).capitalize()
        if rng.random() < 0.15:
            sentence += f", since x < {rng.randint(2, 99)}"
        sentence += "." + ("\n\n" if rng.random() < 0.2 else " ")
        parts.append(sentence)
        length += len(sentence)
    text = "".join(parts)[:size]
    # No trailing whitespace: text fields are stripped, and the check compares them.
    return text[:-1] + "." if text[-1:].isspace() else text
