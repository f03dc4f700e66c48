"""Scoring: session verdicts, call matching, error recovery, metrics and statistics."""

import importlib
from typing import TYPE_CHECKING, Any

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ..engine import with_termination
    from ._arms import ARM_DEFINITIONS, ArmReport, ArmsReport, PairedRow, compare_arms
    from ._attribution import (
        ATTRIBUTION_DEFINITIONS,
        Attribution,
        AttributionReport,
        FailureSource,
        attribute_failure,
        attribute_failures,
        invented_facts,
    )
    from ._breakdowns import Breakdown, Breakdowns, RateCell, rate_cell, rate_table
    from ._calls import (
        CALL_DEFINITIONS,
        ArgumentCheck,
        CallAccuracy,
        CallCheck,
        CallValidators,
        call_accuracy,
        call_rule_names,
        check_calls,
        match_gold,
        register_call_rules,
    )
    from ._evidence import MAX_DETAILS, state_diff
    from ._matching import maximum_matching
    from ._metrics import (
        ALL_METRIC_DEFINITIONS,
        MetricsReport,
        NeedBucket,
        SurvivalPoint,
        SurvivalReport,
        run_metrics,
        success_by_need,
        survival_curve,
        survival_report,
        survival_skip_reason,
    )
    from ._recovery import ClassRecovery, RecoveryReport, error_recovery
    from ._summary import (
        METRIC_DEFINITIONS,
        RunSummary,
        first_summary,
        not_judged_reason,
        summaries_by_arm,
        summarize,
        verdict_label,
        verdict_of,
    )
    from ._survival import (
        ON_PATH_FAILURE,
        SURVIVAL_DEFINITIONS,
        DivergenceClass,
        FirstDivergence,
        SessionSurvival,
        session_survival,
    )
    from ._trace import GoldReplays, TraceCache, made_once
    from ._turns import TURN_DEFINITIONS, TurnPoint, TurnReport, turn_report
    from ._verdict import evaluate_session, gold_state_hash, normalise_text
    from ._warm import MetricsWarmer

# Imported on first use (PEP 562): judging a session needs neither the arms, the metrics
# nor the engine, and `scoring.stats` alone needs none of them.
_MODULE_OF: dict[str, str] = {
    "ALL_METRIC_DEFINITIONS": "._metrics",
    "ARM_DEFINITIONS": "._arms",
    "ATTRIBUTION_DEFINITIONS": "._attribution",
    "ArgumentCheck": "._calls",
    "ArmReport": "._arms",
    "ArmsReport": "._arms",
    "Attribution": "._attribution",
    "AttributionReport": "._attribution",
    "Breakdown": "._breakdowns",
    "Breakdowns": "._breakdowns",
    "CALL_DEFINITIONS": "._calls",
    "CallAccuracy": "._calls",
    "CallCheck": "._calls",
    "CallValidators": "._calls",
    "ClassRecovery": "._recovery",
    "DivergenceClass": "._survival",
    "FailureSource": "._attribution",
    "FirstDivergence": "._survival",
    "GoldReplays": "._trace",
    "MAX_DETAILS": "._evidence",
    "METRIC_DEFINITIONS": "._summary",
    "MetricsReport": "._metrics",
    "MetricsWarmer": "._warm",
    "NeedBucket": "._metrics",
    "ON_PATH_FAILURE": "._survival",
    "PairedRow": "._arms",
    "RateCell": "._breakdowns",
    "RecoveryReport": "._recovery",
    "RunSummary": "._summary",
    "SURVIVAL_DEFINITIONS": "._survival",
    "SessionSurvival": "._survival",
    "SurvivalPoint": "._metrics",
    "SurvivalReport": "._metrics",
    "TURN_DEFINITIONS": "._turns",
    "TraceCache": "._trace",
    "TurnPoint": "._turns",
    "TurnReport": "._turns",
    "attribute_failure": "._attribution",
    "attribute_failures": "._attribution",
    "call_accuracy": "._calls",
    "call_rule_names": "._calls",
    "check_calls": "._calls",
    "compare_arms": "._arms",
    "error_recovery": "._recovery",
    "evaluate_session": "._verdict",
    "first_summary": "._summary",
    "gold_state_hash": "._verdict",
    "invented_facts": "._attribution",
    "made_once": "._trace",
    "match_gold": "._calls",
    "maximum_matching": "._matching",
    "normalise_text": "._verdict",
    "not_judged_reason": "._summary",
    "rate_cell": "._breakdowns",
    "rate_table": "._breakdowns",
    "register_call_rules": "._calls",
    "run_metrics": "._metrics",
    "session_survival": "._survival",
    "state_diff": "._evidence",
    "success_by_need": "._metrics",
    "summaries_by_arm": "._summary",
    "summarize": "._summary",
    "survival_curve": "._metrics",
    "survival_report": "._metrics",
    "survival_skip_reason": "._metrics",
    "turn_report": "._turns",
    "verdict_label": "._summary",
    "verdict_of": "._summary",
    "with_termination": "..engine",
}
__all__ = [
    "ALL_METRIC_DEFINITIONS",
    "ARM_DEFINITIONS",
    "ATTRIBUTION_DEFINITIONS",
    "CALL_DEFINITIONS",
    "MAX_DETAILS",
    "METRIC_DEFINITIONS",
    "ON_PATH_FAILURE",
    "SURVIVAL_DEFINITIONS",
    "TURN_DEFINITIONS",
    "ArgumentCheck",
    "ArmReport",
    "ArmsReport",
    "Attribution",
    "AttributionReport",
    "Breakdown",
    "Breakdowns",
    "CallAccuracy",
    "CallCheck",
    "CallValidators",
    "ClassRecovery",
    "DivergenceClass",
    "FailureSource",
    "FirstDivergence",
    "GoldReplays",
    "MetricsReport",
    "MetricsWarmer",
    "NeedBucket",
    "PairedRow",
    "RateCell",
    "RecoveryReport",
    "RunSummary",
    "SessionSurvival",
    "SurvivalPoint",
    "SurvivalReport",
    "TraceCache",
    "TurnPoint",
    "TurnReport",
    "attribute_failure",
    "attribute_failures",
    "call_accuracy",
    "call_rule_names",
    "check_calls",
    "compare_arms",
    "error_recovery",
    "evaluate_session",
    "first_summary",
    "gold_state_hash",
    "invented_facts",
    "made_once",
    "match_gold",
    "maximum_matching",
    "normalise_text",
    "not_judged_reason",
    "rate_cell",
    "rate_table",
    "register_call_rules",
    "run_metrics",
    "session_survival",
    "state_diff",
    "success_by_need",
    "summaries_by_arm",
    "summarize",
    "survival_curve",
    "survival_report",
    "survival_skip_reason",
    "turn_report",
    "verdict_label",
    "verdict_of",
    "with_termination",
]

_exported, __dir__ = lazy_exports(__name__, _MODULE_OF)


def __getattr__(name: str) -> Any:
    """An exported name, or a submodule (`_x`), imported on first use."""
    if name.startswith("_") and not name.startswith("__"):
        try:
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    return _exported(name)
