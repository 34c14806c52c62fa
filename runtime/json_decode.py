"""``json.loads`` of text, minus the decoder's entry and exit steps where they change nothing.

``json.loads(s)`` of a str does four things around one call of the decoder's scanner: it
rejects a leading byte-order mark, skips the JSON whitespace ``[ \\t\\n\\r]*`` before the value
(``idx``), turns the scanner's StopIteration ("no value at ``idx``") into JSONDecodeError, and
after the value skips whitespace again and rejects anything left ("Extra data"). Those steps
are Python code that costs more than the scanner itself on the short values models write
(a tool call's arguments, a parameter such as ``3``).

:func:`loads` calls that scanner directly at index 0. Where the text begins with whitespace or
a BOM (or is empty), no value begins there and the scanner raises StopIteration, as it does
for any other text without a value at its start: all of those go to ``json.loads`` itself,
which skips what it skips and gives the value or its own error. Otherwise ``idx`` is 0 and the
BOM check passes, so the scanner call is the one ``json.loads`` makes: its value is kept when
it consumed all the text (the trailing skip then finds nothing and "Extra data" cannot fire),
and the rest (trailing whitespace, extra data) goes to ``json.loads`` again. Errors the scanner
raises inside a value (JSONDecodeError, RecursionError, the integer digit limit's ValueError)
are the ones ``json.loads`` raises from that same call, and propagate unchanged.
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
_scan = make_scanner(json.JSONDecoder())


def loads(text: str) -> Any:
    """``json.loads(text)`` for a str ``text``: the same value, or the same exception."""
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        # No value at index 0: leading whitespace or a BOM (json.loads skips the one and
        # rejects the other), or no value at all ("Expecting value").
        return json.loads(text)
    if end == len(text):
        return value
    return json.loads(text)  # trailing whitespace, or extra data
