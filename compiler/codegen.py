"""Rendering a plan into a Python module, and loading modules in memory."""

from __future__ import annotations

import re
import sys
import threading
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import black
import jinja2

from rtc.runtime import API_VERSION
from rtc.runtime.matching import SPACE_CHARS

from .lowering import lower
from .plan import Fast, Plan, Shape, State, Watch, template_sha256
from .sources import read_json_file
from .validate import validate
from .version import __version__

_TEMPLATES = Path(__file__).with_name("codegen_templates")
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(_TEMPLATES)),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    autoescape=False,
)
_ENV.filters["pyrepr"] = repr


def _pytuple(items: Any) -> str:
    """Source of a tuple whose items are already source text (no magic trailing comma)."""
    parts = [str(item) for item in items]
    return "(" + parts[0] + ",)" if len(parts) == 1 else "(" + ", ".join(parts) + ")"


_ENV.filters["pytuple"] = _pytuple
_ENV.filters["prepend"] = lambda text, head: f"{head}{text}"


def _fast_core(chars: str) -> str:
    """``Fast.core``: one character as a str (an ``in`` test), more as a frozenset."""
    return repr(chars) if len(chars) == 1 else f"frozenset({chars!r})"


_ENV.filters["fast_core"] = _fast_core


def _fast_lead(chars: str) -> str:
    """``Fast.lead``: the runtime's string of whitespace, or the characters themselves."""
    return "SPACE_STR" if set(chars) == SPACE_CHARS else repr(chars)


_ENV.filters["fast_lead"] = _fast_lead


def _may_match(needs: tuple[str, str]) -> str:
    """The test before a skippable partial search (``lowering.delimiters.skippable``): a core
    character from ``pos`` on, or a lead character last."""
    core, lead = needs
    tests = [f"buf.find({c!r}, pos) >= 0" for c in core]
    if lead:
        tests.append(f"(n > pos and buf[-1] in {_fast_lead(lead)})")
    return " or ".join(tests)


_ENV.filters["may_match"] = _may_match


def _none_from_pos(chars: str) -> str:
    """The test of ``State.skip``: none of ``chars`` from ``pos`` on."""
    return " and ".join(f"buf.find({c!r}, pos) < 0" for c in chars)


_ENV.filters["none_from_pos"] = _none_from_pos


def _fast_pending(pending: tuple[tuple[str, bool], ...]) -> str:
    r"""``Fast.pending``: (the literal constant or list constant, led by \s*) per watch."""
    return _pytuple(f"({name}, {led})" for name, led in pending)


_ENV.filters["fast_pending"] = _fast_pending


def _fast_starts(fast: Fast) -> str:
    """``Fast.starts`` and ``Fast.starts_led`` (keywords, where set): the literal constants
    and lists by name, then the patterns' leading literals as text."""
    out = []
    for key, names, texts in (
        ("starts", fast.starts, fast.starts_text),
        ("starts_led", fast.starts_led, fast.starts_led_text),
    ):
        if names or texts:
            out.append(f", {key}={_pytuple([*names, *map(repr, texts)])}")
    return "".join(out)


_ENV.filters["fast_starts"] = _fast_starts


def _fast_name(state: State) -> str:
    """The constant holding a state's ``Fast`` ("None" for a state without a fast path)."""
    return "None" if state.fast is None else f"_FAST_{state.suffix.upper()}"


_ENV.filters["fast_name"] = _fast_name


def _grows(state: State) -> str:
    """A state's entry of ``_grows`` (``runtime.growing.grows_held``): per watch whose held
    match may keep growing, how to check it (``Growing``)."""
    checks = []
    for g in state.growing:
        args = [f"literals={g.literals!r}"] if g.literals else [f"pattern={g.pattern}"]
        if g.prefix:
            args.append(f"prefix={g.prefix!r}")
        if g.stops is not None:
            args.append(f"stops={g.stops!r}")
        if g.run is not None:
            args.append(f"run={g.run}")
        if g.skip:
            args.append(f"skip={g.skip}")
        checks.append(f"Growing({', '.join(args)})")
    return _pytuple(checks) if checks else "()"


_ENV.filters["grows"] = _grows


def _both_engines(watches: Sequence[Watch]) -> bool:
    """Whether an end-of-stream function keeps matches of both engines in ``m`` (the regex
    module's, and an ``re`` twin's): it then declares the union, which mypy cannot infer."""
    engines: set[str] = set()
    for w in watches:
        if w.shape in (Shape.REGEX, Shape.REGEX_LITERALS) and w.pattern is not None:
            twin = w.pattern.twin
            engines |= {"regex"} if twin is None else {"re", "regex"} if twin.ascii_only else {"re"}
    return len(engines) > 1


_ENV.filters["both_engines"] = _both_engines
_BLACK_MODE = black.Mode(line_length=100, target_versions={black.TargetVersion.PY311})
FORMATTER_OFF = "# fmt: off\n"
"""The header line after which black and ``ruff format`` leave a generated module alone.

A user's formatter runs with the user's settings (line length, quote style, preview features)
and the user's version of black or ruff, whose style changes from year to year; any change it
made would make ``rtc check`` report the module stale. So rtc formats the module itself (black
within one year's style, ``black>=26.1,<27``, at line length 100) and the header turns formatters
off for everything below it.
"""


def _as_template(template: dict[str, Any] | str | Path) -> Any:
    """The template itself, or the JSON value read from a path (same rules as the CLI)."""
    if isinstance(template, (str, Path)):
        return read_json_file(str(template))
    return template


def build_plan(template: dict[str, Any] | str | Path) -> Plan:
    return lower(validate(_as_template(template)))


def render(plan: Plan) -> str:
    source = _ENV.get_template("module.py.j2").render(
        plan=plan, version=__version__, api_version=API_VERSION
    )
    # A macro with nothing to say for a delimiter leaves a line of indentation only.
    return _BLANK_INDENT.sub("", source)


_BLANK_INDENT = re.compile(r"^[ \t]+\n", re.MULTILINE)


def compile_template(template: dict[str, Any] | str | Path, *, format_code: bool = True) -> str:
    """The source of the parser module for ``template`` (a dict, or a path to its JSON)."""
    source = render(build_plan(template))
    if format_code:
        # Formatted below the marker only: black would skip the whole body after it.
        header, marker, body = source.partition(FORMATTER_OFF)
        assert marker, "the code template's header lost its formatter marker"
        source = header + marker + black.format_str(body, mode=_BLACK_MODE)
    return source


_CACHE: dict[str, types.ModuleType] = {}
_LOCK = threading.Lock()


def load(template: dict[str, Any] | str | Path) -> types.ModuleType:
    """Compile ``template`` and import the module in memory (cached by template SHA-256)."""
    data = _as_template(template)
    try:
        # The cache's key first: a template loaded before is not lowered again (a template
        # with thousands of fields takes seconds to lower).
        module = _CACHE.get(template_sha256(data))
    except (TypeError, ValueError, RecursionError):  # validation says what is wrong
        module = None
    if module is not None:
        return module
    plan = build_plan(data)
    with _LOCK:
        module = _CACHE.get(plan.sha256)
        if module is not None:
            return module
        # Layout only differs from `compile_template` (black is skipped): same behaviour.
        source = render(plan)
        name = f"rtc_loaded_{plan.sha256[:16]}"
        module = types.ModuleType(name)
        module.__file__ = f"<rtc {name}>"
        code = compile(source, module.__file__, "exec")
        sys.modules[name] = module
        try:
            exec(code, module.__dict__)
        except BaseException:
            del sys.modules[name]
            raise
        _CACHE[plan.sha256] = module
        return module


__all__ = ["build_plan", "compile_template", "load", "render", "template_sha256"]
