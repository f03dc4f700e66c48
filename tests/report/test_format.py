"""The one percentage format every report and CLI table uses."""

from __future__ import annotations

from sessionproof.report._internal import pct, pct_range


def test_shares_read_as_percentages_with_one_decimal() -> None:
    assert pct(None) == "n/a"
    assert pct(2 / 3) == "66.7%" and pct(0.0) == "0.0%" and pct(1.0) == "100.0%"
    assert pct_range(0.25, 0.5) == "25.0%–50.0%"
