"""Which catalogue parser reads what a model's chat template writes: evidence, not a guess.

``match(chat_template, special_tokens)`` renders probe conversations through the chat template
(in jinja2's sandbox, as ``rtc lint`` renders them; :mod:`.probes` lists them: content,
reasoning under each key, content and a call, typed arguments, parallel calls, no tools, the
thinking switch), cuts each assistant turn out of the rendering, parses it with every catalogue
parser after the rendered prompt, and ranks the families by how many probes come back as the
chat template wrote them (:mod:`.compare`)::

    from rtc.compiler.match import match
    found = match(tokenizer.chat_template, {"bos_token": "<s>", "eos_token": "</s>"})
    found.best                     # families that round-trip every probe, e.g. ["qwen3", ...]
    top = found.ranking[0]         # Score: .family, .passed, .total, .first_difference
    [(o.label, o.difference) for o in top.outcomes]     # the evidence, probe by probe
    found.to_json()                # what `rtc match --format json` prints

``special_tokens`` are the tokenizer config's ``*_token`` entries (``bos_token`` is written by
many templates; ``eos_token``, when given, is where each turn is cut, as a model stops there).
``families`` limits the ranking to some catalogue names. Raises
:class:`rtc.compiler.chat.ChatTemplateError` when the chat template does not compile; a probe
the template cannot render is left out (``Rendered.error`` says why), so a template that
renders nothing gives a ranking of empty scores and no ``best``.

Cost: one call renders the template about thirty times (three renders a probe) and runs the 47
catalogue parsers on each probe: 0.07 to 0.5 s of CPU on the catalogue's chat templates (median
0.12 s), after a one-time 0.7 s to import the parser modules (README, "From a chat template to
a parser"). Long prompts cost most: a parser whose start anchor is not in the prompt reads the
whole prompt as output, as the reference does. It needs jinja2 and the runtime only (no click,
no black), so a server can call it once at start-up. Renders run under a time limit on the main
thread only (a signal); elsewhere they are not capped.
"""

from __future__ import annotations

from .compare import difference
from .probes import TOOLS, Expected, Rendered, render_all
from .ranking import Match, Outcome, Score, match, rank

__all__ = [
    "TOOLS",
    "Expected",
    "Match",
    "Outcome",
    "Rendered",
    "Score",
    "difference",
    "match",
    "rank",
    "render_all",
]
