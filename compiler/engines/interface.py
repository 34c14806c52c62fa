"""Is the running engine the one a plugin was written for? Engine-neutral checks of its interface.

A plugin describes the engine it was written for in data (``<engine>_interface.json`` beside
this module, read into an :class:`EngineInterface`): the tested releases; every engine member it
calls or overrides, ``"module:Class.member"`` with the parameters the tested release has (or a
pydantic model's fields, in order); for the classes it extends, their public members; rtc's own
parser classes and the engine's bases. :func:`differences` lists what the running engine has
otherwise. A plugin that finds differences registers :func:`refusing` classes under its names,
so that a server started with them stops with the reason. Standard library only.
"""

from __future__ import annotations

import importlib
import inspect
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["EngineInterface", "differences", "problems", "refusing", "unavailable"]


@dataclass(frozen=True)
class EngineInterface:
    """The engine release a plugin was written for, as its JSON file describes it (the file's
    ``about`` says what each part means)."""

    engine: str
    tested: tuple[str, ...]
    parameters: dict[str, tuple[str, ...]]
    members: dict[str, tuple[str, ...]]
    classes: tuple[str, str]
    """rtc's parser classes (reasoning, tool), ``module:Class``."""
    refusing_bases: tuple[str, str]
    """The engine's bases (reasoning, tool) of the classes registered when the interface differs."""

    @classmethod
    def load(cls, name: str) -> EngineInterface:
        """The interface file ``name`` beside this module (shipped with the package)."""
        data = json.loads((Path(__file__).parent / name).read_text(encoding="utf-8"))

        def pair(key: str) -> tuple[str, str]:
            return data[key]["reasoning"], data[key]["tool"]

        return cls(
            engine=data["engine"],
            tested=tuple(data["tested"]),
            parameters={k: tuple(v) for k, v in data["parameters"].items()},
            members={k: tuple(v) for k, v in data.get("members", {}).items()},
            classes=pair("classes"),
            refusing_bases=pair("refusing_bases"),
        )


def _resolve(target: str) -> Any:
    module_name, _, path = target.partition(":")
    try:
        value: Any = importlib.import_module(module_name)
        for part in path.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError):
        return None
    return value


def _parameters(value: Any) -> tuple[str, ...] | None:
    fields = getattr(value, "model_fields", None)
    if isinstance(fields, dict):
        return tuple(fields)
    try:
        return tuple(inspect.signature(value).parameters)
    except (TypeError, ValueError):
        return None


def differences(
    parameters: dict[str, tuple[str, ...]], members: dict[str, tuple[str, ...]] | None = None
) -> list[str]:
    """One line per difference: a member missing or taking other parameters (``parameters``),
    a class with other public members than the sorted names in ``members``."""
    problems = []
    for target, expected in parameters.items():
        value = _resolve(target)
        found = None if value is None else _parameters(value)
        if found is None:
            problems.append(f"{target} is missing")
        elif found != expected:
            problems.append(f"{target} takes ({', '.join(found)}), not ({', '.join(expected)})")
    for target, expected in (members or {}).items():
        cls = _resolve(target)
        if cls is None:
            problems.append(f"{target} is missing")
            continue
        public = tuple(sorted(name for name in dir(cls) if not name.startswith("_")))
        if public != expected:
            added = sorted(set(public) - set(expected))
            removed = sorted(set(expected) - set(public))
            problems.append(f"{target} members differ (added {added}, removed {removed})")
    return problems


def problems(spec: EngineInterface, version: str) -> list[str]:
    """What differs between the running engine, release ``version``, and the one ``spec``
    describes: the release itself, then :func:`differences` (empty: nothing)."""
    tested = ", ".join(spec.tested)
    found = (
        []
        if version in spec.tested
        else [f"{spec.engine} {version} is not a tested release ({tested})"]
    )
    return found + differences(spec.parameters, spec.members)


def unavailable(engine: str, tested: tuple[str, ...], found: list[str]) -> str:
    """The error a plugin logs, and its refusing parsers raise, for :func:`problems`."""
    from rtc.compiler.version import __version__

    return (
        f"rtc's {engine} parsers are not available: rtc {__version__} was written for {engine} "
        f"{', '.join(tested)}, and this {engine} differs: {'; '.join(found)}. Install {engine} "
        f"{tested[-1]}, or an rtc release made for this {engine}"
    )


def refusing(base: type, message: str) -> type:
    """A ``base`` that cannot be built: ``RuntimeError(message)``, raised by ``__new__`` (before
    an abstract base would refuse with its own ``TypeError``)."""

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(message)

    return type(base.__name__, (base,), {"__new__": __new__})


def refuse_all(
    engine: str,
    tested: tuple[str, ...],
    found: list[str],
    bases: tuple[type, type],
    add: Callable[[str, type, type], None],
    logger: logging.Logger,
) -> None:
    """When the engine's interface differs (``found``): log why, and ``add`` under every rtc
    parser name a refusing subclass of each of ``bases`` (reasoning, tool), so that a server
    asked for an rtc parser stops with that reason instead of parsing wrongly."""
    from . import family

    message = unavailable(engine, tested, found)
    logger.error("%s", message)
    reasoning, tool = (refusing(base, message) for base in bases)
    for name in family.parser_names():
        add(name, reasoning, tool)


def register(
    spec: EngineInterface,
    found: list[str],
    add: Callable[[str, type, type], None],
    logger: logging.Logger,
) -> bool:
    """A plugin's registration: rtc's classes (``spec.classes``, imported here) under every rtc
    parser name where the engine's interface is the tested one (``found`` empty), else the
    refusing subclasses of the engine's bases (see :func:`refuse_all`). True when rtc's own
    classes were registered."""
    if found:
        reasoning, tool = (load(path) for path in spec.refusing_bases)
        refuse_all(spec.engine, spec.tested, found, (reasoning, tool), add, logger)
        return False
    register_all(add, load(spec.classes[0]), load(spec.classes[1]))
    return True


def load(path: str) -> Any:
    """The object ``module:name`` names (imported now)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def register_all(add: Callable[[str, type, type], None], reasoning: type, tool: type) -> None:
    """``add`` under every rtc parser name (``rtc``, ``rtc-<family>``) a subclass of each of
    the engine's rtc classes (reasoning, tool) that knows the name it was asked for by."""
    from . import family

    for name in family.parser_names():
        attributes = {"parser_name": name}
        add(
            name,
            type(f"{reasoning.__name__}[{name}]", (reasoning,), attributes),
            type(f"{tool.__name__}[{name}]", (tool,), attributes),
        )
