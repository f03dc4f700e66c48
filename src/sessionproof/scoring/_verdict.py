"""Session verdicts for generic criteria: state by gold replay, facts, forbidden calls."""

from __future__ import annotations

from typing import Any

from ..domains import Domain, DomainSpec
from ..errors import ToolError
from ..records import (
    CriterionResult,
    ForbiddenAction,
    Outcome,
    Scenario,
    Session,
    ToolCall,
)


def normalise_text(text: str) -> str:
    """Lower-case with commas removed: how required facts are looked for in replies."""
    return text.lower().replace(",", "")


def gold_state_hash(scenario: Scenario, spec: DomainSpec) -> tuple[str, list[str]]:
    """Hash of a fresh DB after replaying the gold actions, and any replay errors."""
    domain = spec.create()
    errors: list[str] = []
    for action in scenario.criteria.gold_actions:
        try:
            domain.call(action.tool, dict(action.args))
        except ToolError as exc:
            errors.append(f"{action.tool}: {exc}")
    return domain.state_hash(), errors


def _matches(call: ToolCall, forbidden: ForbiddenAction) -> bool:
    if call.name != forbidden.tool:
        return False
    if forbidden.args is None:
        return True
    args: dict[str, Any] = call.arguments or {}
    return all(args.get(k) == v for k, v in forbidden.args.items())


def evaluate_session(
    scenario: Scenario, session: Session, final_domain: Domain[Any], spec: DomainSpec
) -> Outcome:
    """Judge one session: every criterion with its evidence; success needs all to pass."""
    criteria = scenario.criteria
    results: list[CriterionResult] = []
    if criteria.compare_state:
        gold, errors = gold_state_hash(scenario, spec)
        got = final_domain.state_hash()
        evidence = f"final state {got[:12]} vs gold {gold[:12]}"
        if errors:
            evidence += "; gold replay errors: " + "; ".join(errors)
        results.append(CriterionResult(name="db", passed=got == gold, evidence=evidence))
    if criteria.communicate:
        said = normalise_text("\n".join(session.agent_texts()))
        missing = [f for f in criteria.communicate if normalise_text(f) not in said]
        results.append(
            CriterionResult(
                name="communicate",
                passed=not missing,
                evidence="missing: " + ", ".join(missing) if missing else "all facts stated",
            )
        )
    if criteria.forbidden:
        hits = [c.name for c in session.tool_calls() for f in criteria.forbidden if _matches(c, f)]
        results.append(
            CriterionResult(
                name="forbidden",
                passed=not hits,
                evidence="forbidden calls: " + ", ".join(hits) if hits else "none made",
            )
        )
    success = all(r.passed is True for r in results)
    return Outcome(success=success, reward=1.0 if success else 0.0, criteria=results)
