"""Gymnasium's vector environments run `SessionEnv`s side by side, in this process or in
worker processes, each episode as the single environment plays it."""

from __future__ import annotations

import json
from collections.abc import Callable

import gymnasium
import pytest

from sessionproof.envs import SessionEnv

REPLY = json.dumps({"content": "Thanks, that is all I can do."})


def _make() -> SessionEnv:
    return SessionEnv("demo", faults="10%", seed=3)


def _first_episode(env: SessionEnv, seed: int) -> tuple[str, float]:
    _, info = env.reset(seed=seed)
    while True:
        _, reward, terminated, truncated, _ = env.step(REPLY)
        if terminated or truncated:
            return info["scenario_id"], float(reward)


@pytest.mark.parametrize("kind", ["sync", pytest.param("async", marks=pytest.mark.slow)])
def test_vector_envs_play_each_episode_as_one_env_does(
    make_env: Callable[..., SessionEnv], kind: str
) -> None:
    fns = [_make, _make]
    vec: gymnasium.vector.VectorEnv = (
        gymnasium.vector.SyncVectorEnv(fns)
        if kind == "sync"
        else gymnasium.vector.AsyncVectorEnv(fns, context="spawn", shared_memory=False)
    )
    try:
        obs, info = vec.reset(seed=[11, 12])
        assert all(o in vec.single_observation_space for o in obs)
        scenarios = list(info["scenario_id"])
        rewards: list[float | None] = [None, None]
        while None in rewards:
            _, reward, terminated, truncated, _ = vec.step([REPLY, REPLY])
            for i in range(2):
                if (terminated[i] or truncated[i]) and rewards[i] is None:
                    rewards[i] = float(reward[i])
    finally:
        vec.close()
    single = [_first_episode(make_env("demo", faults="10%", seed=3), s) for s in (11, 12)]
    assert list(zip(scenarios, rewards, strict=True)) == single
