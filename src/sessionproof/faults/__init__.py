"""Faults at the tool boundary: seeded fault plans and schema drift, as tool-source wrappers.

Elsewhere: the error classes' semantics and the classifier in `sessionproof.taxonomy`; arms
(faults, drift and the guard together) in `sessionproof.conditions`; the error-recovery rate
in `sessionproof.scoring`.

- `FaultPlan.parse("3%")`, `FaultInjector`: reproducible injected failures.
- `DriftPlan.parse("rename_param@2")`, `DriftHooks`: a changed API the domain still serves.
"""

from ._drift import DriftedSource, DriftHooks, DriftPlan, choose_drift
from ._drift_kinds import DriftKind, ToolDrift
from ._plan import COMMITTED_CLASSES, DEFAULT_MIX, FaultInjector, FaultPlan, FaultySource

__all__ = [
    "COMMITTED_CLASSES",
    "DEFAULT_MIX",
    "DriftHooks",
    "DriftKind",
    "DriftPlan",
    "DriftedSource",
    "FaultInjector",
    "FaultPlan",
    "FaultySource",
    "ToolDrift",
    "choose_drift",
]
