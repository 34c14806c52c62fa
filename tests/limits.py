"""What this interpreter's limits make of deeply nested input.

CPython's ``json`` rejects deep nesting with ``RecursionError``, and where it starts doing so
depends on the interpreter: 3.11 counts the parser's recursion against ``sys.getrecursionlimit()``
(about 1,000 levels), 3.12 against its own C limit (about 1,500), 3.13 against a larger one (about
10,000; ``"[" * 3000`` is then only an unclosed array). The reference and rtc inherit whatever the
interpreter does. Tests that feed deep input therefore ask here what this interpreter does and
demand that rtc answer like the reference on it, instead of assuming 3.11's behaviour.
"""

from __future__ import annotations

import functools
import json

DEEP = "[" * 3000
"""3,000 open brackets: a RecursionError on CPython 3.11 and 3.12, an unclosed array on 3.13."""


def json_error(text: str) -> type[Exception] | None:
    """What ``json.loads(text)`` raises on this interpreter (a JSON syntax error counts as a
    ``ValueError``), or ``None`` when it parses."""
    try:
        json.loads(text)
    except RecursionError:
        return RecursionError
    except ValueError:
        return ValueError
    return None


@functools.cache
def json_recursion_depth() -> int:
    """A nesting depth at which ``json.loads`` raises ``RecursionError`` here: the first of
    1,000, 2,000, 4,000, … that does.

    Found from a shallow stack, so it holds deeper in a test too: a deeper stack only lowers the
    depth at which the limit is reached.
    """
    depth = 1000
    while json_error("[" * depth) is not RecursionError:
        depth *= 2
        if depth > 1_000_000:
            raise AssertionError("json.loads never reaches a recursion limit on this interpreter")
    return depth


def too_deep() -> str:
    """Open brackets nested beyond what ``json`` accepts on this interpreter."""
    return "[" * json_recursion_depth()
