"""The judge judged: the recorder in reference.py compares what it must and terminates."""

from __future__ import annotations

import sys

import pytest
import regex
from reference import Step, canon, diff_steps, exc_name, time_limit

pytestmark = pytest.mark.core


def test_canon_tells_types_apart_and_equates_nan() -> None:
    assert len({canon(1), canon(1.0), canon(True), canon("1")}) == 4
    assert canon(float("nan")) == canon(float("nan"))
    assert canon(0.0) != canon(-0.0)
    assert canon({"a": 1, "b": 2}) != canon({"b": 2, "a": 1})  # key order is observable


def test_canon_records_aliasing() -> None:
    shared: dict = {"n": 1}
    assert canon([shared, shared]) != canon([{"n": 1}, {"n": 1}])
    assert canon([shared, shared], aliases=False) == canon([{"n": 1}, {"n": 1}], aliases=False)


def test_canon_walks_values_deeper_than_the_recursion_limit() -> None:
    # CPython 3.13's json parses 3,000 levels: results that deep must be recorded, not crash.
    depth = sys.getrecursionlimit() * 3
    value: list = []
    inner = value
    for _ in range(depth):
        inner.append({"k": []})
        inner = inner[0]["k"]
    node, levels = canon(value), 0
    while node != ("list", ()):
        kind, ((mapping, ((key, node),)),) = node
        assert (kind, mapping, key) == ("list", "dict", ("str", "k"))
        levels += 1
    assert levels == depth


def test_exc_name_spells_regex_errors() -> None:
    try:
        regex.compile("(")
    except regex.error as exc:
        assert exc_name(exc) == "regex.error"
    assert exc_name(KeyError("x")) == "KeyError"


def test_time_limit_stops_a_loop() -> None:
    try:
        with time_limit(0.05):
            while True:
                pass
    except BaseException as exc:  # noqa: BLE001 - the private timeout class
        assert type(exc).__name__ == "_Timeout"


def test_diff_steps_on_hangs() -> None:
    hang = [Step("init", result=canon([])), Step("feed#0", hang=True)]
    returned = [Step("init", result=canon([])), Step("feed#0", result=canon([]))]
    raised = [Step("init", result=canon([])), Step("feed#0", error="LoopError", value_error=True)]
    wrong = [Step("init", result=canon([])), Step("feed#0", error="KeyError")]
    assert diff_steps(hang, returned) is None
    assert diff_steps(hang, raised) is None
    assert diff_steps(hang, wrong) is not None
    assert diff_steps(returned, hang) is not None
    assert diff_steps(returned, raised) is not None
