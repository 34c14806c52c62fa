"""How numbers and tables are written in the bench's reports (text and Markdown)."""

from __future__ import annotations

import math
from typing import Any


def num(value: float | None, suffix: str = "", digits: int = 3) -> str:
    """``value`` with ``digits`` significant digits (at least its integer part), "-" for None."""
    if value is None:
        return "-"
    if value == 0:
        return f"0{suffix}"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    return f"{value:.{decimals}f}{suffix}"


def cell(side: dict[str, Any] | None, key: str, suffix: str = "") -> str:
    """One side's ``key`` (``us``, ``mb_s``), or the first word of its status when not ok."""
    if side is None:
        return "-"
    status = str(side.get("status", "-"))
    if status != "ok":
        # The details (error messages, why skipped) are listed under the table.
        return status.split(":")[0]
    return num(side.get(key), suffix)


def table(rows: list[list[str]], header: list[str], indent: str = "  ", left: int = 3) -> list[str]:
    """Aligned text columns: the first ``left`` to the left, the others (numbers) to the right."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [
            text.ljust(widths[i]) if i < left else text.rjust(widths[i])
            for i, text in enumerate(row)
        ]
        lines.append(indent + "  ".join(cells).rstrip())
    return lines


def size_text(nbytes: int) -> str:
    if nbytes >= 10 * 1024:
        return f"{nbytes / 1024:.0f} KB"
    if nbytes >= 1024:
        return f"{nbytes / 1024:.1f} KB"
    return f"{nbytes} B"
