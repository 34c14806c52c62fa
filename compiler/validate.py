"""Loading and validating a response template.

Accepts exactly what transformers 5.23.0 accepts and rejects exactly what it rejects, checking
in the same order (the first problem wins) and with the same exception family:
``TemplateError`` (a ``ValueError``) or ``TemplateTypeError`` (a ``TypeError``). Every message
starts with the path of the offending key.
"""

from __future__ import annotations

import copy
from typing import Any

import regex

from rtc.runtime.content import PARSERS
from rtc.runtime.transform import transform_problem

from .content_spec import read_content
from .errors import TemplateError, TemplateTypeError
from .model import Delimiter, Field, Template

TOP_LEVEL_KEYS = ("version", "defaults", "fields", "start_anchor", "start_anchor_pattern")
FIELD_KEYS = (
    "open",
    "open_pattern",
    "close",
    "close_pattern",
    "content",
    "content_args",
    "repeats",
    "join",
    "optional",
    "transform",
    "transform_each",
)


def _path(*parts: str) -> str:
    """A dotted path; parts that are not plain names are quoted so the path stays readable."""
    out = []
    for part in parts:
        if part.isidentifier() or part.replace("-", "_").isidentifier():
            out.append(part)
        else:
            out.append(repr(part))
    return ".".join(out)


def check_json_data(value: Any, where: str = "template") -> None:
    """Templates are JSON data: anything else cannot be embedded in a module or hashed."""
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        item, here = stack.pop()
        if item is None or isinstance(item, (str, bool, int)):
            continue
        if isinstance(item, float):
            continue
        if isinstance(item, list):
            stack.extend((v, f"{here}[{i}]") for i, v in enumerate(item))
            continue
        if isinstance(item, dict):
            for k, v in item.items():
                if not isinstance(k, str):
                    raise TemplateError(here, f"keys must be strings (JSON data), got {k!r}")
                stack.append((v, f"{here}.{k}"))
            continue
        raise TemplateError(here, f"not JSON data: {type(item).__name__}")


def _compile_pattern(where: str, pattern: Any) -> regex.Pattern[str]:
    try:
        return regex.compile(pattern, regex.DOTALL)
    except regex.error as exc:
        raise TemplateError(where, f"invalid regex: {exc}") from None
    except TypeError as exc:
        raise TemplateTypeError(where, f"pattern must be a string: {exc}") from None


def _anchor(
    spec: dict[str, Any], literal_key: str, pattern_key: str, where: tuple[str, ...]
) -> Delimiter | None:
    if literal_key in spec and pattern_key in spec:
        raise TemplateError(
            _path(*where) or "template", f"cannot specify both '{literal_key}' and '{pattern_key}'"
        )
    if literal_key in spec:
        here = _path(*where, literal_key)
        raw = spec[literal_key]
        if isinstance(raw, str):
            literals = [raw]
        elif isinstance(raw, list):
            if not raw:
                raise TemplateError(here, "the list must contain at least one literal")
            if not all(isinstance(item, str) for item in raw):
                raise TemplateError(here, "the list must contain only strings")
            literals = list(dict.fromkeys(raw))
        else:
            raise TemplateError(
                here, f"must be a string or a list of strings, got {type(raw).__name__}"
            )
        if any(item == "" for item in literals):
            raise TemplateError(here, "literals cannot be empty strings")
        ordered = sorted(literals, key=len, reverse=True)
        can_extend = any(a != b and a.startswith(b) for a in literals for b in literals)
        return Delimiter(
            key=literal_key,
            pattern="|".join(regex.escape(item) for item in ordered),
            literals=tuple(literals),
            can_extend=can_extend,
            group_names=(),
        )
    if pattern_key in spec:
        here = _path(*where, pattern_key)
        compiled = _compile_pattern(here, spec[pattern_key])
        return Delimiter(
            key=pattern_key,
            pattern=spec[pattern_key],
            literals=(),
            can_extend=False,
            group_names=tuple(sorted(compiled.groupindex)),
        )
    return None


def _field(name: str, index: int, spec: Any) -> Field:
    where = ("fields", name)
    here = _path(*where)
    if not isinstance(spec, dict):
        raise TemplateError(here, f"a field must be an object, got {type(spec).__name__}")
    unknown = sorted(set(spec) - set(FIELD_KEYS))
    if unknown:
        raise TemplateError(here, f"unknown keys {unknown}; allowed: {list(FIELD_KEYS)}")
    content = spec.get("content", "text")
    try:
        known = content in PARSERS
    except TypeError:
        raise TemplateTypeError(
            _path(*where, "content"), f"unhashable content parser {content!r}"
        ) from None
    if not known:
        raise TemplateError(
            _path(*where, "content"),
            f"unknown content parser {content!r}; available: {sorted(PARSERS)}",
        )
    open_ = _anchor(spec, "open", "open_pattern", where)
    close = _anchor(spec, "close", "close_pattern", where)
    join = spec.get("join")
    if join is not None and not isinstance(join, str):
        raise TemplateError(_path(*where, "join"), f"must be a string, got {type(join).__name__}")
    if join is not None and not spec.get("repeats", False):
        raise TemplateError(_path(*where, "join"), "'join' requires 'repeats': true")
    transform = spec.get("transform")
    transform_each = spec.get("transform_each", False)
    if not isinstance(transform_each, bool):
        raise TemplateError(
            _path(*where, "transform_each"),
            f"must be true or false, got {type(transform_each).__name__}",
        )
    if transform_each and transform is None:
        raise TemplateError(
            _path(*where, "transform_each"), "is set but no 'transform' was provided"
        )
    if transform is not None:
        problem = transform_problem(transform)
        if problem is not None:
            raise TemplateError(_path(*where, "transform"), problem)
    else:
        groups = sorted(
            set(open_.group_names if open_ else ()) | set(close.group_names if close else ())
        )
        if groups:
            raise TemplateError(
                here,
                f"open_pattern/close_pattern declare named groups {groups} but the field has "
                "no 'transform'; captures only reach the output through a transform",
            )
    return Field(
        name=name,
        index=index,
        open=open_,
        close=close,
        content=content,
        content_args=spec.get("content_args", {}),
        spec=read_content(content, spec.get("content_args", {})),
        repeats=bool(spec.get("repeats", False)),
        join=join,
        optional=bool(spec.get("optional", True)),
        transform=transform,
        has_transform=transform is not None,
        transform_each=transform_each,
    )


def validate(template: Any) -> Template:
    """Validate ``template`` like transformers 5.23.0's loader and return its compiled model."""
    if not isinstance(template, dict):
        raise TemplateError(
            "template", f"a response template must be an object, got {type(template).__name__}"
        )
    check_json_data(template)
    version = template.get("version", 1)
    if version != 1:
        raise TemplateError("version", f"unsupported response_template version: {version!r}")
    unknown = sorted(set(template) - set(TOP_LEVEL_KEYS))
    if unknown:
        raise TemplateError(
            "template", f"unknown top-level keys {unknown}; allowed: {list(TOP_LEVEL_KEYS)}"
        )
    defaults = template.get("defaults", {})
    if not isinstance(defaults, dict):
        raise TemplateError("defaults", f"must be an object, got {type(defaults).__name__}")
    raw_fields = template.get("fields", {})
    if not isinstance(raw_fields, dict) or not raw_fields:
        raise TemplateError("fields", "must be a non-empty object")
    fields = tuple(_field(name, i, spec) for i, (name, spec) in enumerate(raw_fields.items()))
    implicit = [f for f in fields if f.implicit]
    if len(implicit) > 1:
        raise TemplateError(
            "fields",
            "at most one field may omit 'open'/'open_pattern' (the implicit field); found: "
            + ", ".join(repr(f.name) for f in implicit),
        )
    anchor = _anchor(template, "start_anchor", "start_anchor_pattern", ())
    if anchor is None:
        raise TemplateError(
            "template", "a response template must define 'start_anchor' or 'start_anchor_pattern'"
        )
    return Template(
        source=template,
        defaults=copy.deepcopy(defaults),
        fields=fields,
        implicit=implicit[0] if implicit else None,
        start_anchor=anchor,
    )
