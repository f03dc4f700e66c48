"""A BFCL question's expected calls, for the session call metrics (`scoring.match_gold`).

Registered in `sessionproof.scoring` as the call rules "bfcl", which BFCL scenarios name in
`Criteria.call_rules`; imported only for such scenarios, so generic scoring never imports this
suite.
"""

from __future__ import annotations

from typing import Any

from ...records import Scenario
from ...scoring import ArgumentCheck
from ._data import BfclQuestion, UnjudgeableQuestion, compile_question
from ._rules import CallRule

CALL_RULES = "bfcl"
"""The name BFCL scenarios give in `Criteria.call_rules` (registered in `sessionproof.scoring`)."""


def _check(rule: CallRule, name: str) -> ArgumentCheck:
    def fits(arguments: dict[str, Any]) -> bool:
        return rule.check(name, arguments) is None

    return fits


def expected_calls(scenario: Scenario) -> list[tuple[str, ArgumentCheck]] | None:
    """Per expected call: the tool name the agent sees, and whether arguments satisfy BFCL's
    rules (acceptable-value lists, "" = may be omitted...). None when the scenario is no BFCL
    question; an empty list when its answer cannot be judged."""
    meta = scenario.metadata.get("bfcl")
    if not (isinstance(meta, dict) and isinstance(meta.get("functions"), list)):
        return None
    question = BfclQuestion(
        id=str(meta.get("id", scenario.id)),
        category=str(meta.get("category", "")),
        messages=[],
        functions=meta["functions"],
        ground_truth=meta.get("ground_truth"),
    )
    try:
        rules = compile_question(question).calls
    except UnjudgeableQuestion:
        rules = []
    # The agent sees safe tool names; BFCL's rules speak the question's own names.
    names = {str(k): str(v) for k, v in (meta.get("tool_names") or {}).items()}
    to_safe = {v: k for k, v in names.items()}
    expected = []
    for rule in rules:
        safe = to_safe.get(rule.name, rule.name)
        expected.append((safe, _check(rule, names.get(safe, safe))))
    return expected
