"""The transform stage of a field close: reshaping a parsed value with a template.

A transform template is any JSON-like value. Strings that are exactly one placeholder
(``{name}`` or ``{name.key.key}``) are replaced by the value they name; everything else is
copied structurally (dicts and lists) or returned as is. There is no string interpolation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import regex

__all__ = ["PLACEHOLDER", "apply", "each_element", "lookup", "render", "transform_problem"]

# `\w` must follow the `regex` module's Unicode rules (not `re`'s): that decides which
# strings count as placeholders, both when rendering and at load-time validation.
PLACEHOLDER = regex.compile(r"\{(\w+(?:\.\w+)*)\}")


def lookup(value: Any, path: str, keys: list[str] | tuple[str, ...]) -> Any:
    """Walk ``keys`` down from ``value``; ``path`` is the placeholder, for error messages.

    Generated modules call this for dotted placeholders (``{content.arguments}``).
    """
    for key in keys:
        if not isinstance(value, dict):
            raise ValueError(
                f"transform placeholder {{{path}}}: cannot index into "
                f"{type(value).__name__} with {key!r}"
            )
        if key not in value:
            raise ValueError(
                f"transform placeholder {{{path}}}: missing key {key!r} "
                f"(available: {sorted(value)})"
            )
        value = value[key]
    # Returned by reference: callers rely on the very same object landing in the output,
    # so that later in-place tool coercion shows up everywhere it is referenced.
    return value


def _resolve(path: str, scope: dict[str, Any]) -> Any:
    root, *keys = path.split(".")
    if root not in scope:
        raise KeyError(
            f"transform placeholder {{{path}}}: {root!r} is not in scope "
            f"(available: {sorted(scope)})"
        )
    return lookup(scope[root], path, keys)


def render(transform: Any, scope: dict[str, Any]) -> Any:
    """Instantiate ``transform`` against ``scope`` (see the module docstring)."""
    if isinstance(transform, dict):
        # Keys are never substituted, only values.
        return {key: render(item, scope) for key, item in transform.items()}
    if isinstance(transform, list):
        return [render(item, scope) for item in transform]
    if not isinstance(transform, str):
        return transform
    whole = PLACEHOLDER.fullmatch(transform)
    if whole is None:
        return transform
    return _resolve(whole.group(1), scope)


def apply(
    field_name: str,
    value: Any,
    transform: Any,
    transform_each: Any,
    captures: dict[str, Any],
) -> Any:
    """Transform stage of a field close, given the parsed ``value``.

    ``transform`` None means the field has no transform. The scope is the open-pattern
    captures plus ``content`` (which shadows a capture of that name); with
    ``transform_each`` it is the captures plus each element's own keys instead, so
    ``content`` is then only available if an element defines it.
    """
    if transform is None:
        return value
    if not transform_each:
        return render(transform, {**captures, "content": value})
    return [
        render(transform, {**captures, **element}) for element in each_element(field_name, value)
    ]


def each_element(field_name: str, value: Any) -> Iterator[dict[str, Any]]:
    """The elements ``transform_each`` renders, in order: ``value`` must be a list (checked at
    the first step) and each element a dict (checked when its turn comes, after the elements
    before it are rendered). Generated modules render each element inline from this."""
    if not isinstance(value, list):
        raise ValueError(
            f"field {field_name!r}: transform_each needs the parsed content to be a list, "
            f"not {type(value).__name__}"
        )
    for element in value:
        if not isinstance(element, dict):
            raise ValueError(
                f"field {field_name!r}: transform_each needs every list element to be a dict, "
                f"not {type(element).__name__}"
            )
        yield element


def transform_problem(transform: Any) -> str | None:
    """Describe the first string in ``transform`` that mixes a placeholder with other text.

    Dict values and list items are visited recursively in order; dict keys are not looked
    at (they are never substituted). Returns None when every string is either exactly one
    placeholder or contains none, which is the only shape ``render`` understands.
    """
    if isinstance(transform, dict):
        children: Any = transform.values()
    elif isinstance(transform, list):
        children = transform
    else:
        if (
            isinstance(transform, str)
            and PLACEHOLDER.search(transform) is not None
            and PLACEHOLDER.fullmatch(transform) is None
        ):
            return (
                f"transform string {transform!r} combines a {{placeholder}} with other text; "
                'a string must be either exactly one placeholder such as "{content}" or a '
                "plain literal (there is no string interpolation)"
            )
        return None
    for child in children:
        problem = transform_problem(child)
        if problem is not None:
            return problem
    return None
