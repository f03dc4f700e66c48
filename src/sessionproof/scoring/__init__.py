"""Scoring: session verdicts, call matching, error recovery, metrics and statistics."""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._arms import ArmsReport, compare_arms
    from ._builtin_metrics import ALL_METRIC_DEFINITIONS
    from ._calls import ArgumentCheck, register_call_rules
    from ._metric import (
        Aggregate,
        CallMetric,
        Metric,
        MetricValue,
        Placement,
        SessionInput,
        SessionMetric,
        mean_aggregate,
        metric,
        rate_aggregate,
        register_metric,
    )
    from ._metrics import MetricsReport, run_metrics
    from ._summary import RunSummary, summarize, verdict_of
    from ._verdict import evaluate_session


# Imported on first use (PEP 562): judging a session needs neither the arms, the metrics
# nor the engine, and `scoring.stats` alone needs none of them.
_MODULE_OF: dict[str, str] = {
    "ALL_METRIC_DEFINITIONS": "._builtin_metrics",
    "Aggregate": "._metric",
    "ArgumentCheck": "._calls",
    "ArmsReport": "._arms",
    "CallMetric": "._metric",
    "Metric": "._metric",
    "MetricValue": "._metric",
    "MetricsReport": "._metrics",
    "Placement": "._metric",
    "RunSummary": "._summary",
    "SessionInput": "._metric",
    "SessionMetric": "._metric",
    "compare_arms": "._arms",
    "evaluate_session": "._verdict",
    "mean_aggregate": "._metric",
    "metric": "._metric",
    "rate_aggregate": "._metric",
    "register_call_rules": "._calls",
    "register_metric": "._metric",
    "run_metrics": "._metrics",
    "summarize": "._summary",
    "verdict_of": "._summary",
}
__all__ = [
    "ALL_METRIC_DEFINITIONS",
    "Aggregate",
    "ArgumentCheck",
    "ArmsReport",
    "CallMetric",
    "Metric",
    "MetricValue",
    "MetricsReport",
    "Placement",
    "RunSummary",
    "SessionInput",
    "SessionMetric",
    "compare_arms",
    "evaluate_session",
    "mean_aggregate",
    "metric",
    "rate_aggregate",
    "register_call_rules",
    "register_metric",
    "run_metrics",
    "summarize",
    "verdict_of",
]

__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF, submodules=True)
