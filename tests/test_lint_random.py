"""The lint on random templates (tests/strategies.py): it never fails, it is deterministic,
and every example it reports gives the recorded result when run again.

Fixed seed in CI; explore with ``RTC_DIFF_SEED=N RTC_LINT_EXAMPLES=500``.
"""

from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from lint_helpers import assert_reproduced
from strategies import template_plans

from rtc.compiler import TemplateError, TemplateTypeError, validate
from rtc.compiler.lint import CODES, SEVERITIES, lint

EXAMPLES = int(os.environ.get("RTC_LINT_EXAMPLES", "60"))
SEED = os.environ.get("RTC_DIFF_SEED")
CONFIGURED = settings(
    max_examples=EXAMPLES,
    derandomize=SEED is None,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=list(HealthCheck),
)


def _seeded(test):  # noqa: ANN001, ANN202 -- a decorator
    return seed(int(SEED))(test) if SEED is not None else test


@_seeded
@CONFIGURED
@given(data=st.data())
def test_lint_on_random_templates(data: st.DataObject) -> None:
    template = data.draw(template_plans(), label="plan").template
    try:
        validate(template)
    except (TemplateError, TemplateTypeError, RecursionError):
        return  # rtc lint reports these as unusable input, like rtc compile
    found = lint(template)
    assert [f.to_json() for f in lint(json.loads(json.dumps(template)))] == [
        f.to_json() for f in found
    ]
    for finding in found:
        assert finding.code in CODES and finding.severity in SEVERITIES
        assert finding.path and finding.message
        json.dumps(finding.to_json())
        assert_reproduced(template, finding)
