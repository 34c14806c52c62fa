"""The production path stays small: parsers and the CLI load no optional dependency."""

from __future__ import annotations

import json
import subprocess
import sys

OPTIONAL = ("pyarrow", "ray", "datasets", "transformers", "tokenizers")

_PROBE = """
import json, sys
from rtc.generated import qwen3
qwen3.parse_batch(["<think>a</think>b"], prefix="")
import rtc.runtime.batch
production = sorted(m for m in sys.modules if m.split(".")[0] in {optional!r}
                    or m.startswith("rtc.compiler"))
import rtc.compiler.cli, rtc.compiler.offline.files, rtc.compiler.offline.hf_datasets
import rtc.compiler.offline.ray_data, rtc.compiler.offline.hf_tokenizers, rtc.compiler.bench.batch
cli = sorted(m for m in sys.modules if m.split(".")[0] in {optional!r})
print(json.dumps({{"production": production, "cli": cli}}))
"""


def test_parse_batch_and_the_offline_modules_import_no_optional_dependency() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(optional=OPTIONAL)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    seen = json.loads(done.stdout)
    assert seen == {"production": [], "cli": []}
