"""rtc's SGLang plugin: ``python -m sglang.launch_server --model-path MODEL --tool-call-parser rtc
--reasoning-parser rtc``.

Installed with rtc, the ``sglang.srt.plugins`` entry point ``rtc`` calls :func:`register` in
every SGLang process, before the server reads its arguments. It checks that the running SGLang is
the one this plugin was written and tested against (:data:`TESTED`; the signatures of every
SGLang member it calls or overrides, :data:`INTERFACE`; and the public members of the detector
classes it subclasses, :data:`MEMBERS`, since SGLang's server may call any of them), then adds
the detectors ``rtc`` and ``rtc-<family>`` (one per catalogue family) to SGLang's registries,
``FunctionCallParser.ToolCallParserEnum`` and ``ReasoningParser.DetectorMap``.

Another SGLang is never parsed with: the check fails, the error is logged, and the rtc names are
registered as detectors that refuse to be built with that error, so a server started with them
stops at start-up (a server that does not name them runs as usual).

Only this module and :mod:`.sglang_parsers` import SGLang; nothing on the production import path
of generated parsers imports either.
"""

from __future__ import annotations

import functools
import logging

from . import interface

__all__ = ["INTERFACE", "MEMBERS", "SPEC", "TESTED", "interface_problems", "register"]

SPEC = interface.EngineInterface.load("sglang_interface.json")
"""The SGLang this plugin was written for (``sglang_interface.json``)."""
TESTED = SPEC.tested
"""The SGLang releases this plugin was tested with (CI installs exactly these)."""
INTERFACE = SPEC.parameters
"""Every SGLang member the plugin calls or overrides, with its parameters (or model fields) as
the tested release has them. A change in any of them is an SGLang this plugin was not written
for."""
MEMBERS = SPEC.members
"""The public members of the detector classes rtc's detectors subclass (SGLang's server may call
any of them): a member added in another SGLang would reach SGLang's template reader, which rtc's
detectors do not set up."""

logger = logging.getLogger("rtc.engines.sglang")


def interface_problems() -> list[str]:
    """What differs between the running SGLang and the one this plugin was tested with (empty:
    nothing)."""
    import sglang

    return interface.problems(SPEC, getattr(sglang, "__version__", "unknown"))


def _add(name: str, reasoning: type, tool: type) -> None:
    """Add one name's reasoning and tool detector classes to SGLang's registries."""
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    FunctionCallParser.ToolCallParserEnum[name] = tool
    ReasoningParser.DetectorMap[name] = reasoning


@functools.cache
def register() -> None:
    """The entry point: add rtc's detectors to this SGLang process's registries (once)."""
    interface.register(SPEC, interface_problems(), _add, logger)
