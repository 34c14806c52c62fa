"""Offline parsing at scale: files, HF datasets, Ray Data and transformers tokenizers.

One module per concern, each importing its optional dependency (pyarrow, datasets, ray,
transformers) only when called, so ``import rtc.compiler.offline`` costs nothing extra:

- ``parsers``: which parser to use, named by catalogue name or template (picklable);
- ``records``: one record in, one output record out (message or error, never lost);
- ``formats``: JSONL and Parquet readers and writers, streamed in batches, written atomically;
- ``files``: the ``rtc parse --input`` job (workers, progress, summary, interruption);
- ``hf_datasets``: a function for ``datasets.Dataset.map(batched=True, num_proc=N)``;
- ``ray_data``: a function for ``ray.data.Dataset.map_batches`` and the ``--ray`` file job;
- ``hf_tokenizers``: compiled parsers for transformers tokenizers, and patching them.
"""
