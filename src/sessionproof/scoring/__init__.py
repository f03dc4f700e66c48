"""Scoring: session verdicts, call matching, error recovery, metrics and statistics."""

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
from ._summary import METRIC_DEFINITIONS, RunSummary, summarize
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
    "gold_state_hash",
    "invented_facts",
    "made_once",
    "match_gold",
    "maximum_matching",
    "normalise_text",
    "rate_cell",
    "rate_table",
    "register_call_rules",
    "run_metrics",
    "session_survival",
    "state_diff",
    "success_by_need",
    "summarize",
    "survival_curve",
    "survival_report",
    "survival_skip_reason",
    "turn_report",
    "with_termination",
]
