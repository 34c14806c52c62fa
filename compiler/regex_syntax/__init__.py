"""One reader of regex syntax for the whole compiler, and the analyses built on its tree.

The reference compiles every delimiter and tag pattern with the ``regex`` module (DOTALL,
version 0). Everything rtc concludes from a pattern at compile time (the fast paths of the
generated modules, the lint's probe texts and checks, the benchmark's texts) reads it here,
through one parser (:func:`parse`, module :mod:`.parser`) into one tree (:mod:`.nodes`). A
construct the parser does not model is an :class:`~.nodes.Unknown` node, and every analysis
then answers "unknown" (None, or the conservative answer its docstring names).

The analyses, each a function of a :class:`~.nodes.Tree`:

- :mod:`.lengths`: ``min_length``, ``max_length`` (None: unbounded), ``can_match_empty``;
- :mod:`.first`: ``first_chars`` (a :class:`~.chars.CharSet`, None: unknown), ``alphabet``;
- :mod:`.needs`: ``needs`` (characters every match needs, and what an attempt reads before
  one: what the streaming fast path looks for);
- :mod:`.literal`: ``lead_core`` (the characters that may lead the first required literal and
  that literal: a :class:`~.literal.LeadCore`), ``literal_prefix``, ``leading_literals``,
  ``literal_text``, ``literal_alternatives``, ``literal_runs`` (the texts a pattern matches as
  written);
- :mod:`.context`: ``context_bound`` (how many characters before the search position a match
  can read; None: unbounded), ``looks_behind``, ``start_sensitive`` (``\\G``, ``\\K``);
- :mod:`.groups`: ``always_groups``, ``top_level_alternatives``, ``group_body_span``;
- :mod:`.twin`: ``re_twin`` (the ``re`` translation where both engines agree),
  ``searches_well``;
- :mod:`.samples`: ``samples`` (texts the pattern matches, checked with ``regex``);
- :mod:`.fast_paths`: the exact answers today's lowering steps ask for, by pattern string
  (also ``param_shape``: tag patterns whose matches are final once found in a prefix).

Membership of a character in a class is always decided by the ``regex`` module itself
(:mod:`.chars`). Nothing here uses CPython's private ``re._parser``.
"""

from __future__ import annotations

from .chars import CharSet, accepts
from .context import context_bound, looks_behind, settles_where_it_starts, start_sensitive
from .first import alphabet, first_chars
from .groups import always_groups, group_body_span, top_level_alternatives
from .lengths import can_match_empty, max_length, min_length
from .literal import (
    LeadCore,
    lead_core,
    leading_literals,
    literal_alternatives,
    literal_prefix,
    literal_text,
)
from .needs import Needs, needs
from .nodes import Tree
from .parser import parse
from .samples import Sample, samples
from .twin import Twin, re_twin, searches_well

__all__ = [
    "CharSet",
    "LeadCore",
    "Needs",
    "Sample",
    "Tree",
    "Twin",
    "accepts",
    "alphabet",
    "always_groups",
    "can_match_empty",
    "context_bound",
    "first_chars",
    "group_body_span",
    "lead_core",
    "literal_alternatives",
    "leading_literals",
    "literal_prefix",
    "literal_text",
    "looks_behind",
    "max_length",
    "min_length",
    "needs",
    "parse",
    "re_twin",
    "samples",
    "searches_well",
    "settles_where_it_starts",
    "start_sensitive",
    "top_level_alternatives",
]
