"""Hugging Face ``datasets``: parse a column of generations with ``Dataset.map``.

    from rtc.compiler.offline.hf_datasets import DatasetParser

    parse = DatasetParser("qwen3", prefix_field="prompt")        # or a template dict / file
    ds = ds.map(parse, batched=True, with_indices=True, num_proc=4, features=parse.features(ds))
    # the same: ds = parse_dataset(ds, "qwen3", prefix_field="prompt", num_proc=4)

adds the columns ``message`` and ``error`` exactly as ``rtc parse --input`` writes them (see
``records``); with ``with_indices=True`` an error's ``line`` is the 1-based row number. The
function is picklable under fork and spawn: it names its parser (catalogue name or template
JSON) and each process imports or compiles it once, never receiving a module object.
"""

from __future__ import annotations

from typing import Any

from .parsers import RecordsFunction
from .records import ERROR, MESSAGE, parse_records


class DatasetParser(RecordsFunction):
    """A batched ``map`` function adding ``message`` and ``error`` (one per row, in order)."""

    def __call__(
        self, batch: dict[str, list[Any]], indices: list[int] | None = None
    ) -> dict[str, list[Any]]:
        size = len(next(iter(batch.values()))) if batch else 0
        records = self.fields.inputs(batch, size)
        lines = [i + 1 for i in indices] if indices is not None else [0] * size
        messages, errors = parse_records(self.parser.module(), self.fields, records, lines)
        return {MESSAGE: messages, ERROR: errors}

    def features(self, dataset: Any) -> Any:
        """``dataset``'s features plus ``message`` and ``error`` as JSON values.

        Messages of different records have different keys (a batch without tool calls has no
        ``tool_calls``), so Arrow structs inferred per batch disagree between the shards of a
        ``num_proc`` map; ``datasets.Json`` stores each value whole and gives it back as is.
        """
        from datasets import Features, Json

        return Features({**dataset.features, MESSAGE: Json(), ERROR: Json()})


def parse_dataset(
    dataset: Any, parser: Any, *, num_proc: int | None = None, batch_size: int = 1000, **fields: Any
) -> Any:
    """``dataset.map`` with a :class:`DatasetParser`: batched, with row numbers and features."""
    function = DatasetParser(parser, **fields)
    return dataset.map(
        function,
        batched=True,
        batch_size=batch_size,
        with_indices=True,
        num_proc=num_proc,
        features=function.features(dataset),
    )
