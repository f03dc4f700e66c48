"""`run` and `resume`: execute a `RunConfig`, storing every session as it ends."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import importlib
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

from .._gc import tuned_gc
from ..agents import Agent
from ..agents._internal import RateLimiter, RateLimits, display_spec, serves_model_faults
from ..conditions import parse_arm
from ..engine import Progress, execute_run
from ..engine._internal import RunPlan, SessionList, party, todo_items
from ..errors import ConfigError, SessionproofError, StoreError
from ..executors._internal import (
    agents_for,
    execute_processes,
    hooks_factory,
    load,
    shares,
    worker_count,
)
from ..patterns._internal import tokens_of, view_made
from ..records import Session
from ..report.html._internal import warm_drill
from ..scoring import compare_arms
from ..scoring._internal import (
    MetricsWarmer,
    TraceCache,
    faults_report,
    first_summary,
    summaries_by_arm,
    tally_made,
    turn_report,
)
from ..store import RunManifest, Store
from ..store._internal import new_run_id, recorded_run, scrub_text
from ..suites import Suite
from ..suites._internal import has_per_turn_criteria
from ._config import RunConfig, model_name, parse_executor, suite_reference
from ._judged import costs_by_arm, judging
from ._live import exporting
from ._ray import execute_ray, ray_spec, worker_spec
from ._report import MINED_AT, default_report_path
from ._report import report as write_report
from ._results import RunReport, RunStart
from ._stopped import stop_writing
from ._vary import check_vary

StartHook = Callable[[RunStart], None]
"""Told once, when the run is recorded and about to execute (the CLI prints a line)."""


def rate_limiter(config: RunConfig) -> RateLimiter:
    """The run's rate limiter: one gate per provider/model, shared by the agent and the
    simulated user, bounded by the run's concurrency and `--rpm` / `--tpm`."""
    return RateLimiter(config.workers, RateLimits(rpm=config.rpm, tpm=config.tpm))


@contextlib.asynccontextmanager
async def run_agents(
    config: RunConfig, limiter: RateLimiter | None = None
) -> AsyncIterator[tuple[Agent, Agent | None]]:
    """(the agent, who plays simulated users or None) for `config`, closing the agents made
    from specs (the one rule, `agents_for`, that Ray workers follow too). Agents made from
    specs send their requests through `limiter`."""
    async with agents_for(
        config.model,
        config.user_model,
        tool_mode=config.tool_mode,
        seed=config.seed,
        limiter=limiter,
    ) as agents:
        _check_model_faults(config, agents[0])
        yield agents


def _check_model_faults(config: RunConfig, agent: Agent) -> None:
    """Refuse an arm with model faults for an agent that sends no provider request (said at
    the start, never a run whose faults silently did not happen)."""
    faulted = [a for a in config.arm_names if "model_faults=" in a]
    if faulted and not serves_model_faults(agent):
        raise ConfigError(
            f"arm {faulted[0]!r}: model faults need a provider model (openai:, "
            f"openai-compat:, anthropic:, local...); {model_name(agent)!r} sends no provider "
            "request to fault"
        )


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
        options={
            "tool_mode": config.tool_mode,
            "agent_timeout": config.agent_timeout,
            # Only when asked for, so manifests of ordinary runs stay as they were.
            **({"reading": config.reading} if config.reading != "own" else {}),
            "executor": scrub_text(config.executor),
            # Kept for `resume`, which would otherwise run on without the provider's limits.
            **({"rpm": config.rpm} if config.rpm is not None else {}),
            **({"tpm": config.tpm} if config.tpm is not None else {}),
            **({"vary": config.vary} if config.vary is not None else {}),
            **({"judge": display_spec(config.judge)} if config.judge is not None else {}),
        },
        scenario_ids=[s.id for s in loaded.scenarios],
        argv=list(argv or []),
    )


async def arun(
    config: RunConfig,
    progress: Progress | None = None,
    *,
    on_start: StartHook | None = None,
    argv: Sequence[str] | None = None,
    html: bool = False,
) -> RunReport:
    """Async form of `run`."""
    loaded = load(config.suite, config.limit, config.reading)
    with exporting(config.export, progress, suite_reference(config.suite), config.prices) as told:
        async with judging(config, loaded):
            if config.store is None:
                return await _in_memory(config, loaded, told, on_start)
            manifest = new_manifest(config, loaded, argv)
            with Store.open(config.store) as db:
                return await execute(db, config, loaded, manifest, told, on_start, html=html)


def run(
    config: RunConfig,
    progress: Progress | None = None,
    *,
    on_start: StartHook | None = None,
    argv: Sequence[str] | None = None,
    html: bool = False,
) -> RunReport:
    """Run `config`: every scenario × trial × arm, each session stored the moment it ends
    (in `config.store`, under a new run that `resume` continues if this one is killed).

    `progress` is told of every finished session (and, with `config.export`, each session's
    spans go to that collector as it ends); `on_start` once, before the first; `argv`
    is recorded in the manifest. `html`: also write the run's HTML report next to the store
    (`default_report_path`; the result's `html_report`, or `html_error` when it could not
    be written). Raises `ConfigError` (and its kin) for a bad suite, model or arm; an
    interrupted run is marked `interrupted` and re-raises.
    """
    return asyncio.run(arun(config, progress, on_start=on_start, argv=argv, html=html))


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
        vary=party(config.vary),
    )


async def _sessions(
    config: RunConfig,
    agent: Agent,
    user: Agent | None,
    loaded: Suite,
    plan: RunPlan,
    sink: Store | SessionList,
    progress: Progress | None,
    limiter: RateLimiter,
) -> list[Session]:
    if parse_executor(config.executor)[0] != "local":
        spec = ray_spec(config, plan, loaded)
        return await execute_ray(spec, loaded, plan, sink, progress, config.executor)
    plan = dataclasses.replace(
        plan, concurrency=config.sessions_at_once(limiter.gated), request_slots=config.workers
    )
    n = config.processes()
    with tuned_gc():
        if n > 1:
            return await _in_processes(config, loaded, plan, sink, progress, limiter, n)
        hooks = hooks_factory(plan.arms, loaded)
        if hooks is None:
            return await execute_run(loaded, agent, plan, sink, user_model=user, progress=progress)
        return await execute_run(
            loaded, agent, plan, sink, user_model=user, hooks_for=hooks, progress=progress
        )


async def _in_processes(
    config: RunConfig,
    loaded: Suite,
    plan: RunPlan,
    sink: Store | SessionList,
    progress: Progress | None,
    limiter: RateLimiter,
    n: int,
) -> list[Session]:
    """The local executor over `n` forked worker processes, the limits split between them."""
    todo = todo_items(loaded, plan)
    if progress:
        progress.start(len(todo) + len(plan.skip), len(plan.skip))
    if not todo:
        return []
    # Loaded once here, before the fork, rather than once per worker.
    domains = {d.name: d for d in map(loaded.domain_for, loaded.scenarios)}
    for domain in domains.values():
        domain.preload()
    # Forked workers inherit the loaded suite itself (already cut and in its reading).
    spec = dataclasses.replace(
        worker_spec(config, plan, loaded), suite=loaded, limit=None, reading="own"
    )
    n = worker_count(n, len(todo), plan.concurrency)
    parts = shares(config.workers, plan.concurrency, limiter.limits, n)
    ran = await execute_processes(spec, todo, sink, parts, progress)
    for stats in ran.stats:
        limiter.absorb(stats)
    return ran.sessions


async def execute(
    db: Store,
    config: RunConfig,
    loaded: Suite,
    manifest: RunManifest,
    progress: Progress | None,
    on_start: StartHook | None,
    *,
    skip: set[tuple[str, int, str]] | None = None,
    html: bool = False,
) -> RunReport:
    """Run `config` into `db` under `manifest`, then report over every stored session (and
    write the HTML report when `html`).

    A fresh run (`skip` None) creates the manifest; a resumed one passes the keys it has
    finished. The agents are made first, so a model that cannot be made records nothing.
    """
    warming = imports = None
    if html:
        # The report reads back every session: kept as written, they need no second decoding,
        # and their per-session metrics are made as they end, while the run waits on models.
        db.keep_written()
        imports = threading.Thread(target=_import_report_parts, name="sessionproof-report-imports")
        imports.start()
        warming = _Warming(
            progress,
            MetricsWarmer({s.id: s for s in loaded.scenarios}, loaded.domain_for),
            lambda: db.keeping,
        )
        progress = warming
    plan = _plan(config, manifest.run_id, skip or set())
    limiter = rate_limiter(config)
    # One tuned block over the sessions and their report: between two blocks the collector
    # was back at its defaults over every session just run, and its first collections (~35
    # ms after 600 tau2 sessions) fell on the report's first query.
    with tuned_gc():
        async with run_agents(config, limiter) as (agent, user):
            check_vary(config.vary, agent, user, loaded.scenarios, loaded.nl_judge)
            # A crash leaves the run `running`, so `resume` can finish it.
            with recorded_run(db, manifest, create=skip is None, on_error=None):
                if on_start is not None:
                    on_start(_start(config, manifest.run_id, loaded, len(plan.skip)))
                try:
                    finished = await _sessions(
                        config, agent, user, loaded, plan, db, progress, limiter
                    )
                except StoreError as exc:
                    stop_writing(db, manifest.run_id, exc)
        report = report_stored(
            db, manifest.run_id, plan.arms, config.store, len(plan.skip), finished, loaded
        )
        report.concurrency = limiter.stats()
        every = finished if not plan.skip else db.load_sessions(manifest.run_id)
        traces = None if warming is None else warming.traces
        report.cost_by_arm = costs_by_arm(every, plan.arms, config.prices, traces)
        if imports is not None:
            imports.join()  # long done, but the report should not race it
        if html:
            try:
                path = default_report_path(db.path, manifest.run_id)
                written = write_report(
                    [manifest.run_id],
                    path,
                    db,
                    suite=loaded,
                    traces=traces,
                    prices=config.prices,
                    costs=report.cost_by_arm,
                )
                report.html_report = str(written)
            except SessionproofError as exc:
                # The run is stored; a report that cannot be written is not its failure.
                report.html_error = str(exc)
    return report


REPORT_IMPORTS = ("numpy.random", "numpy.ma")
"""What the report imports that nothing before it in a run does: NumPy's generators (its
bootstrap intervals) and numpy.ma (looked up by `np.unique`, which mining calls)."""


def _import_report_parts() -> None:
    """Import `REPORT_IMPORTS` on a side thread while the run starts, and waits on models.

    Imported by the report itself, they cost ~14 ms (a dozen extension modules) after the
    last model answer, on the main thread, before the run could end.
    """
    for name in REPORT_IMPORTS:
        with contextlib.suppress(ImportError):  # the report will say so itself
            importlib.import_module(name)


class _Warming:
    """The run's progress, told first; then what the report needs of the session is made:
    its metrics, its cost tally, its tokens for mining (the granularity the report mines at) and its
    drill-down rows. Only while the store keeps what it writes: past that, the report reads
    the sessions back from the file, new objects that nothing made here is keyed by."""

    def __init__(
        self, inner: Progress | None, warmer: MetricsWarmer, keeping: Callable[[], bool]
    ) -> None:
        self._inner = inner
        self._warmer: MetricsWarmer | None = warmer
        self._keeping = keeping

    @property
    def traces(self) -> TraceCache | None:
        """What was made, for the report (None once the store stopped keeping)."""
        return None if self._warmer is None else self._warmer.traces

    def start(self, total: int, done: int) -> None:
        """As the wrapped progress."""
        if self._inner is not None:
            self._inner.start(total, done)

    def advance(self, session: Session) -> None:
        """Tell the wrapped progress, then make `session`'s metrics, cost tally, tokens, motif
        view and drill-down rows."""
        if self._inner is not None:
            self._inner.advance(session)
        if self._warmer is None:
            return
        if not self._keeping():
            self._warmer = None  # and with it all it made: no read would find any of it
            return
        self._warmer.add(session)
        tally_made(session, self._warmer.traces)
        tokens_of(session, MINED_AT, self._warmer.traces)
        if session.verdict is not None:  # the motifs read judged sessions only
            view_made(session, self._warmer.traces)
        warm_drill(session, self._warmer.scenario(session), self._warmer.traces)


def suite_writes(loaded: Suite) -> Callable[[Session], set[str] | None]:
    """A session's domain write tools (None when its scenario or domain is not found), each
    scenario's domain asked once: what the fault detection rules tell reads from writes by."""
    scenarios = {s.id: s for s in loaded.scenarios}

    @functools.cache
    def of(scenario_id: str) -> frozenset[str] | None:
        scenario = scenarios.get(scenario_id)
        if scenario is None:
            return None
        try:
            return frozenset(t.name for t in loaded.domain_for(scenario).tools() if t.write)
        except SessionproofError:
            return None

    def writes(session: Session) -> set[str] | None:
        found = of(session.scenario_id)
        return None if found is None else set(found)

    return writes


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
    loaded: Suite,
) -> RunReport:
    """The report of a stored run: its summary over every session, arms compared, per-turn
    accuracy in both readings when `loaded` has per-turn criteria, and its breakdowns. The
    stored sessions are read once, and only when one of those needs them."""
    rows = db.session_rows(run_id)
    stored = functools.cache(lambda: db.load_sessions(run_id))
    comparison = None
    if len(arms) > 1:
        rows_by_arm = {a: [r for r in rows if r.arm == a] for a in arms}
        sessions_by_arm = {a: [s for s in stored() if s.arm == a] for a in arms}
        comparison = compare_arms(rows_by_arm, sessions_by_arm, suite_writes(loaded))
    per_turn = any(has_per_turn_criteria(s) for s in loaded.scenarios)
    by_arm = summaries_by_arm(rows, arms)
    faults = None
    if len(arms) == 1 and parse_arm(arms[0], read_files=False).faults is not None:
        faults = faults_report(stored(), suite_writes(loaded))
    report = RunReport(
        run_id=run_id,
        store=None if store is None else str(store),
        arms=list(arms),
        resumed_sessions=resumed,
        summary=first_summary(by_arm),
        summary_by_arm=by_arm,
        comparison=comparison,
        turns=turn_report(stored()) if per_turn else None,
        faults=faults,
        sessions=finished,
    )
    return with_breakdowns(report, loaded, stored)


async def _in_memory(
    config: RunConfig, loaded: Suite, progress: Progress | None, on_start: StartHook | None
) -> RunReport:
    run_id = new_run_id()
    plan = _plan(config, run_id, set())
    if on_start is not None:
        on_start(_start(config, run_id, loaded, 0))
    sink = SessionList()
    limiter = rate_limiter(config)
    async with run_agents(config, limiter) as (agent, user):
        check_vary(config.vary, agent, user, loaded.scenarios, loaded.nl_judge)
        await _sessions(config, agent, user, loaded, plan, sink, progress, limiter)
    sessions = sink.sessions
    comparison = None
    if len(plan.arms) > 1:
        by_arm = {a: [s for s in sessions if s.arm == a] for a in plan.arms}
        comparison = compare_arms(by_arm, by_arm, suite_writes(loaded))
    summaries = summaries_by_arm(sessions, plan.arms)
    faults = faults_report(sessions, suite_writes(loaded)) if len(plan.arms) == 1 else None
    report = RunReport(
        run_id=run_id,
        store=None,
        arms=plan.arms,
        summary=first_summary(summaries),
        summary_by_arm=summaries,
        comparison=comparison,
        turns=turn_report(sessions),
        faults=faults,
        sessions=sessions,
        concurrency=limiter.stats(),
        cost_by_arm=costs_by_arm(sessions, plan.arms, config.prices),
    )
    return with_breakdowns(report, loaded, lambda: sessions)
