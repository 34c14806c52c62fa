"""Assistant turns as a chat template writes them: the prompt, and the text the model would write.

The prompt is the chat template's rendering of the conversation before the assistant message,
with the generation prompt. The assistant turn is what the rendering of the whole conversation
adds after that prompt; where the template writes a history turn differently from its own
generation prompt (a prefilled ``<think>`` that history turns do not have), the turn starts
after the common part of the two renderings, never inside a special token. A model stops at its
end-of-turn token, so the turn ends at the first of the given stop tokens (kept) and trailing
whitespace is removed; a template that always appends the next generation prompt (Cohere's)
has it taken off the end as well.

Tool calls are rendered with their arguments as objects, or as JSON strings (OpenAI's wire
form) where the template only accepts strings.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .template import ChatTemplate, ChatTemplateError

USER = {"role": "user", "content": "What is the weather in Paris, and what time is it there?"}


def stringified(message: dict[str, Any]) -> dict[str, Any]:
    """The message with tool-call arguments as JSON strings (OpenAI's wire form)."""
    out = copy.deepcopy(message)
    for call in out.get("tool_calls", []):
        call["function"]["arguments"] = json.dumps(call["function"]["arguments"])
    return out


def generation_prompt(
    chat: ChatTemplate,
    conversation: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    **kwargs: Any,
) -> tuple[str, str]:
    """(prompt, its generation prompt): the rendering of ``conversation`` with the generation
    prompt, and the text the generation prompt adds to the rendering without it."""
    prompt = chat.render(conversation, tools=tools, add_generation_prompt=True, **kwargs)
    bare = chat.render(conversation, tools=tools, **kwargs)
    return prompt, prompt[len(os.path.commonprefix([prompt, bare])) :]


@dataclass(frozen=True)
class Turn:
    """An assistant turn: the ``prompt`` before it and the ``text`` the model writes.

    ``continues`` is False where the rendering of the whole conversation does not begin with
    the prompt (its history turn is written differently from the generation prompt): the text
    then starts after their common part.
    """

    prompt: str
    text: str
    continues: bool


def render_turn(
    chat: ChatTemplate, message: dict[str, Any], stops: tuple[str, ...] = (), **options: Any
) -> tuple[str, str]:
    """(prompt, assistant turn): :func:`assistant_turn` without knowing whether the turn
    continues its prompt."""
    turn = assistant_turn(chat, message, stops, **options)
    return turn.prompt, turn.text


def assistant_turn(
    chat: ChatTemplate,
    message: dict[str, Any],
    stops: tuple[str, ...] = (),
    *,
    user: dict[str, Any] = USER,
    tools: list[dict[str, Any]] | None = None,
    kwargs: Mapping[str, Any] | None = None,
    alias_reasoning: bool = True,
) -> Turn:
    """The prompt and the assistant turn as the chat template renders ``message`` after
    ``user``.

    ``kwargs`` are passed to the template (``enable_thinking``…); ``alias_reasoning`` as in
    :meth:`ChatTemplate.render`. Raises :class:`ChatTemplateError` when the template cannot
    render the conversation.
    """
    extra = dict(kwargs or {})
    prompt, opening = generation_prompt(chat, [user], tools, **extra)
    try:
        whole = chat.render([user, message], tools=tools, alias_reasoning=alias_reasoning, **extra)
    except ChatTemplateError:
        if not message.get("tool_calls"):
            raise
        whole = chat.render(
            [user, stringified(message)], tools=tools, alias_reasoning=alias_reasoning, **extra
        )
    if whole.startswith(prompt):
        start = len(prompt)
    else:
        start = len(os.path.commonprefix([prompt, whole]))
        opened = whole.rfind("<", 0, start)
        if opened >= 0 and whole.find(">", opened, start) < 0:
            start = opened  # do not cut a special token in two
    turn = whole[start:]
    ends = [turn.find(stop) + len(stop) for stop in stops if stop and stop in turn]
    if ends:
        turn = turn[: min(ends)]
    turn = turn.rstrip()
    if opening.strip() and turn.endswith(opening.rstrip()) and len(turn) > len(opening.rstrip()):
        turn = turn[: -len(opening.rstrip())].rstrip()  # the next generation prompt, appended
    return Turn(prompt, turn, whole.startswith(prompt))
