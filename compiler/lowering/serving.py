"""What the OpenAI delta layer needs to know about a template, decided at compile time.

``rtc.runtime.openai`` turns a parser's events into OpenAI chat-completion deltas. What can be
known before any text arrives is decided here and emitted into the module as a few class
attributes of its ``DeltaStream``:

- the role of each field: a plain text field named ``content`` is streamed as content, one
  named ``reasoning_content``, ``thinking`` or ``reasoning`` as reasoning, ``tool_calls`` holds
  calls, anything else is returned whole;
- whether a streamed field's value is stripped;
- for a tool-call field, whether a call can still be rejected once its opening has matched and,
  if it cannot, where its name comes from and whether its parameters can be sent one by one.

Each "cannot be rejected" answer is a proof over every possible body, made conservatively:
whatever this module cannot prove is sent whole after the call closes, which is always right.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

import regex

from rtc.runtime.openai import REASONING_NAMES
from rtc.runtime.transform import PLACEHOLDER

from ..content_spec import ContentSpec
from ..literals import comment_text
from ..model import Field, Template
from ..plan import CallPlanSpec, Pattern, Serving
from ..regex_syntax.fast_paths import always_groups, param_shape
from .namespace import Namespace


@dataclass
class CallFacts:
    """What was proved about one tool-call field, and why (for the comment)."""

    why: str
    announce: bool = False
    name: str | None = None
    name_group: str | None = None
    params: str | None = None  # the tag pattern, sent one completed parameter at a time
    param_end: str = ""


def _safe_value(spec: ContentSpec) -> bool:
    """The value parser (if any) returns a value for every text: none, ``text`` or ``bool``."""
    return spec.value_ok and (spec.value is None or spec.value.kind in ("text", "bool"))


def content_cannot_raise(f: Field) -> str | None:
    """None when the field's content parser returns a value for every body, else why not."""
    spec = f.spec
    if not spec.is_object:
        return "its content_args are not an object"
    if spec.kind in ("text", "bool"):
        return None
    if spec.kind == "kv-lines":
        if spec.problem is not None:
            return spec.problem  # a separator that can fail
        return None if _safe_value(spec) else "its value parser can fail"
    if spec.kind != "xml-inline":
        return f"its {spec.kind} content can be rejected"
    tag = spec.tag_pattern
    if tag is None:
        return "its tag_pattern is missing or invalid"
    always = always_groups(tag)
    if "key" not in always:
        return "its tag_pattern may match without a key"
    if not _safe_value(spec):
        return "its value parser can fail"
    groups = regex.compile(tag, regex.DOTALL).groupindex
    if spec.value is not None and "value" in groups and "value" not in always:
        return "its value parser can be given no value"
    return None


def _placeholders(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [p for v in node.values() for p in _placeholders(v)]
    if isinstance(node, list):
        return [p for v in node for p in _placeholders(v)]
    if isinstance(node, str):
        whole = PLACEHOLDER.fullmatch(node)
        return [whole.group(1)] if whole else []
    return []


def call_facts(f: Field, t: Template) -> CallFacts:
    """How early the calls of the tool-call field ``f`` can be sent."""
    if f.join is not None:
        return CallFacts("sent whole: 'join' makes every call fail")
    if f.repeats and f.name in t.defaults and not isinstance(t.defaults[f.name], list):
        return CallFacts("sent whole: its default is not a list")
    problem = content_cannot_raise(f)
    if problem is not None:
        return CallFacts(f"sent whole once closed and checked: {problem}")
    transform = f.transform
    function = transform.get("function") if isinstance(transform, dict) else None
    if f.transform_each or not isinstance(function, dict):
        return CallFacts("sent whole: the shape of its value is only known at its close")
    opening = f.open
    groups = always_groups(opening.pattern) if opening and not opening.is_literal else set()
    groups.discard("content")  # shadowed by the parsed content in a transform's scope
    for path in _placeholders(transform):
        if path != "content" and path not in groups:
            return CallFacts(f"sent whole: its transform's {{{path}}} can fail")
    name = function.get("name")
    facts = CallFacts("announced when it opens: it cannot be rejected after that", announce=True)
    if isinstance(name, str) and PLACEHOLDER.fullmatch(name) is None:
        facts.name = name
    elif isinstance(name, str) and name[1:-1] in groups:
        facts.name_group = name[1:-1]
    else:
        return CallFacts("sent whole: its name is only known at its close")
    spec = f.spec
    tag = spec.tag_pattern if spec.kind == "xml-inline" else None
    end = param_shape(tag) if tag is not None else None
    if (
        end is not None
        and function.get("arguments") == "{content}"
        and spec.value is None
        and not spec.merge_duplicates
    ):
        facts.params = tag
        facts.param_end = end
        facts.why += "; its arguments follow one completed parameter at a time"
    else:
        facts.why += "; its arguments follow at its close"
    return facts


def lower_serving(ns: Namespace, t: Template) -> Serving:
    """The ``DeltaStream`` attributes of template ``t``."""
    roles: list[str] = []
    strip: list[bool] = []
    calls: list[CallPlanSpec | None] = []
    patterns: list[Pattern] = []
    for f in t.fields:
        role = None
        if f.name == "tool_calls":
            role = "tool_calls"
        elif f.name == "content" or f.name in REASONING_NAMES:
            default = t.defaults.get(f.name)
            if (
                f.spec.kind == "text"
                and f.spec.is_object
                and not f.has_transform
                and (f.join is not None or not f.repeats)
                and (default is None or isinstance(default, str))
            ):
                role = "content" if f.name == "content" else "reasoning"
        roles.append(repr(role))
        strip.append(role in ("content", "reasoning") and f.spec.strip)
        if role != "tool_calls":
            calls.append(None)
            continue
        facts = call_facts(f, t)
        params = ""
        if facts.params is not None:
            pattern = Pattern(
                ns.name(f"params_{f.name}"),
                f"parameters of {comment_text(f.name)}",
                repr(facts.params),
            )
            patterns.append(pattern)
            ns.imports.regex = True
            params = pattern.name
        calls.append(
            CallPlanSpec(
                why=tuple(textwrap.wrap(f"{comment_text(f.name)}: {facts.why}.", 88)),
                announce=facts.announce,
                name=repr(facts.name) if facts.name is not None else "",
                name_group=repr(facts.name_group) if facts.name_group is not None else "",
                params=params,
                param_end=repr(facts.param_end) if params else "",
                closes=f.close is not None,
            )
        )
    if any(c is not None for c in calls):
        ns.imports.add("openai", "CallPlan")
    return Serving(tuple(roles), tuple(strip), tuple(calls), tuple(patterns))
