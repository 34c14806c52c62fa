"""rtc.compiler: build time. Validates response templates and compiles them to modules."""

from .codegen import compile_template, load
from .errors import SourceError, TemplateError, TemplateTypeError
from .validate import validate
from .version import __version__

__all__ = [
    "SourceError",
    "TemplateError",
    "TemplateTypeError",
    "__version__",
    "compile_template",
    "load",
    "validate",
]
