"""Session verdicts for generic criteria: state by gold replay, facts, forbidden calls."""

from __future__ import annotations

from typing import Any

from ..domains import Domain, DomainSpec
from ..errors import ToolError
from ..records import (
    CriterionResult,
    ExpectedCall,
    ForbiddenAction,
    Outcome,
    Scenario,
    Session,
    ToolCall,
    ToolCallEvent,
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


def _matches(call: ToolCall, forbidden: ForbiddenAction, turn: int | None = None) -> bool:
    # `turn`: the user turn the call was made in (None when unknown: then any turn matches).
    if call.name != forbidden.tool:
        return False
    if forbidden.turn is not None and turn is not None and turn != forbidden.turn:
        return False
    if forbidden.args is None:
        return True
    args: dict[str, Any] = call.arguments or {}
    return all(args.get(k) == v for k, v in forbidden.args.items())


_MISSING = object()


def state_at(state: Any, path: str) -> Any:
    """The value at a dotted `path` (`orders.O1.status`, `items.0.sku`) in JSON-like data,
    or a sentinel that equals nothing when the path does not exist."""
    value = state
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif (
            isinstance(value, list)
            and part.lstrip("-").isdigit()
            and -len(value) <= int(part) < len(value)
        ):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def _state_result(final_domain: Domain[Any], expected: dict[str, Any]) -> CriterionResult:
    state = final_domain.db.model_dump(mode="json")
    wrong = []
    for path, want in expected.items():
        got = state_at(state, path)
        if got is _MISSING:
            wrong.append(f"{path}: no such path (want {want!r})")
        elif got != want:
            wrong.append(f"{path}: {got!r} != {want!r}")
    evidence = "; ".join(wrong) if wrong else f"{len(expected)} state assertion(s) hold"
    return CriterionResult(name="state", passed=not wrong, evidence=evidence)


def call_matches(call: ToolCall, expected: ExpectedCall) -> bool:
    """True when `call` names the expected tool with an acceptable value for each argument."""
    if call.name != expected.tool or call.arguments is None:
        return False
    for name, acceptable in expected.args.items():
        if name not in call.arguments:
            if None not in acceptable:
                return False
        elif call.arguments[name] not in acceptable:
            return False
    return True


def _expected_result(session: Session, expected: list[ExpectedCall]) -> CriterionResult:
    # Only calls that succeeded count: a call that met a fault did not do its work.
    ok = {r.call_id for r in session.tool_results() if r.ok}
    calls = [c for c in session.tool_calls() if c.id in ok]
    missing = [e.tool for e in expected if not any(call_matches(c, e) for c in calls)]
    return CriterionResult(
        name="expected_calls",
        passed=not missing,
        evidence="no matching successful call for: " + ", ".join(missing)
        if missing
        else f"all {len(expected)} expected call(s) made",
    )


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
    if criteria.state:
        results.append(_state_result(final_domain, criteria.state))
    if criteria.expected_calls:
        results.append(_expected_result(session, criteria.expected_calls))
    if criteria.forbidden:
        hits = [
            e.payload.name
            for e in session.events_of(ToolCallEvent)
            for f in criteria.forbidden
            if _matches(e.payload, f, e.turn)
        ]
        results.append(
            CriterionResult(
                name="forbidden",
                passed=not hits,
                evidence="forbidden calls: " + ", ".join(hits) if hits else "none made",
            )
        )
    success = all(r.passed is True for r in results)
    return Outcome(success=success, reward=1.0 if success else 0.0, criteria=results)
