"""Content parsers: turn the raw body of a closed region into the field's value.

Every parser has the signature ``(body, args) -> value``. ``args`` is the field's
``content_args`` exactly as written in the template; it is deliberately *not* validated,
because the reference only discovers bad arguments when a region closes, and it does so
by calling ``args.get(...)`` in a fixed order. Reproducing that order (and doing nothing
more) is what makes a non-dict ``args`` fail with AttributeError, ``string_delims: null``
with TypeError, and so on, exactly where transformers 5.23.0 fails.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import regex

__all__ = [
    "PARSERS",
    "STREAMABLE",
    "parse_bool",
    "parse_content",
    "parse_float",
    "parse_int",
    "parse_json",
    "parse_kv_lines",
    "parse_text",
    "parse_xml_inline",
]

# Control characters used to park custom-delimited strings while the JSON dialect rewrites
# run; they cannot appear in the body, otherwise a parked string and real text would be
# indistinguishable.
_PARK_OPEN = "\x01"
_PARK_CLOSE = "\x02"

# A bare identifier directly after `{` or `,` and directly before `:`. No whitespace is
# tolerated on either side, and the rewrite does not know about string literals: both are
# observable limits of the reference dialect that we must keep.
_BARE_KEY = regex.compile(r"(?<=[,{])(\w+):")


def parse_text(body: str, args: Any) -> Any:
    """Body with surrounding whitespace removed, unless ``strip`` is falsy."""
    if args.get("strip", True):
        return body.strip()
    return body


def parse_int(body: str, args: Any) -> Any:
    """``int()`` of the text value (underscores, signs and Unicode digits included)."""
    return int(parse_text(body, args))


def parse_float(body: str, args: Any) -> Any:
    """``float()`` of the text value, so ``inf``/``nan`` come through as floats."""
    return float(parse_text(body, args))


def parse_bool(body: str, args: Any) -> Any:
    """True only for ``true``/``1`` (any case); every other text, even ``yes``, is False."""
    return parse_text(body, args).lower() in ("true", "1")


def _park_delimited(text: str, opener: Any, closer: Any, parked: list[str]) -> str:
    # The pattern is built by concatenation, escaping the opener before the closer, so a
    # bad opener fails before the closer is even looked at (as upstream does).
    pattern = regex.escape(opener) + r"(.*?)" + regex.escape(closer)

    def park(match: Any) -> str:
        parked.append(match.group(1))
        return f"{_PARK_OPEN}{len(parked) - 1}{_PARK_CLOSE}"

    return _dotall(pattern).sub(park, text)


def parse_json(body: str, args: Any) -> Any:
    """``json.loads`` after the optional ``string_delims`` and ``unquoted_keys`` rewrites.

    With ``allow_non_json`` a syntax error yields the text value of the original body.
    Only JSONDecodeError counts as a syntax error: other failures of ``json.loads`` (deep
    nesting → RecursionError, an integer beyond the digit limit → plain ValueError) escape
    unchanged, even with ``allow_non_json``.
    """
    delims = args.get("string_delims", [])
    unquoted_keys = args.get("unquoted_keys", False)
    if delims and (_PARK_OPEN in body or _PARK_CLOSE in body):
        raise ValueError(
            "json content: the body contains \\x01 or \\x02, which are reserved while "
            "string_delims is in use"
        )

    rewritten = body
    parked: list[str] = []
    for opener, closer in delims:
        rewritten = _park_delimited(rewritten, opener, closer, parked)
    if unquoted_keys:
        rewritten = _BARE_KEY.sub(r'"\1":', rewritten)
    # Restoration is sequential and purely textual: when a later pair captured an earlier
    # pair's marker, that marker ends up escaped inside the later literal and is never
    # restored, so the control characters leak into the decoded string (as upstream).
    for index, inner in enumerate(parked):
        rewritten = rewritten.replace(f"{_PARK_OPEN}{index}{_PARK_CLOSE}", json.dumps(inner))

    try:
        return json.loads(rewritten)
    except json.JSONDecodeError as exc:
        if args.get("allow_non_json"):
            return parse_text(body, args)
        if rewritten == body:
            raise ValueError(f"json content: not valid JSON ({exc}); body={body!r}") from exc
        raise ValueError(
            f"json content: not valid JSON after the dialect rewrites ({exc}); "
            f"body={body!r}, rewritten={rewritten!r}"
        ) from exc


def _parse_value(raw: Any, value_parser: Any) -> Any:
    # `None` means "no value parser"; any other falsy value is still used as one and fails.
    if value_parser is None:
        return raw
    name = value_parser.get("name", "text")
    sub_args = value_parser.get("args", {})
    return parse_content(raw, name, sub_args)


_COMPILED_DOTALL: dict[str, Any] = {}


def _dotall(pattern: Any) -> Any:
    """``regex.compile(pattern, regex.DOTALL)``, kept per pattern string.

    The same as ``regex.finditer(pattern, ..., flags=regex.DOTALL)`` on every call (an invalid
    pattern raises the ``regex`` module's own error each time: only compiled ones are kept),
    without the module-level cache lookup, which costs more than a short match.
    """
    if type(pattern) is not str:
        return regex.compile(pattern, regex.DOTALL)
    compiled = _COMPILED_DOTALL.get(pattern)
    if compiled is None:
        compiled = regex.compile(pattern, regex.DOTALL)
        if len(_COMPILED_DOTALL) >= 256:
            _COMPILED_DOTALL.clear()
        _COMPILED_DOTALL[pattern] = compiled
    return compiled


def parse_xml_inline(body: str, args: Any) -> Any:
    """Dict of ``key`` → ``value`` from every non-overlapping ``tag_pattern`` match.

    The pattern is compiled with DOTALL when first used, so an invalid pattern raises the
    ``regex`` module's own error class, which is not a ValueError.
    """
    tag_pattern = args.get("tag_pattern")
    if tag_pattern is None:
        raise ValueError("xml-inline content: the content_arg 'tag_pattern' is required")
    value_parser = args.get("value_parser")
    merge_duplicates = args.get("merge_duplicates", False)

    result: dict[str, Any] = {}
    for match in _dotall(tag_pattern).finditer(body):
        groups = match.groupdict()
        key = groups.get("key")
        if key is None:
            raise ValueError(
                f"xml-inline content: tag_pattern {tag_pattern!r} matched without setting a "
                "named group 'key'"
            )
        # An absent `value` group means an empty value; one that did not take part in the
        # match is None, which the value parser (if any) then chokes on.
        value = _parse_value(groups.get("value", ""), value_parser)
        if key in result and merge_duplicates:
            existing = result[key]
            # A stored list is extended rather than wrapped, even when that list is itself a
            # parsed value (a JSON array), which is then mutated.
            if not isinstance(existing, list):
                existing = [existing]
                result[key] = existing
            existing.append(value)
        else:
            result[key] = value
    return result


def parse_kv_lines(body: str, args: Any) -> Any:
    """Dict from ``key<kv_sep>value`` lines; later keys overwrite earlier ones."""
    line_sep = args.get("line_sep", "\n")
    kv_sep = args.get("kv_sep", ":")
    value_parser = args.get("value_parser")

    result: dict[str, Any] = {}
    # `line_sep: null` means str.split()'s whitespace splitting, which falls out naturally.
    for piece in body.split(line_sep):
        line = parse_text(piece, args)
        # An empty kv_sep is "in" every string, so the split below is what rejects it, and
        # only once a non-empty line is seen.
        if not line or kv_sep not in line:
            continue
        raw_key, raw_value = line.split(kv_sep, 1)
        key = parse_text(raw_key, args)
        value = parse_text(raw_value, args)
        result[key] = _parse_value(value, value_parser)
    return result


PARSERS: dict[str, Callable[[str, Any], Any]] = {
    "text": parse_text,
    "int": parse_int,
    "float": parse_float,
    "bool": parse_bool,
    "json": parse_json,
    "xml-inline": parse_xml_inline,
    "kv-lines": parse_kv_lines,
}

# Chunks of these fields are pieces of the final text, so they stream with dirty=False;
# the structured parsers only mean something once the region closes.
STREAMABLE: frozenset[str] = frozenset({"text", "int", "float", "bool"})


def parse_content(body: str, name: Any, args: Any) -> Any:
    """Run the parser called ``name``; an unknown name is a KeyError (a plain dict lookup)."""
    return PARSERS[name](body, args)
