"""OpenAI function-tool declarations, written compactly where rtc declares its own tools (the
benchmark's and the offline corpus's generations, the lint's probes)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer"}


def function_tool(
    name: str,
    description: str,
    properties: dict[str, Any],
    required: Sequence[str] | None = None,
) -> dict[str, Any]:
    """``{"type": "function", "function": {...}}`` taking an object of ``properties`` (copied:
    declarations never share a schema object), ``required`` ones listed if given."""
    parameters: dict[str, Any] = {"type": "object", "properties": copy.deepcopy(properties)}
    if required is not None:
        parameters["required"] = list(required)
    function = {"name": name, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}
