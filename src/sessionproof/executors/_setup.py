"""What both executors build for a run, by one rule: each arm's hooks, the suite cut to its
limit, and the agents (with who plays simulated users)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Literal

from ..agents import Agent, plays_users
from ..conditions import hooks_for, parse_arm
from ..engine import HooksFactory, SessionHooks
from ..records import Scenario
from ..suites import Suite, load_suite


def hooks_factory(arms: Sequence[str]) -> HooksFactory | None:
    """The engine's hooks for each arm's condition; None for a baseline-only run."""
    if list(arms) == ["baseline"]:
        return None
    conditions = {a: parse_arm(a) for a in arms}  # parse up front: a bad spec fails fast

    def make(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
        # Drift lands on a tool the task uses, so it meets the agent's path.
        gold_tools = [a.tool for a in scenario.criteria.gold_actions]
        return hooks_for(conditions[arm], seed, prefer_tools=gold_tools)

    return make


def load(suite: str | Suite, limit: int | None) -> Suite:
    """The suite a config names, cut to its first `limit` scenarios."""
    return (load_suite(suite) if isinstance(suite, str) else suite).limited(limit)


@contextlib.asynccontextmanager
async def agents_for(
    model: str | Agent,
    user_model: str | Agent | None,
    *,
    tool_mode: Literal["native", "prompted", "auto"],
    seed: int,
) -> AsyncIterator[tuple[Agent, Agent | None]]:
    """(the agent, who plays simulated users or None), closing the agents made from specs.

    A separate `user_model` plays users; else the agent itself when it is a model (a
    reference agent gets the scenario's instructions as one message instead).
    """
    from ..agents import make_agent

    made: list[Agent] = []
    try:
        agent = model
        if isinstance(agent, str):
            agent = make_agent(agent, tool_mode=tool_mode, seed=seed)
            made.append(agent)
        user: Agent | None = None
        if isinstance(user_model, str) and user_model and user_model != model:
            user = make_agent(user_model, tool_mode="native", seed=seed)
            made.append(user)
        elif user_model is not None and not isinstance(user_model, str):
            user = user_model
        elif plays_users(agent):
            user = agent
        yield agent, user
    finally:
        for each in reversed(made):
            await each.aclose()
