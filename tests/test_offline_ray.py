"""Ray Data: the per-batch function with Ray's own readers and writers, and ``rtc parse --ray``.

One local Ray (``ray.init(num_cpus=2)``) serves the whole session; every test here is in the
xdist group ``ray`` so that under ``pytest -n N --dist loadgroup`` they share one worker (and one
Ray). Each test runs under a hard time limit: a stuck Ray must fail the run, not hang it.
"""

from __future__ import annotations

import faulthandler
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from offline_helpers import comparable, expected, read_output, table_rows, write_corpus

ray = pytest.importorskip("ray")
pq = pytest.importorskip("pyarrow.parquet")

from rtc.compiler.cli import main  # noqa: E402
from rtc.compiler.offline.ray_data import ROW, RayBatchParser  # noqa: E402

pytestmark = pytest.mark.xdist_group("ray")

TIME_LIMIT = 240


@pytest.fixture(scope="session")
def local_ray() -> Iterator[None]:
    faulthandler.dump_traceback_later(TIME_LIMIT, exit=True)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    faulthandler.cancel_dump_traceback_later()
    yield
    ray.shutdown()


@pytest.fixture(autouse=True)
def time_limit(local_ray: None) -> Iterator[None]:
    faulthandler.dump_traceback_later(TIME_LIMIT, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("ray"), "qwen3")


def _good_jsonl(source: Path, target: Path) -> None:
    """The corpus without its bad lines (Ray's JSON reader refuses a file with one)."""
    lines = [json.dumps(r) for r in table_rows(source) if r["text"] is not None]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_map_batches_with_rays_json_reader_and_parquet_writer(corpus: Path, tmp_path: Path) -> None:
    source = tmp_path / "good.jsonl"
    _good_jsonl(corpus, source)
    parse = RayBatchParser("qwen3", prefix_field="prompt", tools_field="tools")
    ds = ray.data.read_json(str(source), lines=True)
    ds.map_batches(parse, batch_format="pyarrow", batch_size=1000).write_parquet(
        str(tmp_path / "out")
    )
    got = {r["id"]: comparable(r) for r in pq.read_table(tmp_path / "out").to_pylist()}
    want = {r["id"]: comparable(r) for r in expected("qwen3", corpus) if "id" in r}
    want = {k: v for k, v in want.items() if isinstance(v.get("text"), str)}
    assert sorted(got) == sorted(want)
    for key, record in got.items():
        assert record["message"] == want[key]["message"]
        assert (record["error"] is None) == (want[key]["error"] is None)
        if record["error"] is not None:
            assert record["error"][0] == want[key]["error"][0]
    assert sum(r["error"] is not None for r in got.values()) >= 10


def test_rtc_parse_ray_equals_the_single_process_job(corpus: Path, tmp_path: Path) -> None:
    single = tmp_path / "single.jsonl"
    common = ["parse", "--catalogue", "qwen3", "--input", str(corpus), "--prefix-field", "prompt"]
    common += ["--tools-field", "tools"]
    done = CliRunner().invoke(main, [*common, "--output", str(single)])
    assert done.exit_code == 0, done.stderr
    folder = tmp_path / "parts"
    done = CliRunner().invoke(main, [*common, "--output", str(folder), "--ray"])
    assert done.exit_code == 0, done.stderr
    rows = sorted(pq.read_table(folder).to_pylist(), key=lambda r: r[ROW])
    want = [comparable(r, drop_nulls=True) for r in read_output(single)]
    for record in want:  # a bad record's mistyped field does not fit its Parquet column
        if not isinstance(record.get("text", ""), str):
            del record["text"]
    lines = corpus.read_text(encoding="utf-8").splitlines()
    # every non-blank line once, in order; row + 1 is the line
    assert [r[ROW] + 1 for r in rows] == [n for n, line in enumerate(lines, 1) if line.strip()]
    # Parquet parts hold each block under one schema (absent keys are nulls): compare without them
    got = [comparable({k: v for k, v in r.items() if k != ROW}, drop_nulls=True) for r in rows]
    assert got == want
    records = len(want)
    assert f"{len(lines):,} input rows, {records:,} records out" in done.stderr
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_rtc_parse_ray_refuses_an_existing_output_folder(corpus: Path, tmp_path: Path) -> None:
    done = CliRunner().invoke(
        main,
        ["parse", "--catalogue", "qwen3", "--input", str(corpus), "--prefix", "",
         "--output", str(tmp_path), "--ray"],
    )  # fmt: skip
    assert done.exit_code == 2 and "already exists" in done.stderr
