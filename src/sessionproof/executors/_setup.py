"""What both executors build for a run, by one rule: each arm's hooks, the suite cut to its
limit, and the agents (with who plays simulated users)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Literal

from ..agents import Agent
from ..agents._internal import RateLimiter, plays_users
from ..conditions import parse_arm
from ..conditions._internal import check_sources, hooks_for, needs_tools
from ..engine import SessionHooks
from ..engine._internal import HooksFactory
from ..records import Scenario
from ..suites import Suite, load_suite
from ..suites._internal import gold_prefix_suite


def hooks_factory(arms: Sequence[str], suite: Suite | None = None) -> HooksFactory | None:
    """The engine's hooks for each arm's condition; None for a baseline-only run. `suite`
    gives a perturbation the scenario's domain (to check its rewritten gold calls)."""
    if list(arms) == ["baseline"]:
        return None
    conditions = {a: parse_arm(a) for a in arms}  # parse up front: a bad spec fails fast
    if suite is not None and any(needs_tools(c) for c in conditions.values()):
        domains = {s.domain: suite.domain_for(s) for s in suite.scenarios}
        for condition in conditions.values():
            check_sources(condition, domains.values())  # a fault that cannot apply fails fast

    def make(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
        # Drift lands on a tool the task uses, so it meets the agent's path.
        gold_tools = [a.tool for a in scenario.criteria.gold_actions]
        condition = conditions[arm]
        domain = None
        if condition.perturb is not None and suite is not None:
            domain = suite.domain_for(scenario)
        return hooks_for(condition, seed, prefer_tools=gold_tools, domain=domain)

    return make


def load(suite: str | Suite, limit: int | None, reading: str = "own") -> Suite:
    """The suite a config names, cut to its first `limit` scenarios, in `reading` (the
    gold-prefix reading splits each per-turn scenario into one scenario per turn)."""
    loaded = (load_suite(suite) if isinstance(suite, str) else suite).limited(limit)
    return gold_prefix_suite(loaded) if reading == "gold-prefix" else loaded


@contextlib.asynccontextmanager
async def agents_for(
    model: str | Agent,
    user_model: str | Agent | None,
    *,
    tool_mode: Literal["native", "prompted", "auto"],
    seed: int,
    limiter: RateLimiter | None = None,
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
            agent = make_agent(agent, tool_mode=tool_mode, seed=seed, limiter=limiter)
            made.append(agent)
        user: Agent | None = None
        if isinstance(user_model, str) and user_model and user_model != model:
            user = make_agent(user_model, tool_mode="native", seed=seed, limiter=limiter)
            made.append(user)
        elif user_model is not None and not isinstance(user_model, str):
            user = user_model
        elif plays_users(agent):
            user = agent
        yield agent, user
    finally:
        for each in reversed(made):
            await each.aclose()
