"""tau2's reward for a telecom session: both sides' state, the environment assertions on
the phone (and on the carrier's side), and the other components of the task's basis.

As tau2's environment evaluator: the gold world is the task's set-up followed by every
reference action (the agent's and the user's, in order, with no sync between them, as tau2
replays them); the session's world is its final one (or, offline, the set-up followed by
the recorded writes of both sides). DB holds when both the carrier's database and the
phone equal the gold ones. Each assertion runs on the session's world and must return the
bool the task expects. ACTION matches the reference actions against every call of the
session, the agent's and the user's.
"""

from __future__ import annotations

from typing import Any

from ....records import CriterionResult, Outcome, Scenario, Session, ToolCall, ToolCallEvent
from ....records._internal import UserToolCallEvent
from ..._judges import Judgement
from ..._nl_judge import NLJudge
from .._evaluate import STOPPED, _nl, _said, _termination, actions_made, rewarded
from .._tau2task import Tau2Task
from ._env import TelecomDomain, TelecomSpec
from ._files import telecom_files


def spec_for(scenario: Scenario) -> TelecomSpec:
    """The world a telecom scenario starts from: its data source and its set-up steps."""
    task = scenario.metadata.get("tau2_task") or {}
    folder = scenario.metadata.get("tau2_data")
    files = telecom_files(folder if isinstance(folder, str) else None)
    state = task.get("initial_state") or {}
    return TelecomSpec(files, state.get("initialization_actions") or [])


def _calls(session: Session) -> list[tuple[str, ToolCall]]:
    """Both sides' calls in the order they were made, each with its side."""
    out: list[tuple[str, ToolCall]] = []
    for event in session.events:
        if isinstance(event, ToolCallEvent):
            out.append(("assistant", event.payload))
        elif isinstance(event, UserToolCallEvent):
            out.append(("user", event.payload))
    return out


def replay_session(spec: TelecomSpec, session: Session) -> TelecomDomain:
    """The session's final world rebuilt from its recorded calls: each write of either
    side run again (reads change nothing), a sync after each that succeeds."""
    world = spec.create()
    for side, call in _calls(session):
        if call.arguments is not None and world.is_write(side, call.name):
            world.run_call(side, call)
    return world


def _gold(spec: TelecomSpec, task: Tau2Task) -> tuple[TelecomDomain, list[str]]:
    world = spec.create()
    failures: list[str] = []
    crit = task.evaluation_criteria
    for action in (crit.actions or []) if crit else []:
        try:
            world.make_call(action.requestor, action.name, action.arguments)
        except Exception as exc:  # tau2 logs a failing gold action and goes on
            failures.append(f"{action.name}: {exc}")
    return world, failures


def judge_telecom(
    scenario: Scenario,
    session: Session,
    task: Tau2Task,
    final_domain: Any = None,
    judge: NLJudge | None = None,
) -> Judgement:
    """Our verdict on a session of a telecom task, in full (see the module docstring)."""
    ended = _termination(session)
    if ended not in STOPPED:
        result = CriterionResult(
            name="termination", passed=False, evidence=f"ended as {ended}: tau2 scores it 0"
        )
        return Judgement(outcome=Outcome(success=False, reward=0.0, criteria=[result]))
    crit = task.evaluation_criteria
    if crit is None:
        note = CriterionResult(name="criteria", passed=True, evidence="the task has no criteria")
        return Judgement(outcome=Outcome(success=True, reward=1.0, criteria=[note]), db_match=True)
    basis = set(crit.reward_basis)
    spec = spec_for(scenario)
    world = (
        final_domain if isinstance(final_domain, TelecomDomain) else replay_session(spec, session)
    )
    results: list[CriterionResult] = []
    breakdown: dict[str, float] = {}
    if crit.actions is None and crit.env_assertions is None:
        db_match = True
        db = CriterionResult(name="db", passed=True, evidence="no actions to replay")
    else:
        gold, failures = _gold(spec, task)
        ours, theirs = world.hashes(), gold.hashes()
        db_match = ours == theirs
        where = [
            n for n, a, b in zip(("carrier database", "phone"), ours, theirs, strict=True) if a != b
        ]
        evidence = (
            "both sides equal the gold state"
            if db_match
            else "differs from the gold state: " + ", ".join(where)
        )
        if failures:
            evidence += "; gold actions that failed: " + "; ".join(failures)
        db = CriterionResult(name="db", passed=db_match, evidence=evidence)
    if "DB" in basis:
        results.append(db)
        breakdown["DB"] = 1.0 if db_match else 0.0
    if "ENV_ASSERTION" in basis:
        failed = []
        for check in crit.env_assertions or []:
            try:
                value = world.run_function(check.env_type, check.func_name, check.arguments)
            except Exception as exc:  # an assertion that raises has not held
                value = f"raised {type(exc).__name__}: {exc}"
            if value is not check.assert_value:
                failed.append(
                    f"{check.env_type} {check.func_name}({check.arguments}) gave {value!r}"
                )
        results.append(
            CriterionResult(
                name="env_assertion",
                passed=not failed,
                evidence="; ".join(failed) if failed else "all assertions hold",
            )
        )
        breakdown["ENV_ASSERTION"] = 0.0 if failed else 1.0
    if "COMMUNICATE" in basis:
        said = _said(crit.communicate_info or [], session)
        results.append(said)
        breakdown["COMMUNICATE"] = 1.0 if said.passed else 0.0
    if "ACTION" in basis:
        made = [(c.name, c.arguments or {}) for _, c in _calls(session)]
        # Both sides' actions: each named with who makes it.
        results.append(
            actions_made(crit.actions or [], made, breakdown, lambda a: f"{a.requestor} {a.name}")
        )
    if "NL_ASSERTION" in basis:
        results.append(_nl(crit.nl_assertions or [], session, judge, breakdown))
    return Judgement(
        outcome=rewarded(results, breakdown),
        db_match=db_match,
        breakdown=breakdown,
    )
