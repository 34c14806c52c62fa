"""HF datasets: ``Dataset.map(batched=True, num_proc=N)`` gives what the file job gives."""

from __future__ import annotations

import multiprocessing
import pickle
from pathlib import Path

import pytest
from offline_helpers import comparable, expected, table_rows, write_corpus

datasets = pytest.importorskip("datasets")

from rtc.compiler.offline.hf_datasets import DatasetParser, parse_dataset  # noqa: E402


def _dataset(path: Path):
    """The corpus's JSON records as a Dataset (tools as JSON text, texts null if bad)."""
    columns = ("id", "prompt", "text", "tools")
    return datasets.Dataset.from_list([{k: r[k] for k in columns} for r in table_rows(path)])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("ds"), "qwen3")


def test_map_with_two_processes_equals_parse_response(corpus: Path) -> None:
    ds = _dataset(corpus)
    out = parse_dataset(
        ds, "qwen3", prefix_field="prompt", tools_field="tools", num_proc=2, batch_size=500
    )
    by_id = {r["id"]: r for r in expected("qwen3", corpus) if "id" in r}
    assert len(out) == len(ds)
    for row, record in enumerate(out, 1):
        want = comparable(by_id[record["id"]])
        got = comparable(record)
        assert got["message"] == want["message"]
        assert (got["error"] is None) == (want["error"] is None)
        if got["error"] is not None:
            assert got["error"] == (want["error"][0], row)  # rows numbered from 1
    kinds = [comparable(r)["error"][0] for r in out if r["error"] is not None]
    assert kinds.count("ValueError") >= 20 and kinds.count("RecordError") >= 5


def test_the_map_function_is_picklable_and_names_its_parser() -> None:
    template = {"start_anchor": "<a>", "fields": {"content": {"close": "</a>"}}}
    for parser in ("qwen3", template):
        function = DatasetParser(parser, prefix="")
        copy = pickle.loads(pickle.dumps(function))
        assert copy.parser == function.parser
        assert not any(type(v).__name__ == "module" for v in vars(copy).values())


def _spawned(function: DatasetParser) -> dict:
    return function({"text": ["hi</a>", "x"]}, [0, 1])


def test_spawned_processes_resolve_the_parser_themselves() -> None:
    template = {"start_anchor": "<a>", "fields": {"content": {"close": "</a>"}}}
    function = DatasetParser(template, prefix="<a>")
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        result = pool.apply_async(_spawned, (function,)).get(timeout=120)
    assert result == {"message": [{"content": "hi"}, {"content": "x"}], "error": [None, None]}
