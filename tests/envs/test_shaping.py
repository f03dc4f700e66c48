"""`shaped_reward=True`: each step's credit is the change in on-path progress (the survival
walk's gold writes done), taken back at the end, so an episode's return is its verdict."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pytest

from sessionproof.envs import SessionEnv
from sessionproof.scoring._internal import session_survival
from tests.envs.gold_agent import respond

CANCEL_TWO = "cancel-two-orders-parallel"
"""A demo scenario with two gold writes (cancel_order 1052, then 1054)."""


def _cancel(order_id: str, reason: str = "no_longer_needed") -> str:
    args = {"order_id": order_id, "reason": reason}
    return json.dumps({"tool_calls": [{"name": "cancel_order", "arguments": args}]})


def _play(env: SessionEnv, scenario: str, trial: int = 0) -> tuple[list[float], dict[str, Any]]:
    _, info = env.reset(options={"scenario": scenario, "trial": trial})
    rewards: list[float] = []
    done = False
    while not done:
        _, reward, terminated, truncated, info = env.step(respond(info["request"]))
        rewards.append(float(reward))
        done = terminated or truncated
    return rewards, info


def test_each_gold_write_earns_its_share_and_the_return_is_the_verdict(
    make_env: Callable[..., SessionEnv],
) -> None:
    env = make_env("demo", seed=1, shaped_reward=True)
    rewards, info = _play(env, CANCEL_TWO)
    assert info["verdict"] is True
    # find the customer (0), cancel 1052 (+1/2), cancel 1054 (+1/2), then replies (0) to
    # the end, whose reward is the verdict less the potential: 1 - 1.
    rest = len(rewards) - 3
    assert rewards == [0.0, 0.5, 0.5] + [0.0] * rest
    assert info["credit"]["potential"] == [0.0, 0.5] + [1.0] * rest + [0.0]
    assert math.fsum(rewards) == 1.0
    session = env.session
    assert session is not None
    scenario = session_scenario(env)
    walked = session_survival(session, scenario, env.suite.domain_for(scenario))
    assert walked.gold_writes_done == walked.gold_writes == 2


def session_scenario(env: SessionEnv) -> Any:
    session = env.session
    assert session is not None
    return next(s for s in env.suite.scenarios if s.id == session.scenario_id)


def test_a_write_off_every_correct_path_takes_the_credit_back(
    make_env: Callable[..., SessionEnv],
) -> None:
    env = make_env("demo", seed=1, shaped_reward=True)
    env.reset(options={"scenario": CANCEL_TWO})
    _, first, *_ = env.step(_cancel("1052"))
    _, wrong, *_ = env.step(_cancel("1054", reason="ordered_by_mistake"))
    assert (first, wrong) == (0.5, -0.5)
    later: list[float] = []
    done = False
    while not done:
        _, reward, terminated, truncated, info = env.step('{"content": "Both are cancelled."}')
        later.append(float(reward))
        done = terminated or truncated
    assert info["verdict"] is False
    assert later == [0.0] * len(later)  # the verdict 0.0, and no potential left to take back


@pytest.mark.slow
def test_shaping_changes_no_verdict_and_no_return(make_env: Callable[..., SessionEnv]) -> None:
    plain = make_env("demo", seed=7, faults="50%")
    shaped = make_env("demo", seed=7, faults="50%", shaped_reward=True)
    for scenario in plain.suite.scenarios:
        for trial in range(2):
            flat, plain_info = _play(plain, scenario.id, trial)
            credit, shaped_info = _play(shaped, scenario.id, trial)
            assert shaped_info["verdict"] is plain_info["verdict"]
            assert math.isclose(math.fsum(credit), math.fsum(flat), abs_tol=1e-9)
            assert len(credit) == len(flat)


@pytest.mark.parametrize("drift", ["rename_param"])
def test_no_shaping_under_schema_drift(make_env: Callable[..., SessionEnv], drift: str) -> None:
    env = make_env("demo", seed=1, drift=drift, shaped_reward=True)
    rewards, info = _play(env, CANCEL_TWO)
    assert rewards[:-1] == [0.0] * (len(rewards) - 1)
    assert "schema drift" in info["credit"]["no_shaping"]


@pytest.mark.slow
def test_the_shaping_trace_holds_what_the_engine_recorded_of_the_tools(
    make_env: Callable[..., SessionEnv],
) -> None:
    # Faults, the guard's decisions and drift reach the shaping through the tools' events.
    env = make_env("demo", seed=7, arm="faults=40% drift=rename_param guard", shaped_reward=True)
    kinds = {"tool_call", "tool_result", "fault_injected", "guard_decision", "drift_applied"}
    seen: set[str] = set()
    for scenario in env.suite.scenarios:
        _play(env, scenario.id)
        session = env.session
        shaping = env._shaping
        assert session is not None and shaping is not None
        recorded = [
            (str(e.kind), e.turn, e.step, e.payload) for e in session.events if str(e.kind) in kinds
        ]
        traced = [(str(k), t, s, p) for k, p, t, s in shaping._trace.items]
        assert traced == recorded
        seen |= {kind for kind, *_ in recorded}
    assert seen == kinds
