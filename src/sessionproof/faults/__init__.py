"""Faults at the tool boundary: seeded fault plans and schema drift.

The error classes' semantics and the classifier live in `sessionproof.taxonomy`; arms
(faults, drift and the guard together) in `sessionproof.conditions`.

- `FaultPlan.parse("3%")`, `FaultInjector`: reproducible injected failures.
- `DriftPlan.parse("rename_param@2")`, `DriftHooks`: a changed API the domain still serves.
- `error_recovery(sessions)`: the error-recovery rate, overall and by class.
"""

from ._drift import DriftHooks, DriftPlan, choose_drift
from ._drift_kinds import DriftKind, ToolDrift
from ._plan import COMMITTED_CLASSES, DEFAULT_MIX, FaultInjector, FaultPlan
from ._recovery import ClassRecovery, RecoveryReport, error_recovery

__all__ = [
    "COMMITTED_CLASSES",
    "DEFAULT_MIX",
    "ClassRecovery",
    "DriftHooks",
    "DriftKind",
    "DriftPlan",
    "FaultInjector",
    "FaultPlan",
    "RecoveryReport",
    "ToolDrift",
    "choose_drift",
    "error_recovery",
]
