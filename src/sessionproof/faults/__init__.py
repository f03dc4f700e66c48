"""Faults at the tool boundary: seeded fault plans and schema drift, as tool-source wrappers.

Elsewhere: the error classes' semantics and the classifier in `sessionproof.taxonomy`; arms
(faults, drift and the guard together) in `sessionproof.conditions`; the error-recovery rate
in `sessionproof.scoring`.

- `FaultPlan.parse("3%")`, `FaultInjector`: reproducible injected failures.
- `DriftPlan.parse("rename_param@2")`, `DriftHooks`: a changed API the domain still serves.
- `ModelFaultPlan.parse("429x3:2%,bad_args:1%")`: faults at the model boundary (the agent's
  own provider requests), served by `sessionproof.agents`.
"""

from ._drift import DriftedSource, DriftPlan
from ._drift_kinds import DriftKind
from ._model_plan import ModelFaultPlan
from ._plan import FaultPlan, FaultySource

__all__ = [
    "DriftKind",
    "DriftPlan",
    "DriftedSource",
    "FaultPlan",
    "FaultySource",
    "ModelFaultPlan",
]
