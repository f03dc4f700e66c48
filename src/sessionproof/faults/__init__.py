"""Faults at the tool boundary: seeded fault plans, schema drift, arms.

The error classes' semantics and the classifier live in `sessionproof.taxonomy`.

- `FaultPlan.parse("3%")`, `FaultInjector`: reproducible injected failures.
- `DriftPlan.parse("rename_param@2")`, `DriftHooks`: a changed API the domain still serves.
- `parse_arm("faults=3% guard")`, `hooks_for(condition, seed)`: an arm as engine hooks.
- `error_recovery(sessions)`: the error-recovery rate, overall and by class.
"""

from ._condition import SECONDS_PER_CALL, Condition, ConditionHooks, hooks_for, parse_arm
from ._drift import DriftHooks, DriftPlan, choose_drift
from ._drift_kinds import DriftKind, ToolDrift
from ._plan import COMMITTED_CLASSES, DEFAULT_MIX, FaultInjector, FaultPlan
from ._recovery import ClassRecovery, RecoveryReport, error_recovery

__all__ = [
    "COMMITTED_CLASSES",
    "DEFAULT_MIX",
    "SECONDS_PER_CALL",
    "ClassRecovery",
    "Condition",
    "ConditionHooks",
    "DriftHooks",
    "DriftKind",
    "DriftPlan",
    "FaultInjector",
    "FaultPlan",
    "RecoveryReport",
    "ToolDrift",
    "choose_drift",
    "error_recovery",
    "hooks_for",
    "parse_arm",
]
