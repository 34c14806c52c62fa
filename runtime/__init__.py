"""rtc.runtime: the small library every generated parser imports.

Production code: imports only the standard library and ``regex``.
"""

from __future__ import annotations

API_VERSION = 4
"""Version of the interface between generated modules and this runtime.

Bumped whenever a generated module written by an older compiler could misbehave
with this runtime; generated modules check it at import time.
"""


def require_api(version: int, module: str) -> None:
    """Fail the import of a generated module written for another runtime API."""
    if version != API_VERSION:
        raise ImportError(
            f"{module} was generated for rtc runtime API {version}, but the installed rtc.runtime "
            f"speaks API {API_VERSION}; regenerate it with `rtc compile` from the installed rtc"
        )
