"""The Ray executor: a run's sessions as calls on a pool of Ray actors, stored by the driver.

Each actor builds what a session needs in its own process, from what can be shipped: the
suite from its reference (a built-in name or an absolute path; a `Suite` object by value),
the agents from their model spec strings (an `Agent` object by value when it pickles), and
each session's plan from the same `session_seed` / `session_id` rules as the local pool,
so the same seed gives the same faults and the same verdicts. The driver alone writes the
store, once per finished session, in the order results arrive.

A worker process that dies (killed, out of memory, an agent that exits the interpreter) is
restarted by Ray and its in-flight sessions are run again (`max_task_retries`); a result can
then only arrive once per session, and the driver still drops any (scenario, trial, arm) it
has already stored, so no session is ever stored twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agents import Agent
from ..engine import (
    Progress,
    RunPlan,
    SessionPlan,
    SessionSink,
    run_session,
    session_id,
    session_seed,
    user_for,
)
from ..errors import ConfigError, InfraError, SessionproofError
from ..records import Scenario, Session
from ..suites import Suite
from ._config import RunConfig, parse_executor, suite_reference
from ._ray_cluster import connect, import_ray
from ._run import hooks_factory, load, run_agents

SESSION_RETRIES = 3
"""Times a session is run again after its worker process died (then the run stops, still
`running`, for `resume`)."""

AgentWrapper = Callable[[Agent], Agent]
"""Applied in each worker to every agent it builds (the agent, and the model playing
simulated users): the seam for a limiter shared by the whole cluster (`RateLimitedAgent`
around a `RayRateLimiter` actor handle). It is pickled to the workers, so it must be a
module-level function or another picklable callable."""

Key = tuple[str, int, str]


@dataclass(frozen=True)
class WorkerSpec:
    """Everything a worker needs to run any session of one run (pickled to each actor)."""

    config: RunConfig
    run_id: str
    plan: RunPlan
    suite_hash: str
    cwd: str
    wrap_agent: AgentWrapper | None = None


def session_plan(
    plan: RunPlan, scenario: Scenario, trial: int, arm_index: int, hooks: Any
) -> SessionPlan:
    """The plan of one session, by the rules the local pool follows (same seed, same id)."""
    arm = plan.arms[arm_index]
    seed = session_seed(plan.seed, scenario.id, trial)
    return SessionPlan(
        run_id=plan.run_id,
        session_id=session_id(scenario.id, trial, arm_index, len(plan.arms)),
        scenario=scenario,
        trial=trial,
        arm=arm,
        seed=seed,
        max_steps=scenario.max_steps or plan.max_steps,
        max_errors=plan.max_errors,
        agent_timeout=plan.agent_timeout,
        hooks=hooks(arm, seed, scenario) if hooks is not None else _baseline(),
    )


def _baseline() -> Any:
    from ..engine import NoHooks

    return NoHooks()


class SessionWorker:
    """One worker process's state: the suite and agents, built once, serving many sessions
    at once (an async Ray actor; its methods run on the actor's event loop)."""

    def __init__(self, spec: WorkerSpec) -> None:
        """Remember the spec; the suite and agents are built on the first session."""
        self.spec = spec
        self._stack = contextlib.AsyncExitStack()
        self._ready: asyncio.Task[tuple[Suite, Agent, Agent | None]] | None = None
        self._hooks = hooks_factory(spec.plan.arms)
        # The driver's directory, where it exists on this node: relative paths and
        # `python:` agents next to the user resolve as they do in a local run.
        if os.path.isdir(spec.cwd):
            os.chdir(spec.cwd)
            if spec.cwd not in sys.path:
                sys.path.insert(0, spec.cwd)

    async def _setup(self) -> tuple[Suite, Agent, Agent | None]:
        config = self.spec.config
        loaded = load(config.suite, config.limit)
        if loaded.content_hash() != self.spec.suite_hash:
            raise ConfigError(
                f"suite {suite_reference(config.suite)!r} differs on a Ray worker from the "
                "driver's; install the same sessionproof and suite files on every node"
            )
        made, user = await self._stack.enter_async_context(run_agents(config))
        wrap = self.spec.wrap_agent
        if wrap is None:
            return loaded, made, user
        agent = wrap(made)
        # The agent playing users too shares one wrapper (one limiter budget, as locally).
        return loaded, agent, None if user is None else (agent if user is made else wrap(user))

    async def run(self, scenario_id: str, trial: int, arm_index: int) -> Session:
        """Run one session of the run to its end and judge it."""
        if self._ready is None:
            self._ready = asyncio.ensure_future(self._setup())
        loaded, agent, user = await self._ready
        scenario = next(s for s in loaded.scenarios if s.id == scenario_id)
        plan = session_plan(self.spec.plan, scenario, trial, arm_index, self._hooks)
        return await run_session(plan, loaded, agent, user_for(scenario, user))

    async def close(self) -> None:
        """Close the agents this worker made."""
        await self._stack.aclose()


def _shippable(config: RunConfig) -> RunConfig:
    """`config` as the workers get it: the suite by a reference they can load; objects by
    value when they pickle, else a `ConfigError` saying what to give instead."""
    from ray import cloudpickle

    dumps: Callable[[object], bytes] = cloudpickle.dumps  # what Ray ships values with
    suite = config.suite
    shipped = config.model_copy(
        update={"suite": suite_reference(suite) if isinstance(suite, str) else suite}
    )
    for what, value, instead in (
        ("suite", config.suite, "a suite name or file"),
        ("model", config.model, "a model spec string"),
        ("user_model", config.user_model, "a model spec string"),
    ):
        if value is None or isinstance(value, str):
            continue
        try:
            dumps(value)
        except Exception as exc:
            raise ConfigError(
                f"--executor ray ships the {what} to its workers, but this "
                f"{type(value).__name__} cannot be pickled ({type(exc).__name__}); "
                f"give {instead} instead"
            ) from None
    return shipped


def _cause(exc: BaseException) -> BaseException:
    """The worker's own exception inside Ray's wrapper (a `ConfigError` stays one)."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


async def execute_ray(
    config: RunConfig,
    loaded: Suite,
    plan: RunPlan,
    sink: SessionSink,
    *,
    progress: Progress | None = None,
    wrap_agent: AgentWrapper | None = None,
) -> list[Session]:
    """Run every (scenario, trial, arm) not in `plan.skip` on Ray; return the sessions run
    now, each handed to `sink` (once) as soon as its result reaches the driver.

    `plan.concurrency` sessions are in flight at once, spread over one actor per CPU of the
    cluster (at most one per session slot). Raises `ConfigError` without the `ray` extra.
    """
    ray = import_ray()
    _, address = parse_executor(config.executor)
    grid = [
        (scenario.id, trial, arm_index, arm)
        for arm_index, arm in enumerate(plan.arms)
        for scenario in loaded.scenarios
        for trial in range(plan.trials)
    ]
    todo = [g for g in grid if (g[0], g[1], g[3]) not in plan.skip]
    if progress:
        progress.start(len(grid), len(grid) - len(todo))
    if not todo:
        return []
    spec = WorkerSpec(
        config=_shippable(config),
        run_id=plan.run_id,
        plan=plan,
        suite_hash=loaded.content_hash(),
        cwd=str(Path.cwd()),
        wrap_agent=wrap_agent,
    )
    with connect(address) as cpus:
        slots = max(1, min(plan.concurrency, len(todo)))
        n_actors = max(1, min(slots, cpus))
        actor_class = ray.remote(SessionWorker).options(
            num_cpus=1,
            max_concurrency=math.ceil(slots / n_actors),
            max_restarts=-1,
            max_task_retries=SESSION_RETRIES,
        )
        actors = [actor_class.remote(spec) for _ in range(n_actors)]
        try:
            return await _drive(ray, actors, todo, slots, sink, progress)
        finally:
            await _close(ray, actors)


async def _drive(
    ray: Any,
    actors: list[Any],
    todo: list[tuple[str, int, int, str]],
    slots: int,
    sink: SessionSink,
    progress: Progress | None,
) -> list[Session]:
    queue: asyncio.Queue[tuple[str, int, int, str]] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)
    finished: list[Session] = []
    stored: set[Key] = set()

    async def slot(actor: Any) -> None:
        while True:
            try:
                scenario_id, trial, arm_index, _ = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            try:
                session: Session = await actor.run.remote(scenario_id, trial, arm_index)
            except ray.exceptions.RayTaskError as exc:
                cause = _cause(exc)
                if isinstance(cause, SessionproofError):
                    raise cause from None
                raise InfraError(
                    f"session {scenario_id} trial {trial} failed on a Ray worker: "
                    f"{type(cause).__name__}: {cause}"
                ) from None
            except ray.exceptions.RayError as exc:
                raise InfraError(
                    f"session {scenario_id} trial {trial}: its Ray worker died "
                    f"{SESSION_RETRIES + 1} times ({type(exc).__name__}); "
                    "the run can be resumed"
                ) from None
            key = (session.scenario_id, session.trial, session.arm)
            if key in stored:
                continue  # a retried session that had finished already: keep the first
            stored.add(key)
            sink.write_session(session)
            finished.append(session)
            if progress:
                progress.advance(session)

    tasks = [asyncio.create_task(slot(actors[i % len(actors)])) for i in range(slots)]
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
    return finished


async def _close(ray: Any, actors: list[Any]) -> None:
    """Let each worker close its agents, then end it (a dead one is just ended)."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(asyncio.gather(*(a.close.remote() for a in actors)), 30)
    for actor in actors:
        with contextlib.suppress(Exception):
            ray.kill(actor)
