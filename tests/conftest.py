"""Shared fixtures: the reference (transformers 5.23.0) and the rtc compiler, as engines."""

from __future__ import annotations

import pytest
from reference import Reference, Rtc, rtc_load


@pytest.fixture(scope="session")
def ref() -> Reference:
    """The reference; its tests are skipped where transformers (a test extra) is missing."""
    pytest.importorskip("transformers.utils.chat_parsing")
    return Reference()


@pytest.fixture(scope="session")
def rtc() -> Rtc:
    compile_ = rtc_load()
    if compile_ is None:
        pytest.fail("rtc.compiler.load is missing")
    return Rtc(compile_)
