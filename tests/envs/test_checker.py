"""Gymnasium's own environment checker accepts `SessionEnv`, and its spaces hold what it
returns and takes."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from sessionproof.envs import SessionEnv


@pytest.mark.parametrize(
    ("suite", "options"),
    [
        ("demo", {"faults": "30%", "seed": 5}),
        ("demo", {"arm": "faults=30% drift=rename_param guard", "shaped_reward": True}),
        ("tau2-retail", {"faults": "10%", "limit": 3}),
    ],
)
def test_gymnasium_env_checker_passes(
    make_env: Callable[..., SessionEnv], suite: str, options: dict[str, object]
) -> None:
    env = make_env(suite, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The one warning left is that a bare instance has no registry spec to remake.
        warnings.filterwarnings("ignore", message=".*not having a spec.*")
        check_env(env)


def test_checker_passes_through_gymnasium_make() -> None:
    gymnasium.register(id="sessionproof-test/Demo-v0", entry_point="sessionproof.envs:SessionEnv")
    env = gymnasium.make("sessionproof-test/Demo-v0", suite="demo", faults="20%").unwrapped
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


def test_observations_and_actions_are_json_text_in_their_spaces(
    make_env: Callable[..., SessionEnv],
) -> None:
    env = make_env("demo", seed=1)
    obs, info = env.reset(seed=2)
    assert obs in env.observation_space
    data = json.loads(obs)
    assert list(data) == ["messages", "tools", "turn", "step"]
    assert data["messages"][0]["role"] == "system"
    assert data["messages"][-1] == {**data["messages"][-1], "role": "user"}
    assert [t["name"] for t in data["tools"]] == [t.name for t in info["request"].tools]
    # What a model is shown of a tool; not whether it writes, which the harness alone reads.
    assert all(list(t) == ["name", "description", "parameters"] for t in data["tools"])
    assert "scenario" not in data  # only reference agents read it, from info["request"]
    assert info["request"].scenario is not None
    env.action_space.seed(4)
    sampled = env.action_space.sample()
    assert sampled in env.action_space
    assert '{"tool_calls": [{"name": "get_order", "arguments": {"order_id": "1"}}]}' in (
        env.action_space
    )
    assert "hello" not in env.action_space
    assert '{"content": 3}' not in env.action_space
    assert "{}" not in env.observation_space


def test_tool_results_come_back_in_the_next_observation(
    make_env: Callable[..., SessionEnv],
) -> None:
    env = make_env("demo", seed=1)
    env.reset(seed=2)
    action = {"tool_calls": [{"name": "get_order", "arguments": {"order_id": "0000"}}]}
    obs, reward, terminated, truncated, info = env.step(json.dumps(action))
    messages = json.loads(obs)["messages"]
    call = messages[-2]["tool_calls"][0]
    assert (call["name"], call["arguments"]) == ("get_order", {"order_id": "0000"})
    assert messages[-1]["role"] == "tool"
    assert messages[-1]["tool_call_id"] == call["id"]
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["request"].step == 1
