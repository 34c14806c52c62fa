"""Turning template data into Python source, safely.

Nothing from a template reaches generated code except through :func:`py_literal` (data) or
:func:`comment_text` (a comment): both produce text that Python reads back as the same value
and that cannot close a literal or start a new statement.
"""

from __future__ import annotations

import json
import math
from typing import Any

# Deeper or bigger data is embedded as a JSON string parsed at import: it keeps the generated
# source within Python's parser limits (nesting depth) and keeps huge values off the code path.
MAX_LITERAL_DEPTH = 12
MAX_LITERAL_NODES = 400


def _shape(value: Any, depth: int = 0) -> tuple[int, int]:
    """(max depth, node count) of JSON data, iteratively bounded."""
    max_depth = depth
    nodes = 0
    stack = [(value, depth)]
    while stack:
        item, d = stack.pop()
        nodes += 1
        max_depth = max(max_depth, d)
        if max_depth > MAX_LITERAL_DEPTH or nodes > MAX_LITERAL_NODES:
            break
        if isinstance(item, dict):
            stack.extend((v, d + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, d + 1) for v in item)
    return max_depth, nodes


def fits_inline(value: Any) -> bool:
    depth, nodes = _shape(value)
    return depth <= MAX_LITERAL_DEPTH and nodes <= MAX_LITERAL_NODES


def _inline(value: Any) -> str:
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_inline(k)}: {_inline(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"not JSON data: {type(value).__name__}")


def py_literal(value: Any) -> str:
    """A Python expression that evaluates to a fresh copy of the JSON ``value``."""
    if fits_inline(value):
        return _inline(value)
    return f"_json.loads({json.dumps(value, ensure_ascii=True)!r})"


def comment_text(text: str, limit: int = 60) -> str:
    """A short, single-line, printable rendering of ``text`` for a comment."""
    shown = text if len(text) <= limit else text[:limit] + "..."
    return ascii(shown)
