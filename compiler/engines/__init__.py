"""Serving-engine plugins: rtc's parsers inside vLLM and SGLang, chosen for the served model.

``family`` (which parser a served model gets: ``rtc`` or ``rtc-<family>``), ``deltas`` (what
every plugin does with a ``DeltaStream``: one delta per engine call, the engine's call ids, the
length limit), then one adapter per engine: ``vllm_plugin`` (the ``vllm.general_plugins`` entry
point) with ``vllm_parsers``, and ``sglang_plugin`` (the ``sglang.srt.plugins`` entry point).
The engine modules import their engine; nothing here is imported by ``rtc.runtime`` or a
generated parser.
"""
