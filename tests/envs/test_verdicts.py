"""A `python:` agent driven through `SessionEnv` gets the verdicts it gets through `run`,
session by session, for the same seed and condition (demo and tau2 suites, with faults)."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import Any

import pytest

import sessionproof
from sessionproof.agents import Agent, AgentRequest, AgentResponse, make_agent
from sessionproof.agents._internal import STOP_TOKEN
from sessionproof.envs import SessionEnv
from sessionproof.records import Message, Session
from sessionproof.suites import load_suite
from tests.envs.gold_agent import respond

AGENT = "python:tests.envs.gold_agent:respond"

Played = dict[tuple[str, int], tuple[bool | None, str, list[Any]]]


def _trace(session: Session) -> list[Any]:
    """Every event of `session` but its clocks: kind, turn, step and payload (a tool
    result's own wall time left out)."""
    out = []
    for event in session.events:
        payload = event.payload.model_dump(mode="json")
        if isinstance(payload, dict):
            payload.pop("latency_s", None)
        out.append((str(event.kind), event.turn, event.step, payload))
    return out


def _through_run(suite: str, trials: int, limit: int | None, **condition: Any) -> Played:
    arm = condition.pop("arm", None)
    if arm is not None:
        condition["arms"] = [arm]
    result = sessionproof.run_suite(suite, AGENT, seed=7, trials=trials, limit=limit, **condition)
    return {
        (s.scenario_id, s.trial): (s.verdict, str(s.termination), _trace(s))
        for s in result.sessions
    }


def _decide(agent: Agent, request: AgentRequest) -> AgentResponse:
    """The `python:` agent's decision, asked as the engine asks any agent."""
    return asyncio.run(agent.respond(request))


def _through_env(env: SessionEnv, trials: int) -> tuple[Played, dict[tuple[str, int], float]]:
    """Every scenario × trial of `env` played by the `python:` agent `AGENT` (the very agent
    `run` makes of the spec), each decision sent with `step`."""
    agent = make_agent(AGENT)
    played: Played = {}
    rewards: dict[tuple[str, int], float] = {}
    for scenario in env.suite.scenarios:
        for trial in range(trials):
            _, info = env.reset(options={"scenario": scenario.id, "trial": trial})
            done, total = False, 0.0
            while not done:
                decision = _decide(agent, info["request"])
                _, reward, terminated, truncated, info = env.step(decision)
                total += float(reward)
                done = terminated or truncated
            session = env.session
            assert session is not None
            assert info["verdict"] is session.verdict
            played[(scenario.id, trial)] = (
                session.verdict,
                str(session.termination),
                _trace(session),
            )
            rewards[(scenario.id, trial)] = total
    return played, rewards


@pytest.mark.parametrize(
    ("suite", "trials", "limit", "condition"),
    [
        ("demo", 2, None, {"faults": "50%"}),
        pytest.param(
            "demo", 1, None, {"arm": "faults=30% drift=rename_param guard"}, marks=pytest.mark.slow
        ),
        ("demo", 1, None, {"arm": "faults=20% perturb=missing_arg"}),
        ("tau2-retail", 2, 4, {"faults": "15%"}),
        ("tau2-retail", 1, 3, {"faults": "25%", "guard": True}),
        ("tau2-airline", 1, 3, {"faults": "30%"}),
    ],
)
def test_env_gives_the_verdicts_of_run(
    make_env: Callable[..., SessionEnv],
    suite: str,
    trials: int,
    limit: int | None,
    condition: dict[str, Any],
) -> None:
    expected = _through_run(suite, trials, limit, **condition)
    env = make_env(suite, seed=7, limit=limit, **condition)
    played, rewards = _through_env(env, trials)
    assert played == expected
    for key, (verdict, _, _) in played.items():
        assert verdict is not None
        assert rewards[key] == float(verdict)


@pytest.mark.slow
def test_faulted_demo_sessions_both_pass_and_fail(make_env: Callable[..., SessionEnv]) -> None:
    # The equality above is worth something only if faults split the verdicts.
    played, _ = _through_env(make_env("demo", seed=7, faults="50%"), 2)
    verdicts = [v for v, _, _ in played.values()]
    assert True in verdicts and False in verdicts


def test_trial_counts_plays_of_a_scenario_since_a_seeded_reset(
    make_env: Callable[..., SessionEnv],
) -> None:
    env = make_env("demo", seed=7, faults="50%")
    trials: dict[str, list[int]] = {}
    _, info = env.reset(seed=3)
    trials.setdefault(info["scenario_id"], []).append(info["trial"])
    for _ in range(11):
        _, info = env.reset()
        trials.setdefault(info["scenario_id"], []).append(info["trial"])
    for seen in trials.values():
        assert seen == list(range(len(seen)))
    _, again = env.reset(seed=3)
    assert again["trial"] == 0


def test_an_unjudged_session_ends_with_nan_not_zero(make_env: Callable[..., SessionEnv]) -> None:
    # A scenario that opts out of judging is not judged: its end is no 0.0.
    suite = load_suite("demo").limited(1)
    scenario = suite.scenarios[0]
    criteria = scenario.criteria.model_copy(update={"not_judged": "a smoke test read by hand"})
    suite.scenarios = [scenario.model_copy(update={"criteria": criteria})]
    env = make_env(suite, seed=7)
    _, info = env.reset(seed=0)
    done = False
    reward: Any = None
    while not done:
        _, reward, terminated, truncated, info = env.step(respond(info["request"]))
        done = terminated or truncated
    assert math.isnan(float(reward))
    assert info["judged"] is False
    assert info["verdict"] is None
    assert info["not_judged"] == "a smoke test read by hand"


class _TwoLineUser:
    """A user model that states its task, answers once, then stops (deterministic)."""

    name = "two-line-user"
    plays_users = True

    async def respond(self, request: AgentRequest) -> AgentResponse:
        said = sum(m.role == "assistant" for m in request.messages)
        text = ("I need help with my order.", "Yes, please go ahead.")
        return AgentResponse(message=Message.assistant(text[said] if said < 2 else STOP_TOKEN))

    async def aclose(self) -> None:
        """Nothing to release."""


def test_a_user_model_plays_the_user_as_in_run(make_env: Callable[..., SessionEnv]) -> None:
    user = _TwoLineUser()
    result = sessionproof.run_suite(
        "tau2-retail", AGENT, seed=7, limit=3, faults="15%", user_model=user
    )
    expected = {
        (s.scenario_id, s.trial): (s.verdict, [m.content for m in s.messages() if m.role == "user"])
        for s in result.sessions
    }
    env = make_env("tau2-retail", seed=7, limit=3, faults="15%", user_model=user)
    played = {}
    for scenario in env.suite.scenarios:
        _, info = env.reset(options={"scenario": scenario.id})
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(respond(info["request"]))
            done = terminated or truncated
        session = env.session
        assert session is not None
        users = [m.content for m in session.messages() if m.role == "user"]
        played[(scenario.id, 0)] = (session.verdict, users)
    assert played == expected
    assert all(
        users[:2] == ["I need help with my order.", "Yes, please go ahead."]
        for _, users in played.values()
    )


def test_the_step_limit_truncates_and_the_session_is_still_judged(
    make_env: Callable[..., SessionEnv],
) -> None:
    env = make_env("demo", seed=1, max_steps=1)
    env.reset(options={"scenario": "cancel-two-orders-parallel"})
    action = '{"tool_calls": [{"name": "find_customer_by_email", "arguments": {"email": "x@y.z"}}]}'
    _, reward, terminated, truncated, info = env.step(action)
    assert (terminated, truncated) == (False, True)
    assert info["termination"] == "max_steps"
    assert info["verdict"] is False and reward == 0.0


def test_a_decision_past_the_agent_timeout_ends_the_session_as_the_agents_timeout(
    make_env: Callable[..., SessionEnv],
) -> None:
    env = make_env("demo", seed=1, agent_timeout=0.2)
    env.reset(seed=0)
    time.sleep(0.6)
    _, reward, terminated, _, info = env.step('{"content": "late"}')
    assert terminated and reward == 0.0
    assert info["termination"] == "too_many_errors"
    assert "no reply within 0.2 s" in info["termination_detail"]


@pytest.mark.slow
def test_shaping_leaves_every_session_as_run_plays_it(make_env: Callable[..., SessionEnv]) -> None:
    # The trace the shaping keeps sits outside the condition's tools and changes nothing.
    expected = _through_run("demo", 2, None, faults="50%")
    env = make_env("demo", seed=7, faults="50%", shaped_reward=True)
    played, rewards = _through_env(env, 2)
    assert played == expected
    for key, (verdict, _, _) in played.items():
        assert math.isclose(rewards[key], float(bool(verdict)), abs_tol=1e-9)
    assert {v for v, _, _ in played.values()} == {True, False}


JUDGE = "python:tests.envs.judge_agent:respond"


@pytest.mark.parametrize("judge", [None, JUDGE])
def test_natural_language_assertions_are_judged_as_in_run(
    make_env: Callable[..., SessionEnv], judge: str | None
) -> None:
    # tau2 retail's scenarios 2 and 3 have natural-language assertions (and 0 and 1 none).
    expected = _through_run("tau2-retail", 1, 4, judge=judge)
    env = make_env("tau2-retail", seed=7, limit=4, judge=judge)
    played: Played = {}
    unevaluated = {}
    for scenario in env.suite.scenarios:
        _, info = env.reset(options={"scenario": scenario.id})
        done = False
        while not done:
            _, reward, terminated, truncated, info = env.step(respond(info["request"]))
            done = terminated or truncated
        session = env.session
        assert session is not None
        played[(scenario.id, 0)] = (session.verdict, str(session.termination), _trace(session))
        unevaluated[scenario.id] = (info["unevaluated"], reward)
    assert played == expected
    if judge is None:
        assert unevaluated["2"] == unevaluated["3"] == (["nl_assertion"], 0.0)
    else:
        assert unevaluated["2"] == unevaluated["3"] == ([], 1.0)
    assert unevaluated["0"] == unevaluated["1"] == ([], 1.0)
