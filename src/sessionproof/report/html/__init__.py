"""The HTML report: one self-contained page (inline CSS, SVG and script; a strict CSP).

`render_html(runs)` takes typed runs (`ReportRun`: metrics per arm, sessions, patterns) and
returns the page; `compare_sessions` pairs two runs' sessions for the comparison section and
`sessionproof compare`.
"""

from ._compare import Comparison, MetricDifference, compare_sessions
from ._data import Original, ReportRun, event_rows, session_record, verdict
from ._page import CSP, render_html
from ._svg import Series, bar_plot, grouped_bars, line_plot

__all__ = [
    "CSP",
    "Comparison",
    "MetricDifference",
    "Original",
    "ReportRun",
    "Series",
    "bar_plot",
    "compare_sessions",
    "event_rows",
    "grouped_bars",
    "line_plot",
    "render_html",
    "session_record",
    "verdict",
]
