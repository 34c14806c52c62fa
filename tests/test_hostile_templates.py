"""Hostile templates: untrusted strings in every position must never become code.

A response template is untrusted data (DESIGN.md, Safety). For every hostile string (quotes,
triple quotes, backslashes, line breaks Python or ``str.splitlines`` know, NUL, lone
surrogates, jinja2 syntax, Python keywords, names of identifiers the generated code uses,
payloads crafted to close a literal or a comment and run ``__import__('os').system(...)``) in
every position a template has (field names, defaults, delimiters, patterns, start anchors,
transforms, ``content_args``, ``join``, unknown keys), either

* the template compiles (``compile_template`` and ``load``), the module is valid Python whose
  syntax tree names nothing but the generated code's own identifiers, ``TEMPLATE`` is the input,
  no canary file appears after compiling, importing and parsing, and the module answers like
  transformers 5.23.0 on a few texts (one shot, whole-text feed and 1-character feeding); or
* the reference rejects it at load and rtc rejects it too, with a ``TemplateError`` where the
  reference raises ``ValueError`` and a ``TemplateTypeError`` where it raises ``TypeError``.
"""

from __future__ import annotations

import ast
import copy
import functools
import hashlib
import importlib.util
import json
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import (
    Reference,
    Rtc,
    Step,
    canon,
    diff_steps,
    load,
    record_oneshot,
    record_stream,
)

from rtc.compiler import TemplateError, TemplateTypeError, compile_template
from rtc.compiler import load as rtc_compile_load

pytest.importorskip("transformers")

CANARY = "@CANARY@"
"""Replaced by a per-test path: a payload that ran would create that file."""

_SYSTEM = "__import__('os').system('touch @CANARY@')"
_OPEN = "open('@CANARY@', 'w').write('pwned')"

HOSTILE: dict[str, str] = {
    # quoting and escaping
    "single-quote": "'",
    "double-quote": '"',
    "triple-single": "'''",
    "triple-double": '"""',
    "backslash": "\\",
    "backslash-quote": "\\'",
    "backslash-n-text": "\\n\\x00\\u2028\\N{BULLET}",
    # line breaks (Python's and str.splitlines'), controls, odd code points
    "newline": "a\nb",
    "carriage-return": "a\rb",
    "crlf": "a\r\nb",
    "line-separator": "a\u2028b\u2029c",
    "next-line": "a\x85b",
    "form-feed": "a\x0cb\x0bc",
    "nul": "a\x00b",
    "escape-sequence": "\x1b[31mred\x1b[0m",
    "lone-surrogate": "a\ud800b",
    "reversed-surrogates": "\udfff\ud800",
    "bom-and-bidi": "\ufeffab\u202ecd",
    "non-bmp": "🙂𝔘",
    "combining": "e\u0301",
    # templating syntax
    "jinja-expression": "{{ x }}",
    "jinja-statement": "{% if %}",
    "jinja-comment": "{# c #}",
    "jinja-raw": "{% raw %}{% endraw %}",
    "jinja-ssti": "{{ cycler.__init__.__globals__.os.system('touch @CANARY@') }}",
    "format-fields": "%s %(x)s {0} {x!r}",
    "placeholder": "{content}",
    "keyword-class": "class",
    "keyword-None": "None",
    # names that are no identifiers
    "empty": "",
    "space": " ",
    "non-identifier": "1 a-b.c",
    # payloads: close a literal or a comment, then run code
    "close-single": f"'); {_SYSTEM}; ('",
    "close-double": f'"); {_SYSTEM}; ("',
    "close-triple-single": f"'''); {_SYSTEM}; ('''",
    "close-triple-double": f'"""); {_SYSTEM}; ("""',
    "close-after-backslash": f"\\'); {_SYSTEM} #",
    "break-comment-newline": f"x\n{_SYSTEM}\n#",
    "break-comment-cr": f"x\r{_SYSTEM}\r#",
    "break-comment-u2028": f"x\u2028{_SYSTEM}\u2028#",
    "break-comment-nel": f"x\x85{_OPEN}\x85#",
    "fstring": "{" + _SYSTEM + "}",
    "open-write": f"\n{_OPEN}\n",
    # regex syntax
    "regex-meta": "(?P<x>a)|[^]*$\\",
    "long": "<" + "y" * 600 + ">",
}

IDENTIFIERS = [
    # Python
    "None",
    "True",
    "lambda",
    "__class__",
    "__builtins__",
    "__name__",
    "float",
    # the generated module
    "self",
    "text",
    "events",
    "buf",
    "pos",
    "eos",
    "n",
    "i",
    "j",
    "m",
    "hold",
    "start",
    "end",
    "target",
    "found",
    "cur",
    "chunk",
    "content",
    "captures",
    "body",
    "regex",
    "_json",
    "_copy",
    "Any",
    "Sequence",
    "require_api",
    "literal_tail",
    "parse_json",
    "apply",
    "lookup",
    "CompiledParser",
    "ResponseParser",
    "parse_response",
    "_parse_response",
    "TEMPLATE",
    "TEMPLATE_SHA256",
    "RTC_VERSION",
    "_finish_x",
    "_finish_x_2",
    "_scan_outside",
    "_scan_in_x",
    "memo",
    "search_ahead",
    "_eos_outside",
    "_eos_in_x",
    "_OPEN_X",
    "_ARGS_X",
    "_TRANSFORM_X",
    "_START_ANCHOR",
    "_DEFAULTS",
    # names that differ only where identifiers derived from them are cut or sanitised
    "x",
    "X",
    "x?",
    "x!",
    "x_2",
    "_x",
    "x" * 45,
    "x" * 45 + "y",
    # the runtime's parser state
    "_names",
    "_finish",
    "_scan",
    "_eos",
    "_fasts",
    "region",
    "_parts",
    "_out",
    "_buf",
    "initial_events",
    "feed",
    "finalize",
]
"""Python keywords and names the generated module and its runtime use: as field names, keys and
capture names they must not collide with (or shadow) anything."""

# No generated module may name any of these in its syntax tree (identifiers derived from field
# names may contain them: `_finish_x___import__` is a harmless name).
FORBIDDEN = frozenset(
    {"__import__", "system", "popen", "eval", "exec", "open", "os", "write", "__globals__"}
)


# --- placements: one hostile string in one position ------------------------------------------

Probe = tuple[Any, str]
"""A ``(prefix, text)`` the template is run on."""
Placement = Callable[[str], tuple[dict[str, Any], list[Probe]]]


def _texts(s: str, *extra: str) -> list[Probe]:
    return [("", t) for t in extra] + [("", f"pre{s}mid{s}post")]


def field_name(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "defaults": {"role": "assistant"},
        "start_anchor": "<S>",
        "fields": {s: {"open": "<a>", "close": "</a>"}, "body\x00": {"close": "<e>"}},
    }
    return template, _texts(s, "hi<a> v </a>tail<e>more", "<a>  </a>", "<a>unterminated")


def implicit_field_name(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {"x": {"open": "<a>", "close": "</a>", "content": "int"}, s: {"close": "<e>"}},
    }
    return template, _texts(s, "hi<a>7</a>tail<e>more", "<a>x</a>")


def repeated_field_name(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "defaults": {s: "default"},
        "start_anchor": "<S>",
        "fields": {s: {"open": "<a>", "close": "</a>", "repeats": True, "join": s}},
    }
    return template, _texts(s, "<a>1</a><a>2</a>", "<a></a>")


def defaults(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "defaults": {s: s, "k": [s, {s: s}], "n": None},
        "start_anchor": "<S>",
        "fields": {"content": {}},
    }
    return template, _texts(s, "hi")


def open_literal(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {"start_anchor": "<S>", "fields": {"x": {"open": s, "close": "</a>"}, "c": {}}}
    return template, _texts(s, f"pre{s}val</a>post", f"pre{s[:-1]}", f"{s}{s}</a>")


def close_literal(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {"start_anchor": "<S>", "fields": {"x": {"open": "<a>", "close": s}, "c": {}}}
    return template, _texts(s, f"<a>val{s}post", f"<a>val{s[:-1]}")


def literal_list(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {"x": {"open": [s, "<a>", s + "!"], "close": [s + "?", "</a>"]}, "c": {}},
    }
    return template, _texts(s, f"{s}!v{s}?w<a>z</a>")


def implicit_close(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {"start_anchor": "<S>", "fields": {"x": {"open": "<a>"}, "c": {"close": s}}}
    return template, _texts(s, f"hi{s}lost<a>tail")


def open_pattern(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {"x": {"open_pattern": s, "close": "</a>"}, "c": {}},
    }
    return template, _texts(s, f"pre{s}val</a>post")


def escaped_open_pattern(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {"x": {"open_pattern": regex.escape(s), "close_pattern": "</a>"}, "c": {}},
    }
    return template, _texts(s, f"pre{s}val</a>post", f"{s}")


def close_pattern(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {"x": {"open": "<a>", "close_pattern": s}, "c": {}},
    }
    return template, _texts(s, f"<a>val{s}post")


def escaped_close_pattern(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {"x": {"open": "<a>", "close_pattern": regex.escape(s) + "|</a>"}, "c": {}},
    }
    return template, _texts(s, f"<a>val{s}post", "<a>v</a>w")


def named_group(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {
            "x": {
                "open_pattern": f"<(?P<{s}>[^>]*)>",
                "close": "</a>",
                "transform": {"v": "{" + s + "}", "c": "{content}"},
            },
            "c": {},
        },
    }
    return template, _texts(s, "<k>val</a>post", "<>v</a>")


def start_anchor(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {"start_anchor": s, "fields": {"x": {"open": "<a>", "close": "</a>"}, "c": {}}}
    return template, [
        (f"old<a>1</a>{s}<a>pre", "v</a>post"),
        (f"no anchor <a>1</a>{s[:-1]}", "x"),
        (f"{s}{s}{s}", "t"),
    ]


def start_anchor_list(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {"start_anchor": [s, "<S>"], "fields": {"c": {"close": "<e>"}}}
    return template, [(f"a{s}b<S>c{s}d", "e<e>f")]


def start_anchor_pattern(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {"start_anchor_pattern": s, "fields": {"c": {}}}
    return template, [(f"a{s}b", "c")]


def escaped_start_anchor_pattern(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {"start_anchor_pattern": regex.escape(s), "fields": {"c": {}}}
    return template, [(f"a{s}b{s}c", "d")]


def transform_keys(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {
            "x": {
                "open": "<a>",
                "close": "</a>",
                "transform": {s: "{content}", "k": {s: [s, 1.5, None, True]}},
            }
        },
    }
    return template, _texts(s, "<a>v</a>")


def transform_value(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {"start_anchor": "<S>", "fields": {"x": {"open": "<a>", "close": "</a>"}}}
    template["fields"]["x"]["transform"] = s
    return template, _texts(s, "<a>v</a>")


def transform_placeholder(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {
            "x": {
                "open": "<a>",
                "close": "</a>",
                "content": "json",
                "transform": {"v": "{content." + s + "}", "w": "{" + s + "}"},
            }
        },
    }
    body = json.dumps({s: s})
    return template, _texts(s, f"<a>{body}</a>", "<a>{}</a>")


def transform_each(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {
            "x": {
                "open": "<a>",
                "close": "</a>",
                "content": "json",
                "transform": {s: "{" + s + "}", "lit": s},
                "transform_each": True,
            }
        },
    }
    return template, _texts(s, f"<a>[{json.dumps({s: 1})}]</a>", "<a>[{}]</a>")


def content_args_json(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {
            "x": {
                "open": "<a>",
                "close": "</a>",
                "content": "json",
                "content_args": {"string_delims": [[s, s], ["«", s]], s: s},
            }
        },
    }
    return template, _texts(s, f'<a>{{"k": {s}v{s}, "j": «w{s}}}</a>', '<a>{"k": 1}</a>')


def content_args_text(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {"x": {"open": "<a>", "close": "</a>", "content_args": {s: s, "strip": s}}},
    }
    return template, _texts(s, "<a> v </a>")


def content_args_kv(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {
            "x": {
                "open": "<a>",
                "close": "</a>",
                "content": "kv-lines",
                "content_args": {"kv_sep": s, "line_sep": s + s},
            }
        },
    }
    return template, _texts(s, f"<a>k{s}v{s}{s}k2{s}v2</a>")


def tag_pattern(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {
            "x": {
                "open": "<a>",
                "close": "</a>",
                "content": "xml-inline",
                "content_args": {"tag_pattern": s},
            },
            "y": {
                "open": "<b>",
                "close": "</b>",
                "content": "xml-inline",
                "content_args": {"tag_pattern": "<(?P<key>k)>(?P<value>.*?)" + regex.escape(s)},
            },
        },
    }
    return template, _texts(s, f"<a>{s}</a>", f"<b><k>v{s}</b>")


def value_parser(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "start_anchor": "<S>",
        "fields": {
            "x": {
                "open": "<a>",
                "close": "</a>",
                "content": "kv-lines",
                "content_args": {"value_parser": {"name": s, "args": {s: s}}},
            },
            "y": {
                "open": "<b>",
                "close": "</b>",
                "content": "xml-inline",
                "content_args": {
                    "tag_pattern": "<(?P<key>k)>(?P<value>.*?)</k>",
                    "value_parser": {"name": "text", "args": {s: s, "strip": s}},
                },
            },
        },
    }
    return template, _texts(s, "<a>k: v</a>", "<b><k> w </k></b>")


def version(s: str) -> tuple[dict[str, Any], list[Probe]]:
    return {"version": s, "start_anchor": "<S>", "fields": {"c": {}}}, [("", "x")]


def content_parser_name(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {"start_anchor": "<S>", "fields": {"x": {"open": "<a>", "content": s}}}
    return template, _texts(s, "<a>1")


def unknown_keys(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {"start_anchor": "<S>", "fields": {"x": {"open": "<a>", s: s}}}
    return template, _texts(s, "<a>1")


def unknown_top_level_key(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {"start_anchor": "<S>", "fields": {"x": {"open": "<a>"}}, s: s}
    return template, _texts(s, "<a>1")


def other_values(s: str) -> tuple[dict[str, Any], list[Probe]]:
    template = {
        "version": 1,
        "start_anchor": "<S>",
        "fields": {
            "x": {"open": "<a>", "close": "</a>", "optional": s, "repeats": s},
            "c": {"close": "<e>", "optional": [s]},
        },
    }
    return template, _texts(s, "<a>1</a>2<e>", "")


PLACEMENTS: dict[str, Placement] = {
    f.__name__.replace("_", "-"): f
    for f in (
        field_name,
        implicit_field_name,
        repeated_field_name,
        defaults,
        open_literal,
        close_literal,
        literal_list,
        implicit_close,
        open_pattern,
        escaped_open_pattern,
        close_pattern,
        escaped_close_pattern,
        named_group,
        start_anchor,
        start_anchor_list,
        start_anchor_pattern,
        escaped_start_anchor_pattern,
        transform_keys,
        transform_value,
        transform_placeholder,
        transform_each,
        content_args_json,
        content_args_text,
        content_args_kv,
        tag_pattern,
        value_parser,
        version,
        content_parser_name,
        unknown_keys,
        unknown_top_level_key,
        other_values,
    )
}


# --- checks ------------------------------------------------------------------------------------


@functools.cache
def _reference() -> Reference:
    return Reference()


@functools.cache
def _rtc() -> Rtc:
    return Rtc(rtc_compile_load)


def _arm(value: Any, canary: Path) -> Any:
    """``value`` with every CANARY marker (in keys and strings) pointing at ``canary``."""
    if isinstance(value, str):
        return value.replace(CANARY, str(canary))
    if isinstance(value, list):
        return [_arm(v, canary) for v in value]
    if isinstance(value, dict):
        return {_arm(k, canary): _arm(v, canary) for k, v in value.items()}
    return value


def sha256_of(template: dict[str, Any]) -> str:
    """TEMPLATE_SHA256 as DESIGN.md defines it (key order kept, ASCII JSON)."""
    canonical = json.dumps(template, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def _names_in(source: str) -> set[str]:
    """Every name the module's code uses: globals, attributes, locals, defined functions."""
    names: set[str] = set()
    stack = [compile(source, "<generated>", "exec")]
    while stack:
        code = stack.pop()
        names.update(code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)
        names.add(code.co_name)
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return names


def check_source(source: str, template: dict[str, Any]) -> list[str]:
    """What is wrong with a generated module's source text (nothing: ``[]``)."""
    problems = []
    try:
        names = _names_in(source)
        ast.parse(source)
    except SyntaxError as exc:
        return [f"not valid Python: {exc}"]
    if bad := sorted(names & FORBIDDEN):
        problems.append(f"the module's code names {bad}")
    if sha256_of(template) not in source:
        problems.append("the module does not carry the template's SHA-256")
    return problems


def _rtc_rejection(template: dict[str, Any]) -> BaseException | None:
    try:
        rtc_compile_load(copy.deepcopy(template))
    except Exception as exc:  # noqa: BLE001 - compared below
        return exc
    return None


STREAM_LIMIT = 100
"""The first probe is also fed one character at a time, up to this many characters (then the rest
in one piece); the other probes are parsed in one shot and fed whole. Keeps the suite fast."""


def _runs(engine: Any, loaded: Any, probes: list[Probe]) -> list[list[Step]]:
    runs = []
    for k, (prefix, text) in enumerate(probes):
        runs.append([record_oneshot(engine, loaded, text, prefix, None)])
        runs.append(record_stream(engine, loaded, prefix, None, [text]))
        if k == 0:
            rest = [text[STREAM_LIMIT:]] if text[STREAM_LIMIT:] else []
            runs.append(record_stream(engine, loaded, prefix, None, [*text[:STREAM_LIMIT], *rest]))
    return runs


def check_template(template: dict[str, Any], probes: list[Probe]) -> list[str]:
    """Compare rtc with the reference on ``template``; return what differs (nothing: ``[]``)."""
    ref, rtc = _reference(), _rtc()
    ref_state, ref_loaded = load(ref, template)
    rtc_state, rtc_loaded = load(rtc, template)
    if ref_state == "hang":  # too slow to tell (a loaded machine): nothing to compare
        return []
    if ref_state != rtc_state:
        exc = _rtc_rejection(template)
        return [f"load: reference {ref_state}, rtc {rtc_state} ({exc!r:.300})"]
    if ref_state != "ok":
        exc = _rtc_rejection(template)
        wanted = {"ValueError": TemplateError, "TypeError": TemplateTypeError}.get(ref_state)
        if wanted is not None and not isinstance(exc, wanted):
            return [f"rejected with {exc!r:.200}, not a {wanted.__name__}"]
        return []
    problems = check_source(compile_template(template, format_code=False), template)
    if canon(rtc_loaded.TEMPLATE, aliases=False) != canon(template, aliases=False):
        problems.append("TEMPLATE differs from the input")
    if rtc_loaded.TEMPLATE_SHA256 != sha256_of(template):
        problems.append("TEMPLATE_SHA256 is not the template's hash")
    wanted, gotten = _runs(ref, ref_loaded, probes), _runs(rtc, rtc_loaded, probes)
    for want, got in zip(wanted, gotten, strict=True):
        if problem := diff_steps(want, got):
            problems.append(problem)
    return problems


def _check_everywhere(s: str, placements: list[str], canary: Path) -> list[str]:
    problems = []
    for placement in placements:
        template, probes = PLACEMENTS[placement](s)
        problems += [f"[{placement}] {problem}" for problem in check_template(template, probes)]
        assert not canary.exists(), f"[{placement}] a template string was executed"
    return problems


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_string_in_every_position(hostile: str, tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    problems = _check_everywhere(_arm(HOSTILE[hostile], canary), list(PLACEMENTS), canary)
    assert not problems, "\n".join(problems)


NAME_PLACEMENTS = [
    "field-name",
    "repeated-field-name",
    "named-group",
    "transform-keys",
    "transform-each",
]


def test_identifiers_as_names_and_keys(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    problems = []
    for name in IDENTIFIERS:
        problems += [f"{name!r}: {p}" for p in _check_everywhere(name, NAME_PLACEMENTS, canary)]
    # All of them at once: derived identifiers must stay distinct.
    fields = {name: {"open": f"<{name}>", "close": f"</{name}>"} for name in IDENTIFIERS}
    template = {"defaults": {n: n for n in IDENTIFIERS}, "start_anchor": "<S>", "fields": fields}
    text = "".join(f"<{name}>{name}!</{name}>" for name in reversed(IDENTIFIERS))
    problems += check_template(template, [("", text)])
    assert not problems, "\n".join(problems)


# --- the formatted module, written to a file and imported ---------------------------------------


SINK_PLACEMENTS = [
    "field-name",
    "open-literal",
    "escaped-close-pattern",
    "named-group",
    "transform-keys",
    "transform-placeholder",
    "content-args-json",
    "content-args-kv",
    "other-values",
    "start-anchor-list",
]
"""Placements combined into one template whose black-formatted module is imported from a file
(black is slow: a few fields keep the test fast)."""


FORMATTED = [
    "triple-double",
    "backslash-quote",
    "line-separator",
    "nul",
    "lone-surrogate",
    "jinja-ssti",
    "close-triple-double",
    "close-after-backslash",
    "break-comment-newline",
    "break-comment-cr",
]
"""The strings most likely to break out of a literal or a comment of the formatted module."""


def _kitchen_sink(s: str) -> dict[str, Any]:
    """``s`` in every position the reference accepts it in, in one template."""
    template: dict[str, Any] = {"defaults": {s: s, "k": [s, {s: s}]}, "fields": {}}
    for name in SINK_PLACEMENTS:
        part, _ = PLACEMENTS[name](s)
        if load(_reference(), part)[0] != "ok":
            continue
        for key, value in part.items():
            if key == "fields":
                for field, spec in value.items():
                    template["fields"][f"{name}/{field}"] = spec
            elif key.startswith("start_anchor"):
                template.pop("start_anchor", None)
                template.pop("start_anchor_pattern", None)
                template[key] = value
    # At most one implicit field: give the others an open.
    fields = template["fields"]
    implicit = [n for n, f in fields.items() if "open" not in f and "open_pattern" not in f]
    for n in implicit[1:]:
        template["fields"][n]["open"] = f"<{n}>"
    return template


def _import_file(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


@pytest.mark.parametrize("hostile", FORMATTED)
def test_formatted_module_imports_from_a_file(hostile: str, tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    s = _arm(HOSTILE[hostile], canary)
    template = _kitchen_sink(s)
    state, _ = load(_reference(), template)
    assert state == "ok", "the combined template must be valid for the reference"
    source = compile_template(copy.deepcopy(template))
    assert not canary.exists(), "compiling ran a template string"
    assert check_source(source, template) == []
    path = tmp_path / "parser_hostile.py"
    path.write_text(source, encoding="utf-8")
    module = _import_file(path, f"parser_hostile_{FORMATTED.index(hostile)}")
    assert not canary.exists(), "importing ran a template string"
    assert canon(module.TEMPLATE, aliases=False) == canon(template, aliases=False)
    text = "".join(f"<{n}>{s}</a>{s}" for n in template["fields"])
    ref = _reference()
    _, ref_loaded = load(ref, template)
    want = record_oneshot(ref, ref_loaded, text, "", None)
    got = record_oneshot(_rtc(), module, text, "", None)
    assert not canary.exists(), "parsing ran a template string"
    assert diff_steps([want], [got]) is None, diff_steps([want], [got])


def _plain(s: str) -> bool:
    """Whether a transform may hold ``s`` as a value (no placeholder mixed with other text)."""
    placeholder = regex.compile(r"\{\w+(?:\.\w+)*\}")
    return placeholder.search(s) is None or placeholder.fullmatch(s) is not None


@pytest.mark.parametrize("part", [0, 1])
def test_every_hostile_string_in_one_formatted_module(tmp_path: Path, part: int) -> None:
    # In two parts: each module's TEMPLATE stays small enough to be written inline (bigger
    # templates are test_scale's business).
    canary = tmp_path / "canary"
    strings = [_arm(value, canary) for value in HOSTILE.values()][part::2]
    template: dict[str, Any] = {
        "defaults": {f"d{k}{s}": s for k, s in enumerate(strings)},
        "start_anchor": [s for s in strings if s],
        "fields": {
            s: {
                "open": f"<{k}>{s}",
                "close_pattern": regex.escape(f"</{k}>{s}"),
                "content": "kv-lines",
                "content_args": {"kv_sep": s or ":", "line_sep": "\n", s: [s]},
                "transform": {s: "{content}", "lit": s if _plain(s) else "mixed"},
            }
            for k, s in enumerate(strings)
        },
    }
    assert load(_reference(), template)[0] == "ok"
    source = compile_template(copy.deepcopy(template))
    assert check_source(source, template) == []
    path = tmp_path / "parser_all.py"
    path.write_text(source, encoding="utf-8")
    module = _import_file(path, f"parser_all_hostile_{part}")
    assert canon(module.TEMPLATE, aliases=False) == canon(template, aliases=False)
    text = "".join(f"<{k}>{s}k{s or ':'}v{k}</{k}>{s}" for k, s in enumerate(strings))
    _, ref_loaded = load(_reference(), template)
    want = record_oneshot(_reference(), ref_loaded, text, "", None)
    got = record_oneshot(_rtc(), module, text, "", None)
    assert not canary.exists(), "a template string was executed"
    assert diff_steps([want], [got]) is None, diff_steps([want], [got])


# --- CLI: a hostile template given to `rtc compile -o OUT` -----------------------------------


def _cli(*args: str, input: str | None = None) -> Any:
    from click.testing import CliRunner

    from rtc.compiler.cli import main

    return CliRunner().invoke(main, list(args), input=input)


def _assert_one_line_failure(result: Any) -> None:
    assert result.exit_code == 2, (result.exit_code, result.stderr[-500:], result.exception)
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rtc: error: "), result.stderr[-500:]
    assert "Traceback" not in result.stderr


def test_rejected_hostile_template_does_not_clobber_output(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    out = tmp_path / "parser.py"
    out.write_text("previous module\n")
    payload = _arm(HOSTILE["close-triple-double"], canary)
    for bad in (
        {"start_anchor": "<S>", "fields": {payload: {"open_pattern": payload + "("}}},
        {"start_anchor": "<S>", "fields": {payload: {"open": payload, "content": payload}}},
        {"start_anchor": payload, "fields": {"x\n\x1b[2J": {"open": ""}}},
        {"start_anchor": "<S>", "fields": {"x": {"open": "<a>", "transform": f"{{a}}{payload}"}}},
    ):
        source = tmp_path / "bad.json"
        source.write_text(json.dumps(bad), encoding="utf-8")
        result = _cli("compile", str(source), "-o", str(out))
        _assert_one_line_failure(result)
        assert "\x1b" not in result.stderr
        assert out.read_text() == "previous module\n"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "parser.py"]
    assert not canary.exists()


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"k": value}
    return value


TOO_DEEP: dict[str, dict[str, Any]] = {
    # The reference deep-copies the defaults.
    "defaults": {"defaults": {"d": _nested(600)}, "start_anchor": "<S>", "fields": {"c": {}}},
    # The regex module parses patterns recursively.
    "pattern": {
        "start_anchor": "<S>",
        "fields": {"c": {"close_pattern": "(?:" * 300 + "a" + ")" * 300}},
    },
}


@pytest.mark.parametrize("name", TOO_DEEP)
def test_too_deep_template_is_a_one_line_failure(tmp_path: Path, name: str) -> None:
    # Valid JSON (Python's json reads ~990 levels) that the reference cannot load: it raises
    # RecursionError. rtc raises it too, but the CLI must turn it into its one-line error, not a
    # traceback.
    from transformers.utils.chat_parsing.response_templates import load_response_template

    template = TOO_DEEP[name]
    with pytest.raises(RecursionError):
        load_response_template(copy.deepcopy(template))
    with pytest.raises(RecursionError):
        rtc_compile_load(copy.deepcopy(template))
    source = tmp_path / "deep.json"
    source.write_text(json.dumps(template), encoding="utf-8")
    out = tmp_path / "parser.py"
    out.write_text("previous module\n")
    _assert_one_line_failure(_cli("compile", str(source), "-o", str(out)))
    assert out.read_text() == "previous module\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep.json", "parser.py"]
    _assert_one_line_failure(_cli("parse", str(source), "--prefix", "", input="hi"))


def test_compiled_module_of_a_big_template_imports(tmp_path: Path) -> None:
    # TEMPLATE too big to be written inline is embedded as JSON text parsed at import.
    template = {"start_anchor": [f"<s{i}>" for i in range(400)], "fields": {"c": {}}}
    source = tmp_path / "big.json"
    source.write_text(json.dumps(template), encoding="utf-8")
    out = tmp_path / "parser_big.py"
    result = _cli("compile", str(source), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    module = _import_file(out, "parser_big_template")
    assert module.TEMPLATE == template
    assert module.parse_response("a<s9>b", prefix="") == {"c": "a<s9>b"}
    result = _cli("parse", str(source), "--prefix", "x<s3>y", input="z")
    assert result.exit_code == 0, result.stderr[-500:]
    assert json.loads(result.stdout) == {"c": "yz"}


# --- random unicode everywhere ----------------------------------------------------------------

_SPECIALS = list("'\"\\\n\r\x00\x0c\x85\u2028{}%<>|()[]*?$^.") + ["\ud800", "\udfff", "'''", '"""']
_CHARS = st.one_of(st.sampled_from(_SPECIALS), st.characters(exclude_categories=()))
_STRINGS = st.lists(_CHARS, max_size=4).map("".join)
_DELIMITERS = st.lists(_CHARS, min_size=1, max_size=4).map("".join)
"""Mostly non-empty: the reference refuses empty literals, and accepted templates matter most."""
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    _STRINGS,
)


_DELIMITER_SLOTS = frozenset({2, 4, 5, 6, 10, 11, 12})


@st.composite
def hostile_templates(draw: st.DrawFn) -> tuple[dict[str, Any], list[Probe]]:
    s = [draw(_DELIMITERS if i in _DELIMITER_SLOTS else _STRINGS) for i in range(14)]
    pattern = s[5] if draw(st.integers(0, 3)) == 0 else regex.escape(s[5])
    template: dict[str, Any] = {
        "defaults": {s[0]: draw(st.lists(_SCALARS, max_size=3)), s[1]: draw(_SCALARS)},
        "start_anchor": s[2],
        "fields": {
            s[3]: {"open": s[4], "close": s[6], "transform": {s[7]: "{content}", "k": s[8]}},
            s[9]: {
                "open_pattern": pattern,
                "close": s[10],
                "content": "json",
                "content_args": {"string_delims": [[s[11], s[12]]], s[0]: s[1]},
            },
            s[13]: {"close": s[3] + s[6], "repeats": True, "join": s[7]},
        },
    }
    body = '{"a": ' + s[11] + "x" + s[12] + "}"
    texts = [
        f"{s[0]}{s[4]}{s[8]}{s[6]}{s[1]}{s[5]}{body}{s[10]}{s[3]}{s[6]}tail",
        f"{s[4]}{s[13]}{s[5]}{s[4][:-1]}",
    ]
    prefix = draw(st.sampled_from(["", f"old{s[4]}x{s[2]}{s[5]}", f"{s[2]}{s[4]}y"]))
    return template, [(prefix, texts[0]), ("", texts[1])]


@settings(
    max_examples=80,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(hostile_templates())
def test_random_unicode_everywhere(case: tuple[dict[str, Any], list[Probe]]) -> None:
    template, probes = case
    problems = check_template(template, probes)
    assert not problems, "\n".join(problems)
