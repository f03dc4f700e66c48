"""Conditions (arms): the arm grammar, and the wrappers a session runs under.

- `parse_arm("faults=3% guard")`: an arm spec string as a `Condition`.
- `hooks_for(condition, seed)`: the engine's `SessionHooks` for one session under it
  (faults innermost, then drift, then the guard; a perturbation rewrites the scenario's user
  side and criteria before the session starts).
"""

from ._answering import AnsweringUser, asked
from ._condition import SECONDS_PER_CALL, Condition, ConditionHooks, hooks_for, parse_arm
from ._perturb import PERTURB_KINDS, PerturbedScenario, PerturbKind, PerturbPlan, perturb

__all__ = [
    "PERTURB_KINDS",
    "SECONDS_PER_CALL",
    "AnsweringUser",
    "Condition",
    "ConditionHooks",
    "PerturbKind",
    "PerturbPlan",
    "PerturbedScenario",
    "asked",
    "hooks_for",
    "parse_arm",
    "perturb",
]
