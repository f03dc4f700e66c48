"""tau2 suites from tasks.json, the run-time verdict, and what an oracle agent can satisfy."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from sessionproof.agents import AgentRequest, OracleAgent, ScriptedAgent
from sessionproof.engine import run_session
from sessionproof.engine._internal import SessionPlan, user_for
from sessionproof.errors import UnknownSuiteError
from sessionproof.records import Message, Session
from sessionproof.suites import load_suite
from sessionproof.suites._nl_judge import AgentJudge, parse_judgement
from sessionproof.suites.tau2._internal import Tau2Suite, evaluate_tau2, load_tau2_suite

from ._data import FIXTURES

PACKAGE_DATA = FIXTURES.parent.parent.parent / "src" / "sessionproof" / "suites" / "tau2"


def _json(domain: str, name: str) -> Any:
    return json.loads((PACKAGE_DATA / domain / "data" / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("domain", ["retail", "airline"])
def test_splits_follow_split_tasks_json(domain: str) -> None:
    splits = _json(domain, "split_tasks.json")
    tasks = _json(domain, "tasks.json")
    assert len(load_tau2_suite(f"tau2-{domain}")) == len(tasks)
    for split, ids in splits.items():
        scenarios = load_tau2_suite(f"tau2-{domain}:{split}")
        assert [s.id for s in scenarios] == [t["id"] for t in tasks if t["id"] in set(ids)]
        assert len(scenarios) == len(ids)


def test_scenarios_carry_user_scenario_criteria_and_the_task() -> None:
    tasks = {t["id"]: t for t in _json("retail", "tasks.json")}
    for scenario in load_tau2_suite("tau2-retail:test"):
        task = tasks[scenario.id]
        crit = task["evaluation_criteria"]
        assert scenario.metadata["tau2_task"] == task
        assert task["user_scenario"]["instructions"]["reason_for_call"] in (
            scenario.user.instructions or ""
        )
        assert [a.tool for a in scenario.criteria.gold_actions] == [
            a["name"] for a in crit["actions"]
        ]
        assert scenario.criteria.compare_state is ("DB" in crit["reward_basis"])


def test_unknown_suite_and_split_are_named_errors() -> None:
    with pytest.raises(UnknownSuiteError, match="splits: base, test, train"):
        load_tau2_suite("tau2-airline:dev")
    with pytest.raises(UnknownSuiteError):
        load_tau2_suite("tau2-telecom")


def _run(suite: Tau2Suite) -> list[Session]:
    async def go() -> list[Session]:
        out = []
        for scenario in suite.scenarios:
            plan = SessionPlan(run_id="r", session_id=scenario.id, scenario=scenario, trial=0)
            out.append(await run_session(plan, suite, OracleAgent(), user_for(scenario, None)))
        return out

    return asyncio.run(go())


def test_oracle_satisfies_every_airline_task() -> None:
    suite = load_suite("tau2-airline")
    assert isinstance(suite, Tau2Suite)
    sessions = _run(suite)
    assert len(sessions) == 50
    assert [s.scenario_id for s in sessions if not s.success] == []
    assert all(s.outcome and s.outcome.reward == 1.0 for s in sessions)


def test_oracle_cannot_satisfy_nl_assertions_without_a_judge() -> None:
    suite = load_suite("tau2-retail")
    assert isinstance(suite, Tau2Suite)
    sessions = _run(suite)
    with_nl = {
        s.id
        for s in suite.scenarios
        if "NL_ASSERTION" in s.metadata["tau2_task"]["evaluation_criteria"]["reward_basis"]
        and s.metadata["tau2_task"]["evaluation_criteria"].get("nl_assertions")
    }
    assert len(with_nl) == 40
    for session in sessions:
        assert session.outcome is not None
        nl = session.outcome.criterion("nl_assertion")
        if session.scenario_id in with_nl:
            assert nl is not None and nl.passed is None and "not evaluated" in nl.evidence
            assert not session.success  # never silently passed
        else:
            assert session.success, session.scenario_id
        db = session.outcome.criterion("db")
        assert db is not None and db.passed is True


def test_a_judge_model_evaluates_nl_assertions() -> None:
    suite = load_suite("tau2-retail:test")
    assert isinstance(suite, Tau2Suite)
    scenario = next(
        s
        for s in suite.scenarios
        if s.metadata["tau2_task"]["evaluation_criteria"].get("nl_assertions")
    )
    n = len(scenario.metadata["tau2_task"]["evaluation_criteria"]["nl_assertions"])
    seen: list[str] = []

    def verdicts(met: bool) -> ScriptedAgent:
        def reply(request: AgentRequest) -> Message:
            seen.append(request.messages[-1].content or "")
            results = [{"met": met, "justification": "checked"}] * n
            return Message.assistant("```json\n" + json.dumps({"results": results}) + "\n```")

        return ScriptedAgent(reply, name="judge")

    (session,) = _run(Tau2Suite("one", [scenario]))
    for met in (True, False):
        outcome = evaluate_tau2(scenario, session, judge=AgentJudge(verdicts(met)))
        nl = outcome.criterion("nl_assertion")
        assert nl is not None and nl.passed is met and outcome.success is met
    assert "Transcript:" in seen[0] and "agent calls" in seen[0]
    assert parse_judgement("no json here", 1) is None
    assert parse_judgement('{"results": [{"met": "yes"}]}', 1) == [(None, "")]
