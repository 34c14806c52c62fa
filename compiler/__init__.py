"""rtc.compiler: build time. Validates response templates and compiles them to modules.

``compile_template`` and ``load`` are imported on first use (PEP 562): they need jinja2 and black,
which only the compiler extra installs, while validation and the errors need the runtime alone. So
``import rtc.compiler`` (and the ``rtc`` launcher) works in a production install, and the first
compile says which module is missing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import SourceError, TemplateError, TemplateTypeError
from .validate import validate
from .version import __version__

if TYPE_CHECKING:
    from .codegen import compile_template, load

_LAZY = {"compile_template": ".codegen", "load": ".codegen"}
"""Public names whose module needs the compiler extra, and that module."""

__all__ = [
    "SourceError",
    "TemplateError",
    "TemplateTypeError",
    "__version__",
    "compile_template",
    "load",
    "validate",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
