"""Offline parsing at scale: files, HF datasets, Ray Data and transformers tokenizers.

One module per concern, each importing its optional dependency (pyarrow, datasets, ray,
transformers) only when called, so ``import rtc.compiler.offline`` costs nothing extra:

- ``parsers``: which parser to use, named by catalogue name or template (picklable);
- ``records``: one record in, one output record out (message or error, never lost);
- ``jsonl``, ``parquet``, ``tables``, ``output``: reading in batches, decoding, Arrow tables,
  writing to temporary files renamed into place once complete;
- ``batches``: one batch from what was read to what is written (where it is parsed);
- ``files``: the ``rtc parse --input`` job (workers, progress, summary); ``interrupts``: its
  clean stop on Ctrl-C or SIGTERM;
- ``command``: the job as the CLI describes it (``--ray`` included);
- ``corpus``: synthetic tool-calling generations for tests and ``rtc bench --batch``;
- ``hf_datasets``: a function for ``datasets.Dataset.map(batched=True, num_proc=N)``;
- ``ray_data``: a function for ``ray.data.Dataset.map_batches`` and the ``--ray`` file job;
- ``hf_tokenizers``: compiled parsers for transformers tokenizers, and patching them.
"""
