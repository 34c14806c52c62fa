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
from json.encoder import encode_basestring_ascii
from typing import Any

import regex

from .json_decode import loads

__all__ = [
    "PARSERS",
    "STREAMABLE",
    "json_or_text",
    "json_value",
    "json_with",
    "kv_lines_with",
    "missing_key",
    "parse_bool",
    "parse_content",
    "parse_float",
    "parse_int",
    "parse_json",
    "parse_kv_lines",
    "parse_text",
    "parse_xml_inline",
    "xml_inline_with",
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
# Every match of _BARE_KEY begins with a word character right after "," or "{" (what its
# look-behind checks), so a text with no such pair has no match and the rewrite would leave it
# as it is. The `regex` engine finds the pair without the look-behind several times faster than
# it runs _BARE_KEY over text without bare keys (quoted keys: the usual JSON), so json_with
# looks for the pair first (tests/test_precompiled.py checks the implication).
_BARE_KEY_START = regex.compile(r"[,{]\w")


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
    return regex.sub(pattern, _parker(parked), text, flags=regex.DOTALL)


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
        raise ValueError(_RESERVED)

    rewritten = body
    parked: list[str] = []
    for opener, closer in delims:
        rewritten = _park_delimited(rewritten, opener, closer, parked)
    if unquoted_keys:
        rewritten = _BARE_KEY.sub(r'"\1":', rewritten)
    rewritten = _restore(rewritten, parked)

    try:
        return json.loads(rewritten)
    except json.JSONDecodeError as exc:
        if args.get("allow_non_json"):
            return parse_text(body, args)
        raise _not_json(body, rewritten, exc) from exc


_RESERVED = (
    "json content: the body contains \\x01 or \\x02, which are reserved while string_delims "
    "is in use"
)


def _restore(rewritten: str, parked: list[str]) -> str:
    # Restoration is sequential and purely textual: when a later pair captured an earlier
    # pair's marker, that marker ends up escaped inside the later literal and is never
    # restored, so the control characters leak into the decoded string (as upstream).
    for index, inner in enumerate(parked):
        # json.dumps of a str with its default arguments is exactly this C function's output
        # (the default encoder, ensure_ascii), without its Python-level detour.
        marker = f"{_PARK_OPEN}{index}{_PARK_CLOSE}"
        rewritten = rewritten.replace(marker, encode_basestring_ascii(inner))
    return rewritten


def _not_json(body: str, rewritten: str, exc: json.JSONDecodeError) -> ValueError:
    if rewritten == body:
        return ValueError(f"json content: not valid JSON ({exc}); body={body!r}")
    return ValueError(
        f"json content: not valid JSON after the dialect rewrites ({exc}); "
        f"body={body!r}, rewritten={rewritten!r}"
    )


# The characters a JSON value can begin with, for json.loads (after the JSON whitespace it
# skips): a string, an object, an array, null/true/false, NaN, Infinity, -Infinity or a number
# (an ASCII digit or '-'). Its C and Python scanners both fail with JSONDecodeError ("Expecting
# value") at any other first character, at the end of the text, and on a leading BOM.
_JSON_STARTS = frozenset('"{[ntfNI-0123456789')
_JSON_SPACE = " \t\n\r"


def json_with(
    body: str, delims: tuple[tuple[str, Any], ...], unquoted_keys: bool, non_json: int
) -> Any:
    """``parse_json`` with its ``content_args`` read at compile time (a generated module's
    precompiled content parser; the general one is the specification).

    ``delims``: for each ``string_delims`` pair, its opener and the compiled
    ``escape(open)(.*?)escape(close)`` (DOTALL), the pattern the reference builds on every call;
    ``unquoted_keys`` as given; ``non_json``: 0 without ``allow_non_json``, else the text value
    on a syntax error, 1 stripped (``strip`` true), 2 as it is. The same operations on the body
    in the same order, except three steps proved to change nothing: a pair whose opener does
    not occur in the text is not substituted (every match begins with the opener), the bare-key
    rewrite is skipped where no word character follows "," or "{" (``_BARE_KEY_START``), and with
    ``allow_non_json`` a text that cannot begin a JSON value is not handed to ``json.loads`` (it
    would raise JSONDecodeError, see ``_JSON_STARTS``).
    """
    if delims and (_PARK_OPEN in body or _PARK_CLOSE in body):
        raise ValueError(_RESERVED)
    rewritten = body
    parked: list[str] = []
    if delims:
        park = _parker(parked)
        for opener, pattern in delims:
            if opener in rewritten:
                rewritten = pattern.sub(park, rewritten)
    if unquoted_keys and _BARE_KEY_START.search(rewritten) is not None:
        rewritten = _BARE_KEY.sub(r'"\1":', rewritten)
    if parked:  # nothing parked: restoring would replace nothing
        rewritten = _restore(rewritten, parked)
    if non_json and rewritten.__class__ is str:
        if rewritten.lstrip(_JSON_SPACE)[:1] not in _JSON_STARTS:
            return body.strip() if non_json == 1 else body
    try:
        return loads(rewritten)
    except json.JSONDecodeError as exc:
        if non_json:
            return body.strip() if non_json == 1 else body
        raise _not_json(body, rewritten, exc) from exc


def json_value(body: str) -> Any:
    """``json_with(body, (), False, 0)``: plain JSON, the arguments setting nothing."""
    try:
        return loads(body)
    except json.JSONDecodeError as exc:
        raise _not_json(body, body, exc) from exc


def json_or_text(body: str, strip: bool) -> Any:
    """``json_with(body, (), False, 1 if strip else 2)``: JSON, or the text where it is not."""
    if body.__class__ is str and body.lstrip(_JSON_SPACE)[:1] not in _JSON_STARTS:
        return body.strip() if strip else body
    try:
        return loads(body)
    except json.JSONDecodeError:
        return body.strip() if strip else body


def _parker(parked: list[str]) -> Callable[[Any], str]:
    def park(match: Any) -> str:
        parked.append(match.group(1))
        return f"{_PARK_OPEN}{len(parked) - 1}{_PARK_CLOSE}"

    return park


def _parse_value(raw: Any, value_parser: Any) -> Any:
    # `None` means "no value parser"; any other falsy value is still used as one and fails.
    if value_parser is None:
        return raw
    name = value_parser.get("name", "text")
    sub_args = value_parser.get("args", {})
    return parse_content(raw, name, sub_args)


def parse_xml_inline(body: str, args: Any) -> Any:
    """Dict of ``key`` → ``value`` from every non-overlapping ``tag_pattern`` match.

    The pattern is compiled on every call (with DOTALL), so an invalid pattern raises the
    ``regex`` module's own error class, which is not a ValueError.
    """
    tag_pattern = args.get("tag_pattern")
    if tag_pattern is None:
        raise ValueError("xml-inline content: the content_arg 'tag_pattern' is required")
    value_parser = args.get("value_parser")
    merge_duplicates = args.get("merge_duplicates", False)
    value = None if value_parser is None else lambda raw: _parse_value(raw, value_parser)
    matches = regex.finditer(tag_pattern, body, flags=regex.DOTALL)
    # An absent `value` group means an empty value; one that did not take part in the match
    # is None, which the value parser (if any) then chokes on.
    pairs = ((g.get("key"), g.get("value", "")) for g in (m.groupdict() for m in matches))
    return _tags(pairs, tag_pattern, value, merge_duplicates)


def xml_inline_with(
    body: str, pattern: Any, value: Callable[[Any], Any] | None, merge_duplicates: Any
) -> Any:
    """``parse_xml_inline`` with its ``content_args`` read at compile time: ``pattern`` is
    ``tag_pattern`` compiled once (DOTALL), ``value`` the precompiled ``value_parser`` (None:
    none).

    The ``key`` and ``value`` groups are read by their numbers (what ``groupdict()`` reads,
    without building a dict per match): a group the pattern lacks reads as ``groupdict()``'s
    default (None for ``key``, which fails; "" for ``value``).
    """
    index = pattern.groupindex
    key_at = index.get("key")
    value_at = index.get("value")
    matches = pattern.finditer(body)
    if key_at is not None and value_at is not None:
        if not merge_duplicates:
            # The usual case, _tags' loop without merging: a later key overwrites.
            result: dict[str, Any] = {}
            for m in matches:
                key = m[key_at]
                if key is None:
                    raise missing_key(pattern.pattern)
                result[key] = m[value_at] if value is None else value(m[value_at])
            return result
        pairs = ((m[key_at], m[value_at]) for m in matches)
    else:
        pairs = (
            (None if key_at is None else m[key_at], "" if value_at is None else m[value_at])
            for m in matches
        )
    return _tags(pairs, pattern.pattern, value, merge_duplicates)


def _tags(
    pairs: Any, tag_pattern: Any, value: Callable[[Any], Any] | None, merge_duplicates: Any
) -> dict[str, Any]:
    """The dict of (key, raw value) pairs, one per match, in match order."""
    result: dict[str, Any] = {}
    for key, raw in pairs:
        if key is None:
            raise missing_key(tag_pattern)
        parsed = raw if value is None else value(raw)
        if key in result and merge_duplicates:
            existing = result[key]
            # A stored list is extended rather than wrapped, even when that list is itself a
            # parsed value (a JSON array), which is then mutated.
            if not isinstance(existing, list):
                existing = [existing]
                result[key] = existing
            existing.append(parsed)
        else:
            result[key] = parsed
    return result


def missing_key(tag_pattern: Any) -> ValueError:
    """The error of a ``tag_pattern`` match in which the ``key`` group took no part."""
    return ValueError(
        f"xml-inline content: tag_pattern {tag_pattern!r} matched without setting a named "
        "group 'key'"
    )


def parse_kv_lines(body: str, args: Any) -> Any:
    """Dict from ``key<kv_sep>value`` lines; later keys overwrite earlier ones."""
    line_sep = args.get("line_sep", "\n")
    kv_sep = args.get("kv_sep", ":")
    value_parser = args.get("value_parser")
    value = None if value_parser is None else lambda raw: _parse_value(raw, value_parser)
    return _pairs(body, line_sep, kv_sep, lambda text: parse_text(text, args), value)


def kv_lines_with(
    body: str, line_sep: str | None, kv_sep: str, strip: bool, value: Callable[[Any], Any] | None
) -> Any:
    """``parse_kv_lines`` with its ``content_args`` read at compile time (``strip``: the text
    rule's ``strip``; ``value``: the precompiled ``value_parser``, None: none)."""
    return _pairs(body, line_sep, kv_sep, str.strip if strip else _as_is, value)


def _as_is(text: str) -> str:
    return text


def _pairs(
    body: str,
    line_sep: Any,
    kv_sep: Any,
    text: Callable[[str], str],
    value: Callable[[Any], Any] | None,
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    # `line_sep: null` means str.split()'s whitespace splitting, which falls out naturally.
    for piece in body.split(line_sep):
        line = text(piece)
        # An empty kv_sep is "in" every string, so the split below is what rejects it, and
        # only once a non-empty line is seen.
        if not line or kv_sep not in line:
            continue
        raw_key, raw_value = line.split(kv_sep, 1)
        key = text(raw_key)
        raw = text(raw_value)
        result[key] = raw if value is None else value(raw)
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
