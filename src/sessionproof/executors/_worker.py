"""The Ray side of a run: what each worker is shipped, and the actor that runs sessions.

A worker builds what a session needs in its own process, from what can be shipped: the
suite from its reference (a built-in name or an absolute path; a `Suite` object by value),
the agents from their model spec strings (an `Agent` object by value when it pickles), and
each session's plan by the local pool's rules (`session_seed`, `session_id`), so the same
seed gives the same faults and the same verdicts. This module imports only what a session
needs (not the store, scoring reports or telemetry): a fresh worker starts fast.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..agents import Agent
from ..agents._internal import RateLimiter
from ..engine import SessionHooks, run_session
from ..engine._internal import HooksFactory, NoHooks, RunPlan, is_reference, plan_session
from ..errors import ConfigError
from ..records import Scenario, Session
from ..suites import Suite
from ._setup import agents_for, hooks_factory, load

AgentWrapper = Callable[[Agent], Agent]
"""Applied in each worker to every agent it builds (the agent, and the model playing
simulated users): the seam for a limiter shared by the whole cluster (`RateLimitedAgent`
around a `RayRateLimiter` actor handle). It is pickled to the workers, so it must be a
module-level function or another picklable callable."""


@dataclass(frozen=True)
class WorkerSpec:
    """Everything a worker needs to run any session of one run (pickled to each actor)."""

    suite: str | Suite
    """A reference the worker loads (name or absolute path), or a `Suite` by value."""
    limit: int | None
    suite_hash: str
    """The driver's `content_hash()` of the loaded suite; a worker seeing another refuses."""
    model: str | Agent
    user_model: str | Agent | None
    tool_mode: Literal["native", "prompted", "auto"]
    plan: RunPlan
    cwd: str
    """The driver's working directory, used where it exists on the worker's node."""
    wrap_agent: AgentWrapper | None = None
    reading: str = "own"
    """`own` or `gold-prefix` (see `load`)."""


def _no_hooks(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
    return NoHooks()


class SessionWorker:
    """One worker process's state: the suite and agents, built once, serving many sessions
    at once (an async Ray actor: its methods run on the actor's event loop)."""

    def __init__(self, spec: WorkerSpec, limiter: RateLimiter | None = None) -> None:
        """Remember the spec; the suite and agents are built on the first session, their
        provider requests sent through `limiter`'s gates when given (a local worker
        process's share of the run's concurrency)."""
        self.spec = spec
        self.limiter = limiter
        self._stack = contextlib.AsyncExitStack()
        self._ready: asyncio.Future[tuple[Suite, Agent, Agent | None]] | None = None
        self._hooks: HooksFactory | None = None
        # Relative paths and `python:` agents next to the user resolve as in a local run.
        if os.path.isdir(spec.cwd):
            os.chdir(spec.cwd)
            if spec.cwd not in sys.path:
                sys.path.insert(0, spec.cwd)

    async def _setup(self) -> tuple[Suite, Agent, Agent | None]:
        spec = self.spec
        loaded = load(spec.suite, spec.limit, spec.reading)
        self._hooks = hooks_factory(spec.plan.arms, loaded)
        if loaded.content_hash() != spec.suite_hash:
            raise ConfigError(
                f"suite {loaded.name!r} differs on a Ray worker from the driver's; install "
                "the same sessionproof and suite files on every node"
            )
        made, user = await self._stack.enter_async_context(
            agents_for(
                spec.model,
                spec.user_model,
                tool_mode=spec.tool_mode,
                seed=spec.plan.seed,
                limiter=self.limiter,
            )
        )
        wrap = spec.wrap_agent
        if wrap is None:
            return loaded, made, user
        agent = wrap(made)
        # The agent playing users too keeps one wrapper (one limiter budget, as locally).
        return loaded, agent, None if user is None else (agent if user is made else wrap(user))

    async def run(self, scenario_id: str, trial: int, arm_index: int) -> Session:
        """Run one session of the run to its end and judge it."""
        if self._ready is None:
            self._ready = asyncio.ensure_future(self._setup())
        loaded, agent, user = await self._ready
        scenario = next(s for s in loaded.scenarios if s.id == scenario_id)
        plan, session_user = plan_session(
            self.spec.plan,
            scenario,
            trial,
            arm_index,
            self._hooks or _no_hooks,
            user,
            reference=is_reference(agent),
        )
        return await run_session(plan, loaded, agent, session_user)

    async def close(self) -> None:
        """Close the agents this worker made."""
        await self._stack.aclose()
