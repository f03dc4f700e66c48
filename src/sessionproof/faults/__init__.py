"""Faults at the tool boundary: the error taxonomy, seeded fault plans, schema drift, arms.

- `TAXONOMY` / `semantics` / `may_replay`: what each error class means (retry, inform,
  escalate) and when a failed write may be re-sent; `classify` maps exceptions, HTTP statuses
  and error payloads to a class.
- `FaultPlan.parse("3%")`, `FaultInjector`: reproducible injected failures.
- `DriftPlan.parse("rename_param@2")`, `DriftHooks`: a changed API the domain still serves.
- `parse_arm("faults=3% guard")`, `hooks_for(condition, seed)`: an arm as engine hooks.
- `error_recovery(sessions)`: the error-recovery rate, overall and by class.
"""

from ._classify import (
    classify,
    classify_exception,
    classify_payload,
    classify_status,
    classify_text,
    retry_after_s,
)
from ._condition import SECONDS_PER_CALL, Condition, ConditionHooks, hooks_for, parse_arm
from ._drift import DriftHooks, DriftPlan, choose_drift
from ._drift_kinds import DriftKind, ToolDrift
from ._plan import COMMITTED_CLASSES, DEFAULT_MIX, FaultInjector, FaultPlan
from ._recovery import ClassRecovery, RecoveryReport, error_recovery
from ._taxonomy import (
    DEFAULT_RETRY_AFTER_S,
    TAXONOMY,
    ClassSemantics,
    ErrorAction,
    fault_message,
    may_replay,
    semantics,
)

__all__ = [
    "COMMITTED_CLASSES",
    "DEFAULT_MIX",
    "DEFAULT_RETRY_AFTER_S",
    "SECONDS_PER_CALL",
    "TAXONOMY",
    "ClassRecovery",
    "ClassSemantics",
    "Condition",
    "ConditionHooks",
    "DriftHooks",
    "DriftKind",
    "DriftPlan",
    "ErrorAction",
    "FaultInjector",
    "FaultPlan",
    "RecoveryReport",
    "ToolDrift",
    "choose_drift",
    "classify",
    "classify_exception",
    "classify_payload",
    "classify_status",
    "classify_text",
    "error_recovery",
    "fault_message",
    "hooks_for",
    "may_replay",
    "parse_arm",
    "retry_after_s",
    "semantics",
]
