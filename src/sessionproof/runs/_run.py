"""`run` and `resume`: execute a `RunConfig`, storing every session as it ends."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

from ..agents import Agent, display_spec, plays_users
from ..engine import HooksFactory, Progress, RunPlan, SessionHooks, SessionList, execute_run
from ..records import Scenario, Session
from ..scoring import compare_arms, summarize
from ..store import RunManifest, Store, new_run_id, recorded_run
from ..suites import Suite, load_suite
from ._config import RunConfig, model_name, suite_reference
from ._results import RunReport, RunStart

StartHook = Callable[[RunStart], None]
"""Told once, when the run is recorded and about to execute (the CLI prints a line)."""


def hooks_factory(arms: Sequence[str], suite: Suite | None = None) -> HooksFactory | None:
    """The engine's hooks for each arm's condition; None for a baseline-only run. `suite`
    gives a perturbation the scenario's domain (to check its rewritten gold calls)."""
    if list(arms) == ["baseline"]:
        return None
    from ..conditions import hooks_for, parse_arm

    conditions = {a: parse_arm(a) for a in arms}  # parse up front: a bad spec fails fast

    def make(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
        # Drift lands on a tool the task uses, so it meets the agent's path.
        gold_tools = [a.tool for a in scenario.criteria.gold_actions]
        condition = conditions[arm]
        domain = None
        if condition.perturb is not None and suite is not None:
            domain = suite.domain_for(scenario)
        return hooks_for(condition, seed, prefer_tools=gold_tools, domain=domain)

    return make


def load(suite: str | Suite, limit: int | None) -> Suite:
    """The suite a config names, cut to its first `limit` scenarios."""
    return (load_suite(suite) if isinstance(suite, str) else suite).limited(limit)


@contextlib.asynccontextmanager
async def run_agents(config: RunConfig) -> AsyncIterator[tuple[Agent, Agent | None]]:
    """(the agent, who plays simulated users or None), closing the agents made from specs.

    A separate `user_model` plays users; else the agent itself when it is a model (a
    reference agent gets the scenario's instructions as one message instead).
    """
    from ..agents import make_agent

    made: list[Agent] = []
    try:
        agent = config.model
        if isinstance(agent, str):
            agent = make_agent(agent, tool_mode=config.tool_mode, seed=config.seed)
            made.append(agent)
        user: Agent | None = None
        wanted = config.user_model
        if isinstance(wanted, str) and wanted and wanted != config.model:
            user = make_agent(wanted, tool_mode="native", seed=config.seed)
            made.append(user)
        elif wanted is not None and not isinstance(wanted, str):
            user = wanted
        elif plays_users(agent):
            user = agent
        yield agent, user
    finally:
        for each in reversed(made):
            await each.aclose()


def new_manifest(
    config: RunConfig, loaded: Suite, argv: Sequence[str] | None = None
) -> RunManifest:
    """The manifest of a fresh run of `config` over `loaded`."""
    user = config.user_model
    return RunManifest(
        run_id=new_run_id(),
        command="run",
        suite=suite_reference(config.suite),
        suite_hash=loaded.content_hash(),
        model=model_name(config.model),
        user_model=None if user is None else model_name(user),
        seed=config.seed,
        trials=config.trials,
        arms=config.arm_names,
        max_steps=config.max_steps,
        limit=config.limit,
        concurrency=config.workers,
        options={"tool_mode": config.tool_mode, "agent_timeout": config.agent_timeout},
        scenario_ids=[s.id for s in loaded.scenarios],
        argv=list(argv or []),
    )


async def arun(
    config: RunConfig,
    progress: Progress | None = None,
    *,
    on_start: StartHook | None = None,
    argv: Sequence[str] | None = None,
) -> RunReport:
    """Async form of `run`."""
    loaded = load(config.suite, config.limit)
    if config.store is None:
        return await _in_memory(config, loaded, progress, on_start)
    manifest = new_manifest(config, loaded, argv)
    with Store.open(config.store) as db:
        return await execute(db, config, loaded, manifest, progress, on_start)


def run(
    config: RunConfig,
    progress: Progress | None = None,
    *,
    on_start: StartHook | None = None,
    argv: Sequence[str] | None = None,
) -> RunReport:
    """Run `config`: every scenario × trial × arm, each session stored the moment it ends
    (in `config.store`, under a new run that `resume` continues if this one is killed).

    `progress` is told of every finished session; `on_start` once, before the first; `argv`
    is recorded in the manifest. Raises `ConfigError` (and its kin) for a bad suite, model or
    arm; an interrupted run is marked `interrupted` and re-raises.
    """
    return asyncio.run(arun(config, progress, on_start=on_start, argv=argv))


def _start(config: RunConfig, run_id: str, loaded: Suite, done: int) -> RunStart:
    suite = config.suite if isinstance(config.suite, str) else config.suite.name
    model = config.model
    return RunStart(
        run_id=run_id,
        suite=suite,
        scenarios=len(loaded.scenarios),
        trials=config.trials,
        arms=config.arm_names,
        model=display_spec(model) if isinstance(model, str) else model.name,
        resumed_sessions=done,
    )


def _plan(config: RunConfig, run_id: str, skip: set[tuple[str, int, str]]) -> RunPlan:
    return RunPlan(
        run_id=run_id,
        trials=config.trials,
        arms=config.arm_names,
        seed=config.seed,
        concurrency=config.workers,
        max_steps=config.max_steps,
        agent_timeout=config.agent_timeout,
        skip=skip,
    )


async def _sessions(
    agent: Agent,
    user: Agent | None,
    loaded: Suite,
    plan: RunPlan,
    sink: Store | SessionList,
    progress: Progress | None,
) -> list[Session]:
    hooks = hooks_factory(plan.arms, loaded)
    if hooks is None:
        return await execute_run(loaded, agent, plan, sink, user_model=user, progress=progress)
    return await execute_run(
        loaded, agent, plan, sink, user_model=user, hooks_for=hooks, progress=progress
    )


async def execute(
    db: Store,
    config: RunConfig,
    loaded: Suite,
    manifest: RunManifest,
    progress: Progress | None,
    on_start: StartHook | None,
    *,
    skip: set[tuple[str, int, str]] | None = None,
) -> RunReport:
    """Run `config` into `db` under `manifest`, then report over every stored session.

    A fresh run (`skip` None) creates the manifest; a resumed one passes the keys it has
    finished. The agents are made first, so a model that cannot be made records nothing.
    """
    plan = _plan(config, manifest.run_id, skip or set())
    async with run_agents(config) as (agent, user):
        # A crash leaves the run `running`, so `resume` can finish it.
        with recorded_run(db, manifest, create=skip is None, on_error=None):
            if on_start is not None:
                on_start(_start(config, manifest.run_id, loaded, len(plan.skip)))
            finished = await _sessions(agent, user, loaded, plan, db, progress)
    report = report_stored(db, manifest.run_id, plan.arms, config.store, len(plan.skip), finished)
    return with_breakdowns(report, loaded, lambda: db.load_sessions(manifest.run_id))


def with_breakdowns(
    report: RunReport, loaded: Suite, sessions: Callable[[], Sequence[Session]]
) -> RunReport:
    """`report` with the suite's own breakdown tables of each arm's `sessions()` (read only
    when the suite has breakdowns)."""
    if type(loaded).breakdowns is Suite.breakdowns:
        return report
    every = sessions()
    found = {}
    for arm in report.arms:
        tables = loaded.breakdowns([s for s in every if s.arm == arm])
        if tables is not None:
            found[arm] = tables
    return report.model_copy(update={"breakdowns": found}) if found else report


def report_stored(
    db: Store,
    run_id: str,
    arms: Sequence[str],
    store: Path | None,
    resumed: int,
    finished: list[Session],
) -> RunReport:
    """The report of a stored run: its summary over every session, arms compared."""
    rows = db.session_rows(run_id)
    comparison = None
    if len(arms) > 1:
        rows_by_arm = {a: [r for r in rows if r.arm == a] for a in arms}
        sessions_by_arm = {a: db.load_sessions(run_id, arm=a) for a in arms}
        comparison = compare_arms(rows_by_arm, sessions_by_arm)
    return RunReport(
        run_id=run_id,
        store=None if store is None else str(store),
        arms=list(arms),
        resumed_sessions=resumed,
        summary=summarize(rows),
        comparison=comparison,
        sessions=finished,
    )


async def _in_memory(
    config: RunConfig, loaded: Suite, progress: Progress | None, on_start: StartHook | None
) -> RunReport:
    run_id = new_run_id()
    plan = _plan(config, run_id, set())
    if on_start is not None:
        on_start(_start(config, run_id, loaded, 0))
    sink = SessionList()
    async with run_agents(config) as (agent, user):
        await _sessions(agent, user, loaded, plan, sink, progress)
    sessions = sink.sessions
    comparison = None
    if len(plan.arms) > 1:
        by_arm = {a: [s for s in sessions if s.arm == a] for a in plan.arms}
        comparison = compare_arms(by_arm, by_arm)
    report = RunReport(
        run_id=run_id,
        store=None,
        arms=plan.arms,
        summary=summarize(sessions),
        comparison=comparison,
        sessions=sessions,
    )
    return with_breakdowns(report, loaded, lambda: sessions)
