"""Serving-engine plugins: rtc's parsers inside vLLM and SGLang, chosen for the served model.

``family`` (which parser a served model gets: ``rtc`` or ``rtc-<family>``), ``deltas`` (what an
engine adapter does with a ``DeltaStream``: one delta per engine call, the engine's call ids, the
length limit; nothing engine-specific, so that another engine's adapter reuses it), ``interface``
(whether the running engine is the release a plugin was written for); then vLLM's:
``vllm_plugin`` (the ``vllm.general_plugins`` entry point) with ``vllm_parsers`` (vLLM's parser
objects) and ``vllm_compare`` (rtc beside vLLM's own parsers: messages and CPU time); and
SGLang's: ``sglang_plugin`` (the ``sglang.srt.plugins`` entry point) with ``sglang_parsers``
(SGLang's detectors). The vLLM and SGLang modules import their engine; nothing here is imported
by ``rtc.runtime`` or a generated parser.
"""
