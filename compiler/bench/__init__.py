"""``rtc bench``: how fast generated parsers are, next to transformers' interpreter.

The workloads are built from each template's own delimiters: literals are used as they are, and
for patterns a sample string is generated from the parsed regex (preferring realistic values for
named groups such as ``name``) and verified with ``regex.fullmatch``, or in place in the composed
text when the pattern needs context (look-arounds, ``^``). Every composed text is then parsed once
and checked (reasoning and content come back as written, the expected number of tool calls); a
workload that cannot be derived or does not parse as intended is skipped and the reason reported.

What is timed, for rtc, for the reference (transformers 5.23.0, when installed) and for a floor:

- one-shot: ``parse_response(text, prefix=ANCHOR, tools=TOOLS)``; the reference both given the
  template dict, as its ``parse_response`` is documented to be called (it then validates and
  compiles the template on each call: the "speedup"), and given a template loaded once
  beforehand with ``load_response_template`` (its best case: "x preload");
- streamed in 1-, 3- and 16-character chunks: ``feed()`` of every chunk then ``finalize()``, with
  the parser built beforehand (construction is measured on its own), reported per chunk;
- construction: ``ResponseParser(PROMPT, tools=TOOLS)`` with a multi-turn prompt of a few KB, the
  reference both from the template dict and from the preloaded template;
- region streams (what a server streams most): for each region a template has (the answer, the
  reasoning, a tool call's arguments), a real generation of the family (its own test fixtures,
  copied into ``region_samples.json``) with that region grown to 8 KB of prose (English
  Markdown, and a Chinese / accented Latin / emoji variant), fed in token-sized chunks (a word
  with its leading space, a run of punctuation, a run of newlines) to ``ResponseParser``,
  ``DeltaStream``, the reference and the floor; the growth of the parser's cost per chunk from
  4 KB to 128 KB of prose; and the share of chunks that leave the parser's fast path;
- the floor: a ``feed()`` that only returns a list holding one 4-key ``region_chunk`` dict, driven
  by the same loop; no parser can stream faster than that in Python;
- with ``--abuse``: an 8 MB generation fed in 4 KB chunks (per-character cost of the
  first and last eighth) and one character at a time at its start and at its end (under a time
  budget), and a flood of partial delimiters (``<`` repeated) at 1 MB and 8 MB: a parser whose
  per-character cost grows with the text shows ratios well above 1.

Measurements interleave rtc, the reference and the floor in one process (so machine noise hits all
alike), use ``time.perf_counter_ns`` (or, with ``--clock cpu``, the thread's CPU time), repeat
each op enough times per sample to be well above timer resolution, and report the minimum (or, on
request, the median) of several samples: other processes on the machine only ever add time, so
the minimum is the steadiest estimate of what the code costs; JSON keeps both. The garbage
collector is paused inside a sample only (as ``timeit`` does); collections still happen between
samples. Every sample runs under a wall-clock cap (``signal.setitimer``): the reference is
quadratic in places and never returns on some templates, so a slow call is reported as "timeout"
instead of hanging the run; each measurement and each template has a time budget too, and a
parser that timed out on a text is not run on longer ones.

The modules, one concern each:

- ``config``: ``BenchConfig`` (sizes, chunk sizes, repeats, budgets), the quick and full runs,
  the targets;
- ``texts``: what generations say (the tools, the calls, short answers, prose);
- ``samples``: sample strings for pattern delimiters, and composing a text from delimiters;
- ``tool_calls``: tool calls written in a template's own format;
- ``workloads``: which fields play which part, and the workload texts with their checks;
- ``prose``: the prose of the region streams; ``tokens``: cutting a text as tokens come;
- ``region_samples`` (and ``region_samples.json``): the families' real generations, one per
  region, and growing a region; ``refresh_samples``: choosing them from the test data (a
  maintainer's tool);
- ``regions``: the region streams of a template (from its family's sample, or composed from
  its delimiters), each checked to parse with the prose in the intended field;
- ``streaming``: timing a region stream on every side, its growth, and where the time goes;
- ``timing``: time caps, samples, interleaved repeats (``measure``) and the timed ops;
- ``sides``: rtc, the reference and the floor, and the ops each workload mode times on them;
- ``runner``: one template (every workload in every mode, linearity), then several;
- ``abuse``: the ``--abuse`` runs;
- ``summary``: headline numbers per template, medians against the targets;
- ``cells``: how numbers and tables are written;
- ``report``: the human-readable table; ``region_report``: the region streams' tables (text and
  Markdown);
- ``markdown``: the README's Performance tables (``--markdown FILE``);
- ``catalogue/``: the 16 frozen benchmark templates ``--catalogue`` runs (``--live``: the
  installed catalogue instead);
- ``batch``: ``--batch``, the offline file pipelines (records/s, JSONL in, Parquet out), on its
  own corpus (``rtc.compiler.offline.corpus``).

The command line is ``rtc.compiler.cli.bench``. Where new work goes:

- a new workload text (e.g. short tool-calling generations): build it in
  ``workloads.build_workloads`` (with its checks) and add its name to
  ``workloads.workload_names``, which is what ``--workload`` accepts;
- a new region stream (another region, another prose): a region in ``config.regions`` with its
  field in ``regions.region_field`` (and its samples: ``refresh_samples``), or a variant in
  ``prose.VARIANTS`` and ``config.region_variants`` (timed in some regions only:
  ``prose.VARIANT_REGIONS``);
- a new way of running every workload (e.g. a ``--batch`` of texts through one
  ``parse_response`` call, or OpenAI deltas from a ``DeltaStream``): its ops in ``sides.Sides``
  (one entry per side, so each is called the same way), one more row in ``runner._runs``, a
  ``BenchConfig`` flag, its option in ``cli/bench.py``; the report and summary read rows by mode;
- a new headline number: ``summary.template_metrics`` and, with a target, ``config.TARGETS``.
"""

from __future__ import annotations

from .config import FULL, QUICK, TARGETS, BenchConfig, size_label
from .markdown import format_markdown
from .prose import answer_prose, unicode_prose
from .regions import RegionStream, build_region_streams
from .report import format_report, format_summary
from .runner import bench_template, catalogue_sources, run_benchmark
from .samples import pattern_samples
from .sides import FloorParser, Reference, Sides, load_reference
from .summary import summarize, template_failures, template_metrics
from .texts import CALLS, SHORT_CONTENT, SHORT_REASONING, TOOLS, prose
from .timing import Measured, measure, time_limit
from .tokens import token_chunks
from .workloads import (
    TemplatePlan,
    Workload,
    build_workloads,
    check_message,
    plan_template,
    workload_names,
)

__all__ = [
    "CALLS",
    "FULL",
    "QUICK",
    "SHORT_CONTENT",
    "SHORT_REASONING",
    "TARGETS",
    "TOOLS",
    "BenchConfig",
    "FloorParser",
    "Measured",
    "Reference",
    "RegionStream",
    "Sides",
    "TemplatePlan",
    "Workload",
    "answer_prose",
    "bench_template",
    "build_region_streams",
    "build_workloads",
    "catalogue_sources",
    "check_message",
    "format_markdown",
    "format_report",
    "format_summary",
    "load_reference",
    "measure",
    "pattern_samples",
    "plan_template",
    "prose",
    "run_benchmark",
    "size_label",
    "summarize",
    "template_failures",
    "template_metrics",
    "time_limit",
    "token_chunks",
    "unicode_prose",
    "workload_names",
]
