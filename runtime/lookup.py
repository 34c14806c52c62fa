"""Dotted placeholder lookups (``{content.arguments}``) for compiled transforms."""

from __future__ import annotations

from typing import Any


def lookup(value: Any, path: str, keys: tuple[str, ...]) -> Any:
    """Walk ``keys`` down from ``value``; ``path`` is the placeholder, for error messages."""
    for key in keys:
        if not isinstance(value, dict):
            raise ValueError(
                f"transform placeholder '{{{path}}}' cannot index into {type(value).__name__} "
                f"at '{key}'"
            )
        if key not in value:
            raise ValueError(
                f"transform placeholder '{{{path}}}' is missing key '{key}'. "
                f"Available: {sorted(value)}"
            )
        value = value[key]
    return value
