"""Reports: terminal (rich), JSON, and later HTML."""

from ._breakdowns import render_breakdowns
from ._format import pct, pct_range
from ._metrics import render_metric_definitions, render_metrics, sparkline
from ._terminal import render_definitions, render_summary, render_table, render_transcript
from ._turns import turns_table

__all__ = [
    "pct",
    "pct_range",
    "render_breakdowns",
    "render_definitions",
    "render_metric_definitions",
    "render_metrics",
    "render_summary",
    "render_table",
    "render_transcript",
    "sparkline",
    "turns_table",
]
