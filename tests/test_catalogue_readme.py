"""README's catalogue table is the one ``tests/catalogue_readme.py`` renders from the data now."""

from __future__ import annotations

import pytest
from catalogue_readme import README, ROUND_TRIP_CASES, current_table, render_table

pytestmark = pytest.mark.core


def test_readme_catalogue_table_is_current() -> None:
    readme = README.read_text(encoding="utf-8")
    assert (
        current_table(readme) == render_table()
    ), "README's catalogue table is stale: run `python tests/catalogue_readme.py`"


def test_table_counts_every_round_trip_case() -> None:
    from test_round_trip import CASES

    assert ROUND_TRIP_CASES == len(CASES)
