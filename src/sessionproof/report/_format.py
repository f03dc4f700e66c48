"""How numbers read in every report: the one percentage format."""

from __future__ import annotations


def pct(x: float | None) -> str:
    """A share as a percentage with one decimal ("73.3%"), or "n/a" when there is none."""
    return "n/a" if x is None else f"{x:.1%}"


def pct_range(low: float, high: float) -> str:
    """An interval of shares, e.g. a 95% CI ("61.2%–83.0%")."""
    return f"{pct(low)}–{pct(high)}"
