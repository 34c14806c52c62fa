"""The ``rtc`` command line: compile, check, parse, bench and lint templates; match and infer.

One module per command (``compile``, ``check``, ``parse``, ``bench``, ``lint``, ``match``,
``infer``), each parsing its arguments and calling into the module that owns the work; ``common``
holds what they share (the one-line ``Failure``, atomic writes, JSON printing) and ``app`` the
group. A new command is a new module here and one ``add_command`` line below. Failures follow one
rule (DESIGN.md, CLI): one line ``rtc: error: …`` on stderr, exit status 2, no traceback, no
partial output file; ``rtc check`` exits 1 when it finds drift.
"""

from __future__ import annotations

from .app import main, run
from .bench import bench_command
from .check import check_command
from .compile import compile_command
from .infer import infer_command
from .lint import lint_command
from .match import match_command
from .parse import parse_command

main.add_command(compile_command)
main.add_command(check_command)
main.add_command(parse_command)
main.add_command(bench_command)
main.add_command(lint_command)
main.add_command(match_command)
main.add_command(infer_command)

__all__ = ["main", "run"]
