"""Test ids that are the same in every process.

pytest-xdist workers each collect the suite and must agree on every test id; a ``repr`` that holds a
memory address (``<function f at 0x7f…>``) differs from process to process, so ids leave it out.
"""

from __future__ import annotations

import re

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def stable_repr(value: object) -> str:
    """``repr(value)`` without memory addresses."""
    return _ADDRESS.sub("", repr(value))
