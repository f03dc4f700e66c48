"""Conditions (arms): the arm grammar, and the wrappers a session runs under.

- `parse_arm("faults=3% guard")`: an arm spec string as a `Condition`.
- `hooks_for(condition, seed)`: the engine's `SessionHooks` for one session under it
  (faults innermost, then drift, then the guard).
"""

from ._condition import SECONDS_PER_CALL, Condition, ConditionHooks, hooks_for, parse_arm

__all__ = ["SECONDS_PER_CALL", "Condition", "ConditionHooks", "hooks_for", "parse_arm"]
