"""Every model call is recorded with who made it: the agent, the simulated user or the NL
judge; the session's `usage` stays the agent's alone."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from sessionproof.agents import make_agent
from sessionproof.engine import run_session
from sessionproof.engine._internal import SessionPlan, user_for
from sessionproof.records import EventKind, Scenario
from sessionproof.records._internal import ModelCall
from sessionproof.suites import load_suite
from sessionproof.suites._nl_judge import AgentJudge
from sessionproof.suites.tau2._internal import Tau2Suite

from ..agents.fakeprovider import FakeProvider
from .roles_fake import roles_server


@pytest.fixture
def server() -> Iterator[FakeProvider]:
    fake = roles_server()
    yield fake
    fake.stop()


def _with_nl_assertions() -> Scenario:
    suite = load_suite("tau2-retail")
    return next(
        s
        for s in suite.scenarios
        if s.metadata["tau2_task"]["evaluation_criteria"].get("nl_assertions")
    )


def test_user_and_judge_calls_are_recorded_with_their_role(server: FakeProvider) -> None:
    scenario = _with_nl_assertions()
    agent = make_agent(f"openai-compat:agent-m@{server.url}")
    user_model = make_agent(f"openai-compat:user-m@{server.url}")
    judge = AgentJudge(make_agent(f"openai-compat:judge-m@{server.url}"))
    suite = Tau2Suite("one", [scenario], judge=judge)
    plan = SessionPlan(run_id="r", session_id="s", scenario=scenario, trial=0)
    session = asyncio.run(run_session(plan, suite, agent, user_for(scenario, user_model)))

    calls: list[ModelCall] = session.model_calls()
    by_role = {role: [c for c in calls if c.role == role] for role in ("agent", "user", "judge")}
    assert {c.model for c in by_role["agent"]} == {"agent-m"}
    assert {c.model for c in by_role["user"]} == {"user-m"}
    assert [c.model for c in by_role["judge"]] == ["judge-m"]  # one call for every assertion
    assert len(by_role["agent"]) >= 2 and len(by_role["user"]) >= 2
    # The server saw exactly the calls recorded, whoever made them.
    posted = [p.body["model"] for p in server.posts()]
    assert sorted(posted) == sorted(c.model for c in calls)
    # The session's usage is the agent's alone (the user's and judge's tokens are not in it).
    assert session.usage.input_tokens == 100 * len(by_role["agent"])
    assert session.usage.output_tokens == 10 * len(by_role["agent"])
    # The judge's call is recorded before the verdict it gave, and the judge did judge.
    kinds = [e.kind for e in session.events]
    judge_at = max(i for i, e in enumerate(session.events) if e.kind is EventKind.model_call)
    assert kinds.index(EventKind.verdict) == judge_at + 1
    assert session.outcome is not None
    nl = session.outcome.criterion("nl_assertion")
    assert nl is not None and nl.passed is True


def test_an_old_model_call_without_a_role_reads_as_the_agents() -> None:
    old = {"provider": "openai", "model": "m", "usage": {"input_tokens": 3}}
    assert ModelCall.model_validate(old).role == "agent"
    with pytest.raises(ValueError, match="role"):
        ModelCall.model_validate({**old, "role": "critic"})
