"""``rtc bench --batch``: the report's structure on a tiny corpus (never timings)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from rtc.compiler.bench import batch
from rtc.compiler.cli import main
from rtc.compiler.offline import corpus

pytest.importorskip("pyarrow")


def test_every_pipeline_parses_the_same_records_and_the_report_names_the_targets() -> None:
    result = batch.run((60, 1), families=["qwen3", "mistral"])
    lines = [line for f in ("qwen3", "mistral") for line in corpus.records(f, 60) if line.strip()]
    assert result["records"] == len(lines)
    assert set(result["records_per_second"]) == {batch.RTC_1, batch.RTC_2, batch.REFERENCE}
    assert all(rate > 0 for rate in result["records_per_second"].values())
    assert set(result["ratios"]) == set(batch.TARGETS)
    text = batch.report(result)
    assert "| rtc / reference |" in text and ">= 3.0x" in text and "Load average" in text


def test_batch_takes_no_template() -> None:
    done = CliRunner().invoke(main, ["bench", "--batch", "generated/qwen3.json"])
    assert done.exit_code == 2 and "--batch runs on its own corpus" in done.stderr
