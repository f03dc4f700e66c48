"""Fixtures of the environment tests: an environment closed after each test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("gymnasium")

from sessionproof.envs import SessionEnv


@pytest.fixture
def make_env() -> Iterator[Callable[..., SessionEnv]]:
    """`make_env(suite, **options)`: a `SessionEnv`, closed when the test ends."""
    made: list[SessionEnv] = []

    def make(suite: Any = "demo", **options: Any) -> SessionEnv:
        env = SessionEnv(suite, **options)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()
