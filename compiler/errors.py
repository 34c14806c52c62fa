"""Exceptions raised by the compiler, each naming where the problem is."""

from __future__ import annotations


class TemplateError(ValueError):
    """The template is invalid where transformers 5.23.0 raises ``ValueError`` at load time.

    ``where`` is the dotted path of the offending key (``fields.tool_calls.open_pattern``);
    the message always starts with it.
    """

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        self.problem = problem
        super().__init__(f"{where}: {problem}" if where else problem)


class TemplateTypeError(TypeError):
    """The template is invalid where transformers 5.23.0 raises ``TypeError`` at load time."""

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        self.problem = problem
        super().__init__(f"{where}: {problem}" if where else problem)


class SourceError(ValueError):
    """A template source (file, folder, stdin) cannot be read: missing, malformed JSON, no key."""
