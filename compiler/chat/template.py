"""Rendering chat templates (jinja2), as transformers renders them, in a sandbox.

A chat template arrives with a downloaded model and is untrusted code. It is rendered in
jinja2's ``ImmutableSandboxedEnvironment`` (no access to unsafe attributes, no mutation of the
data passed in), with the environment transformers documents for chat templates:
``trim_blocks`` and ``lstrip_blocks``, the loop controls (``{% break %}``, ``{% continue %}``),
the ``{% generation %}`` block (rendered as its body), the globals ``raise_exception``,
``strftime_now``, ``namespace`` (no names starting with ``_``) and ``dict``, and a ``tojson``
filter that writes JSON as Python's ``json.dumps`` does (``ensure_ascii=False`` by default,
with ``indent``, ``separators`` and ``sort_keys``), never HTML-escaped.

The data a template sees is rebuilt from plain JSON values, and each message's reasoning is
offered under both ``reasoning_content`` and ``thinking`` (the names chat templates read), as
transformers does (``alias_reasoning=False`` passes each message as it is, to find out which key
a template reads). On top of the sandbox, ``*`` and ``**`` refuse to build huge values and a
render has a time limit (on the main thread), so a hostile template cannot exhaust the machine.

Written for rtc and checked differentially against transformers' own rendering
(``tests/test_lint_chat_template.py``).
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import jinja2
import jinja2.ext
import jinja2.nodes
import jinja2.sandbox
from jinja2.exceptions import SecurityError, TemplateError
from jinja2.utils import Namespace

from rtc.compiler.deadline import Timeout, time_limit

RENDER_SECONDS = 5.0
MAX_SIZE = 1 << 20
"""The largest string or list ``*`` may build (characters or items)."""

REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")


class ChatTemplateError(Exception):
    """The chat template could not be compiled or rendered; the message says why."""


class _Generation(jinja2.ext.Extension):
    """``{% generation %}…{% endgeneration %}``: marks assistant text for training masks;
    rendering only needs its body."""

    tags = {"generation"}

    def parse(self, parser: Any) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.Scope(body).set_lineno(lineno)


class _Environment(jinja2.sandbox.ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, op: str, left: Any, right: Any) -> Any:
        if op == "*":
            for value, count in ((left, right), (right, left)):
                if isinstance(value, (str, list, tuple)) and isinstance(count, int):
                    if len(value) * max(count, 0) > MAX_SIZE:
                        raise SecurityError("the template builds a value that is too large")
            return operator.mul(left, right)
        if op == "**":
            if isinstance(right, int) and abs(right) > 64:
                raise SecurityError("the template computes a power that is too large")
            return operator.pow(left, right)
        return super().call_binop(context, op, left, right)


class _TemplateDict:
    """``dict(...)`` for templates: builds dicts, exposes nothing else of the type."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict(*args, **kwargs)

    def fromkeys(self, keys: Any, value: Any = None) -> dict[Any, Any]:
        return dict.fromkeys(keys, value)


class _SafeNamespace(Namespace):
    """``namespace(...)`` whose attribute names cannot start with ``_``."""

    def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 -- jinja2's own signature
        self, rest = args[0], args[1:]
        values = dict(*rest, **kwargs)
        for name in values:
            _check_name(name)
        Namespace.__init__(self, values)

    def __setitem__(self, name: str, value: Any) -> None:
        _check_name(name)
        Namespace.__setitem__(self, name, value)


def _check_name(name: Any) -> None:
    if isinstance(name, str) and name.startswith("_"):
        raise SecurityError(f"namespace attribute {name!r}: names starting with _ are not allowed")


def _raise_exception(message: Any) -> Any:
    raise TemplateError(str(message))


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def plain(value: Any) -> Any:
    """``value`` rebuilt from JSON types only (anything else becomes ``"<TypeName>"``)."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    if isinstance(value, Mapping):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    return f"<{type(value).__name__}>"


def with_reasoning_aliases(message: Any) -> Any:
    """The message with its reasoning also under ``reasoning_content`` and ``thinking``."""
    if not isinstance(message, dict):
        return message
    reasoning = next((message[k] for k in REASONING_KEYS if message.get(k) is not None), None)
    if reasoning is None:
        return message
    aliased = {"thinking": reasoning}
    aliased.update(message)
    aliased["reasoning_content"] = reasoning
    return aliased


class ChatTemplate:
    """A compiled chat template; ``special_tokens`` (``bos_token``, …) are passed to it."""

    def __init__(
        self,
        source: str,
        special_tokens: Mapping[str, str] | None = None,
        now: Callable[[], datetime] = datetime.now,
    ) -> None:
        env = _Environment(
            trim_blocks=True,
            lstrip_blocks=True,
            extensions=[_Generation, jinja2.ext.loopcontrols],
        )
        env.filters["tojson"] = _tojson
        env.globals["raise_exception"] = _raise_exception
        env.globals["strftime_now"] = lambda fmt: now().strftime(fmt)
        env.globals["dict"] = _TemplateDict()
        env.globals["namespace"] = _SafeNamespace
        try:
            self._template = env.from_string(source)
        except (TemplateError, RecursionError) as exc:
            raise ChatTemplateError(f"the chat template does not compile: {exc}") from None
        self.source = source
        self.special_tokens = dict(special_tokens or {})

    def render(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        documents: list[dict[str, Any]] | None = None,
        add_generation_prompt: bool = False,
        alias_reasoning: bool = True,
        **kwargs: Any,
    ) -> str:
        """The text transformers' ``apply_chat_template(..., tokenize=False)`` gives."""
        context = {**self.special_tokens, **plain(kwargs)}
        chat = plain(messages)
        if alias_reasoning:
            chat = [with_reasoning_aliases(m) for m in chat]
        try:
            with time_limit(RENDER_SECONDS):
                return self._template.render(
                    messages=chat,
                    tools=plain(tools),
                    documents=plain(documents),
                    add_generation_prompt=add_generation_prompt,
                    **context,
                )
        except Timeout:
            raise ChatTemplateError(
                f"the chat template did not render within {RENDER_SECONDS:g} s"
            ) from None
        except (TemplateError, RecursionError, MemoryError) as exc:
            raise ChatTemplateError(f"the chat template raised: {exc}") from None
        except Exception as exc:  # template code failing on the data: its own error
            raise ChatTemplateError(
                f"the chat template failed: {type(exc).__name__}: {exc}"
            ) from None
