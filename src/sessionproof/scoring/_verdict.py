"""Session verdicts for generic criteria: state by gold replay (or gold actions as required
calls where the state cannot be replayed), facts, state assertions, expected and forbidden
calls. A session with no criterion that could be checked is not judged, never a pass."""

from __future__ import annotations

from typing import Any

from ..domains import Domain, DomainSpec
from ..errors import ToolError
from ..records import (
    Action,
    CriterionResult,
    ForbiddenAction,
    Outcome,
    Scenario,
    Session,
    ToolCall,
    ToolCallEvent,
)
from ..records._internal import Mismatch, TurnResult
from ._evidence import describe_all, missing_phrases, state_assertions, state_diff
from ._gold_calls import expected_calls_result, gold_calls_result


def normalise_text(text: str) -> str:
    """Lower-case with commas removed: how required facts are looked for in replies."""
    return text.lower().replace(",", "")


def _replay(
    scenario: Scenario, spec: DomainSpec, track: bool = False
) -> tuple[Domain[Any], list[str], list[int]]:
    """A fresh domain after the gold actions, the replay errors, and (with `track`) the
    indices of the gold actions a state comparison cannot judge: those that failed (a gold
    call that fails cannot be met), and every one of them when together they leave the state
    as it started (only reads: equal states then say nothing of what the session did)."""
    domain = spec.create()
    errors: list[str] = []
    failed: list[int] = []
    start = domain.state_hash() if track else ""
    for index, action in enumerate(scenario.criteria.gold_actions):
        try:
            domain.call(action.tool, dict(action.args))
        except ToolError as exc:
            errors.append(f"{action.tool}: {exc}")
            failed.append(index)
    if track and domain.state_hash() == start:
        return domain, errors, list(range(len(scenario.criteria.gold_actions)))
    return domain, errors, failed


def gold_state_hash(scenario: Scenario, spec: DomainSpec) -> tuple[str, list[str]]:
    """Hash of a fresh DB after replaying the gold actions, and any replay errors."""
    domain, errors, _ = _replay(scenario, spec)
    return domain.state_hash(), errors


def _db_result(final_domain: Domain[Any], gold: Domain[Any], errors: list[str]) -> CriterionResult:
    got, want = final_domain.state_hash(), gold.state_hash()
    evidence = f"final state {got[:12]} vs gold {want[:12]}"
    details: list[Mismatch] = []
    if got != want:
        final = final_domain.db.model_dump(mode="json")
        details, total = state_diff(final, gold.db.model_dump(mode="json"))
        if details:
            evidence += f"; {total} field(s) differ: " + describe_all(details, total)
    if errors:
        evidence += "; gold replay errors: " + "; ".join(errors)
    return CriterionResult(name="db", passed=got == want, evidence=evidence, details=details)


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


def _forbidden_hits(scenario: Scenario, session: Session, turn: int | None = None) -> list[str]:
    return [
        e.payload.name
        for e in session.events_of(ToolCallEvent)
        if turn is None or e.turn == turn
        for f in scenario.criteria.forbidden
        if _matches(e.payload, f, e.turn)
    ]


def _state_result(final_domain: Domain[Any], expected: dict[str, Any]) -> CriterionResult:
    wrong = state_assertions(final_domain.db.model_dump(mode="json"), expected)
    evidence = describe_all(wrong) if wrong else f"{len(expected)} state assertion(s) hold"
    return CriterionResult(name="state", passed=not wrong, evidence=evidence, details=wrong)


def _communicate_result(session: Session, facts: list[str]) -> CriterionResult:
    said = normalise_text("\n".join(session.agent_texts()))
    missing = [f for f in facts if normalise_text(f) not in said]
    return CriterionResult(
        name="communicate",
        passed=not missing,
        evidence="missing: " + ", ".join(missing) if missing else "all facts stated",
        details=missing_phrases(missing),
    )


def _prefix_calls(scenario: Scenario) -> list[ToolCall]:
    """The gold calls a gold prefix made before the session's first turn (none when the
    session starts at the first turn)."""
    start = scenario.start_turn or 0
    return [
        ToolCall(id=f"gold-{i}", name=a.tool, arguments=dict(a.args))
        for i, a in enumerate(scenario.criteria.gold_actions)
        if (a.turn or 0) < start
    ]


def _gold_results(
    scenario: Scenario,
    session: Session,
    final_domain: Domain[Any],
    spec: DomainSpec,
    reads_as_calls: bool,
) -> list[CriterionResult]:
    """The verdicts on the gold actions: the state replay where the domain has a DB (plus,
    with `reads_as_calls`, its failing gold calls as required calls, and all of them when
    they only read or when `compare_state` is off), else required calls."""
    criteria = scenario.criteria
    start = scenario.start_turn or 0
    # From a gold prefix the engine ran the earlier turns' gold actions: only the rest is
    # the agent's to make.
    mine = [i for i, a in enumerate(criteria.gold_actions) if (a.turn or 0) >= start]
    results: list[CriterionResult] = []
    if getattr(spec, "stateful", True):
        if not criteria.compare_state:
            # No state comparison wanted: the gold actions can only be required calls.
            mine = mine if reads_as_calls else []
        else:
            gold, errors, by_calls = _replay(scenario, spec, track=reads_as_calls)
            results.append(_db_result(final_domain, gold, errors))
            mine = [i for i in mine if i in by_calls] if reads_as_calls else []
    if not mine:
        return results
    actions = [criteria.gold_actions[i] for i in mine]
    results.append(gold_calls_result(session, actions, ordered=criteria.ordered, indices=mine))
    return results


def _turn_results(scenario: Scenario, session: Session, success: bool) -> list[TurnResult]:
    """Per-turn verdicts (`Criteria.per_turn`): from a gold prefix, the one turn played;
    else each scripted turn by its own gold actions, made in that turn, and no forbidden
    call in it."""
    criteria = scenario.criteria
    turns = scenario.user.turns or []
    if not criteria.per_turn or not turns:
        return []
    if scenario.start_turn is not None:
        evidence = "the session's verdict, from the gold prefix"
        start = scenario.start_turn
        return [TurnResult(turn=start, passed=success, gold_prefix=True, evidence=evidence)]
    out = []
    for turn in range(len(turns)):
        mine = [i for i, a in enumerate(criteria.gold_actions) if (a.turn or 0) == turn]
        actions: list[Action] = [criteria.gold_actions[i] for i in mine]
        calls = gold_calls_result(
            session, actions, ordered=criteria.ordered, turn=turn, indices=mine
        )
        hits = _forbidden_hits(scenario, session, turn)
        evidence = calls.evidence + (f"; forbidden calls: {', '.join(hits)}" if hits else "")
        passed = calls.passed is True and not hits
        out.append(TurnResult(turn=turn, passed=passed, evidence=evidence))
    return out


def evaluate_session(
    scenario: Scenario,
    session: Session,
    final_domain: Domain[Any],
    spec: DomainSpec,
    *,
    reads_as_calls: bool = False,
) -> Outcome:
    """Judge one session: every criterion with its evidence; success needs all to pass.

    Where `spec` has no DB (`stateful` False) the gold actions are required calls; with
    `reads_as_calls`, so are gold actions that fail, and all of them when together they leave
    the DB as it started (a state replay cannot tell then whether they were made) or when
    `compare_state` is off. No
    criterion to check, or `criteria.not_judged`: the
    outcome is not judged, with the reason.
    """
    criteria = scenario.criteria
    results = _gold_results(scenario, session, final_domain, spec, reads_as_calls)
    if criteria.communicate:
        results.append(_communicate_result(session, criteria.communicate))
    if criteria.state:
        results.append(_state_result(final_domain, criteria.state))
    if criteria.expected_calls:
        results.append(
            expected_calls_result(session, criteria.expected_calls, _prefix_calls(scenario))
        )
    if criteria.forbidden:
        hits = _forbidden_hits(scenario, session)
        results.append(
            CriterionResult(
                name="forbidden",
                passed=not hits,
                evidence="forbidden calls: " + ", ".join(hits) if hits else "none made",
            )
        )
    success = all(r.passed is True for r in results)
    turns = _turn_results(scenario, session, success)
    reason = criteria.not_judged
    if reason is None and not any(r.passed is not None for r in results):
        reason = (
            f"no criterion of scenario {scenario.id!r} can be checked on domain {scenario.domain!r}"
        )
    if reason is not None:
        return Outcome(success=False, reward=0.0, criteria=results, turns=turns, not_judged=reason)
    return Outcome(success=success, reward=1.0 if success else 0.0, criteria=results, turns=turns)
