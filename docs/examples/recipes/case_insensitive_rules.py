"""Recipe: call-matching rules, deciding which agent calls count as a scenario's expected calls.

By default an agent call matches a gold action when the tool and the arguments are equal after
JSON normalisation. A scenario that names a rule set in `criteria.call_rules` is matched by
that set instead: a function that takes the scenario and returns, for each expected call, the
tool name and a check of a call's arguments. Single-call accuracy, call checks and the
report's gold-against-made view all use it.
"""

from __future__ import annotations

from typing import Any

from sessionproof.records import Scenario
from sessionproof.scoring import ArgumentCheck, register_call_rules


def _folded(value: Any) -> Any:
    return value.casefold().strip() if isinstance(value, str) else value


def expected_calls(scenario: Scenario) -> list[tuple[str, ArgumentCheck]]:
    """Each gold action, its string arguments compared without regard to case or spaces."""
    rules: list[tuple[str, ArgumentCheck]] = []
    for action in scenario.criteria.gold_actions:
        wanted = {k: _folded(v) for k, v in action.args.items()}

        def check(args: dict[str, Any], wanted: dict[str, Any] = wanted) -> bool:
            return {k: _folded(v) for k, v in args.items()} == wanted

        rules.append((action.tool, check))
    return rules


# Scenarios opt in with `criteria: {call_rules: case-insensitive, ...}`.
register_call_rules("case-insensitive", "case_insensitive_rules:expected_calls")
