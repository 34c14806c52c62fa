"""``json.loads`` of text, minus the decoder's entry and exit steps where they change nothing.

``json.loads(s)`` of a str does four things around one call of the decoder's scanner: it
rejects a leading byte-order mark, skips the JSON whitespace ``[ \\t\\n\\r]*`` before the value
(``idx``), turns the scanner's StopIteration ("no value at ``idx``") into JSONDecodeError, and
after the value skips whitespace again and rejects anything left ("Extra data"). Those steps
are Python code that costs more than the scanner itself on the short values models write
(a tool call's arguments, a parameter such as ``3``).

:func:`loads` calls that scanner itself, at the index after the leading JSON whitespace (the
``idx`` json.loads computes), and keeps its value when only JSON whitespace follows it (where
json.loads returns that value too). A text that begins with a BOM has no value at index 0, so
the scanner raises StopIteration there, as it does for any text without a value where it
looks: all of those go to ``json.loads`` itself, which gives its own error (the BOM's, or
"Expecting value"). So does a value followed by anything else ("Extra data"). Errors the
scanner raises inside a value (JSONDecodeError, RecursionError, the integer digit limit's
ValueError) come from the very call ``json.loads`` makes, and propagate unchanged.
``tests/test_json_decode.py`` checks the equivalence on random and hostile text.
"""

from __future__ import annotations

import json
from json.scanner import make_scanner
from typing import Any

__all__ = ["loads"]

# The scanner of a decoder with json.loads' defaults (plain dicts and lists, float and int for
# numbers, NaN/Infinity/-Infinity accepted, control characters in strings rejected): the C
# scanner where CPython has it, as json.loads uses.
_scan = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # (typeshed: a context)

# JSON whitespace, which json.loads skips before and after the value (nothing else).
_SPACE = " \t\n\r"
_SPACE_SET = frozenset(_SPACE)


def loads(text: str) -> Any:
    """``json.loads(text)`` for a str ``text``: the same value, or the same exception."""
    start = 0
    if text[:1] in _SPACE_SET:
        start = len(text) - len(text.lstrip(_SPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration:
        # No value where json.loads would look (a BOM, or nothing a value begins with): it
        # raises the error for that.
        return json.loads(text)
    if end == len(text) or not text[end:].strip(_SPACE):
        return value
    return json.loads(text)  # extra data after the value: json.loads raises the error
