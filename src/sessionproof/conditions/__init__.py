"""Conditions (arms): the arm grammar, and the wrappers a session runs under.

- `parse_arm("faults=3% guard")`: an arm spec string as a `Condition`.
- `hooks_for(condition, seed)`: the engine's `SessionHooks` for one session under it
  (faults innermost, then drift, then the guard; a perturbation rewrites the scenario's user
  side and criteria before the session starts).
"""

from ._condition import Condition, parse_arm
from ._perturb import PerturbKind, PerturbPlan, perturb

__all__ = [
    "Condition",
    "PerturbKind",
    "PerturbPlan",
    "parse_arm",
    "perturb",
]
