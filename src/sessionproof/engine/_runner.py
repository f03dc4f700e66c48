"""Runs a suite: scenarios × trials × arms over a bounded asyncio pool, writing each finished
session to the store once, so a killed run can resume."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from ..agents import Agent
from ..agents._internal import request_rank
from ..records import Scenario, Session
from ..users import InstructionUser, ScriptedUser, SimulatedUser, User
from ._boundary import NoHooks, ScenarioHooks, SessionHooks
from ._judge import JudgedSuite
from ._loop import (
    DEFAULT_AGENT_TIMEOUT_S,
    DEFAULT_MAX_ERRORS,
    DEFAULT_MAX_STEPS,
    SessionPlan,
    run_session,
)
from ._writer import GroupWriter, SessionSink

HooksFactory = Callable[[str, int, Scenario], SessionHooks]
"""(arm spec, session seed, scenario) → the hooks that make that arm's condition."""


class SessionList:
    """A sink that keeps finished sessions in memory, in the order they ended."""

    def __init__(self) -> None:
        self.sessions: list[Session] = []

    def write_session(self, session: Session) -> None:
        """Keep one finished session."""
        self.sessions.append(session)


class Progress(Protocol):
    """Told about the run as it goes (the CLI draws a progress bar)."""

    def start(self, total: int, done: int) -> None:
        """`total` sessions in the run, `done` of them finished before (resume)."""
        ...

    def advance(self, session: Session) -> None:
        """One more session finished."""
        ...


@dataclass
class RunPlan:
    """What to run: the grid and the limits."""

    run_id: str
    trials: int = 1
    arms: list[str] = field(default_factory=lambda: ["baseline"])
    seed: int = 0
    concurrency: int = 4
    request_slots: int | None = None
    """Model requests the run's sessions share at once (its provider gates' limit); None:
    as many as sessions at once. The last this many sessions queue their requests with one
    rank (`session_rank`)."""
    max_steps: int = DEFAULT_MAX_STEPS
    max_errors: int = DEFAULT_MAX_ERRORS
    agent_timeout: float | None = DEFAULT_AGENT_TIMEOUT_S
    """Seconds per agent decision before the session ends as a `timeout` agent error."""
    skip: set[tuple[str, int, str]] = field(default_factory=set)
    """(scenario id, trial, arm) keys already finished (resume)."""
    vary: Party | None = None
    """`run --vary`: only this party's seed changes from trial to trial; the others' and
    the environment's are fixed per scenario (None: every seed changes with the trial)."""


def is_reference(agent: object) -> bool:
    """True for a reference agent (`reference = True`, the oracle): the stand-in user makes
    the user's reference calls for it."""
    return getattr(agent, "reference", False) is True


def session_seed(seed: int, scenario_id: str, trial: int) -> int:
    """A per-session seed, equal across arms and models so conditions stay paired."""
    digest = hashlib.blake2b(f"{seed}|{scenario_id}|{trial}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


Party = Literal["agent", "user", "judge", "all"]
"""A party of a session whose seed `run --vary` can vary alone, or `all`: every seed
follows the trial, the simulated user's and the model judge's included (the reference of a
variance split)."""

PARTIES: tuple[Party, ...] = ("agent", "user", "judge", "all")


def party(value: str | None) -> Party | None:
    """`value` as a `Party` (None stays None); raises `ValueError` for any other name."""
    if value is None:
        return None
    for known in PARTIES:
        if value == known:
            return known
    raise ValueError(f"not a party whose seed can vary: {value!r}")


@dataclass(frozen=True)
class SessionSeeds:
    """The seeds of one session: the environment's (tools, conditions), the agent's, the
    simulated user's and the model judge's (None: the model's own, as in every run without
    `--vary`)."""

    environment: int
    agent: int
    user: int | None
    judge: int | None = None


def session_seeds(seed: int, scenario_id: str, trial: int, vary: Party | None) -> SessionSeeds:
    """Without `vary`, the session seed for the environment and the agent (what runs have
    always used) and no user seed. With `vary`, the varied party's seed follows the trial
    and every other seed is the one of trial 0 of the scenario: repeats of a scenario then
    differ in that party's sampling alone (as far as the other parties' providers are
    deterministic given their seed). `all`: every seed follows the trial, the user's and the
    judge's too."""
    if vary is None:
        same = session_seed(seed, scenario_id, trial)
        return SessionSeeds(same, same, None)
    if vary == "all":
        same = session_seed(seed, scenario_id, trial)
        user = session_seed(seed, f"{scenario_id}|user", trial)
        return SessionSeeds(same, same, user, session_seed(seed, f"{scenario_id}|judge", trial))
    fixed = session_seed(seed, scenario_id, 0)
    agent = session_seed(seed, scenario_id, trial) if vary == "agent" else fixed
    user = session_seed(seed, f"{scenario_id}|user", trial if vary == "user" else 0)
    judge = session_seed(seed, f"{scenario_id}|judge", trial if vary == "judge" else 0)
    return SessionSeeds(fixed, agent, user, judge)


def session_id(scenario_id: str, trial: int, arm_index: int, n_arms: int) -> str:
    """Readable, unique within a run: `scenario.t0` (plus `.a1` when several arms run)."""
    base = f"{scenario_id}.t{trial}"
    return f"{base}.a{arm_index}" if n_arms > 1 else base


def user_for(
    scenario: Scenario,
    user_model: Agent | None,
    seed: int | None = None,
    *,
    reference: bool = False,
) -> User:
    """Scripted turns when the scenario has them; else a simulated user (its requests carry
    `seed`, when given), or the scenario's instructions as one message when no user model
    is available. A scripted user makes the scenario's own user calls (`UserSpec.actions`:
    part of its script); the stand-in of a simulated user makes them only for a `reference`
    agent (the oracle: the user's share of the reference), never for an agent under test,
    whose score would otherwise count fixes nobody guided. A simulated user decides its own."""
    spec = scenario.user
    if spec.turns:
        return ScriptedUser(spec.turns, spec.actions)
    instructions = spec.instructions or ""
    if user_model is None:
        return InstructionUser(instructions, spec.actions if reference else ())
    return SimulatedUser(user_model, instructions, spec.persona, seed)


def plan_session(
    plan: RunPlan,
    scenario: Scenario,
    trial: int,
    arm_index: int,
    hooks_for: HooksFactory,
    user_model: Agent | None,
    *,
    reference: bool = False,
) -> tuple[SessionPlan, User]:
    """The plan and the user of one session of `plan`: its seed, id and arm hooks, the
    scenario as the arm rewrites it (perturbations) and the user the arm wraps. Every
    executor calls this, so the same seed gives the same session wherever it runs."""
    arm = plan.arms[arm_index]
    seeds = session_seeds(plan.seed, scenario.id, trial, plan.vary)
    seed = seeds.environment
    hooks = hooks_for(arm, seed, scenario)
    # One check: a runtime protocol's isinstance walks its members (~30 µs a session).
    rewriting = hooks if isinstance(hooks, ScenarioHooks) else None
    runs = scenario if rewriting is None else rewriting.rewrite(scenario)
    user = user_for(runs, user_model, seeds.user, reference=reference)
    if rewriting is not None:
        user = rewriting.wrap_user(user)
    session_plan = SessionPlan(
        run_id=plan.run_id,
        session_id=session_id(scenario.id, trial, arm_index, len(plan.arms)),
        scenario=runs,
        trial=trial,
        arm=arm,
        seed=seed,
        agent_seed=None if seeds.agent == seed else seeds.agent,
        judge_seed=seeds.judge,
        metadata={} if plan.vary is None else {"vary": _vary_record(plan.vary, seeds)},
        max_steps=scenario.max_steps or plan.max_steps,
        max_errors=plan.max_errors,
        agent_timeout=plan.agent_timeout,
        hooks=hooks,
    )
    return session_plan, user


def _vary_record(party: Party, seeds: SessionSeeds) -> dict[str, object]:
    return {
        "party": party,
        "environment_seed": seeds.environment,
        "agent_seed": seeds.agent,
        "user_seed": seeds.user,
        "judge_seed": seeds.judge,
    }


RunItem = tuple[str, int, int, str]
"""One session of a run's grid: (scenario id, trial, arm index, arm)."""


def todo_items(suite: JudgedSuite, plan: RunPlan) -> list[RunItem]:
    """The sessions of `plan` over `suite` still to run (those not in `plan.skip`), in the
    order every executor starts them: arm by arm, scenario by scenario, trial by trial."""
    return [
        (scenario.id, trial, arm_index, arm)
        for arm_index, arm in enumerate(plan.arms)
        for scenario in suite.scenarios
        for trial in range(plan.trials)
        if (scenario.id, trial, arm) not in plan.skip
    ]


def session_rank(position: int, total: int, slots: int) -> int:
    """The rank the requests of the session at `position` of a run's `total` queue with at
    provider gates of `slots` places: its position, but one shared rank for the last `slots`
    sessions, so they advance together and keep every place busy to the end (see
    `agents._ranked`)."""
    return min(position, max(0, total - slots))


_STARTED_TOGETHER = 16
"""Sessions started in one pass of the event loop."""


def _no_hooks(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
    return NoHooks()


async def execute_run(
    suite: JudgedSuite,
    agent: Agent,
    plan: RunPlan,
    sink: SessionSink,
    *,
    user_model: Agent | None = None,
    hooks_for: HooksFactory = _no_hooks,
    progress: Progress | None = None,
) -> list[Session]:
    """Run every (scenario, trial, arm) not in `plan.skip`; return the sessions run now.

    Each session is handed to `sink` as soon as it ends, on one writer thread (a store write
    costs milliseconds of CPU per session, most of it in DuckDB, which releases the GIL: on
    the loop's thread it stalled every session in flight); sessions that end while a write
    is under way go together in the next (`GroupWriter`). Writes stay in the order sessions
    end, and a session counts as finished (progress, the returned list) only once its write
    has returned, so a killed run loses nothing it acknowledged.

    `plan.concurrency` sessions run at once; model requests are bounded apart, by the
    agents' provider gates, where a session's requests queue by its place in the run (the
    first sessions end first, the run takes no longer: `agents._ranked`). What the domains
    share is preloaded while the first requests wait for their answers (`_preload`).
    """
    by_id = {scenario.id: scenario for scenario in suite.scenarios}
    reference = is_reference(agent)
    todo = todo_items(suite, plan)
    if progress:
        progress.start(len(todo) + len(plan.skip), len(plan.skip))
    queue: asyncio.Queue[tuple[int, Scenario, int, int]] = asyncio.Queue()
    for position, (scenario_id, trial, arm_index, _) in enumerate(todo):
        queue.put_nowait((position, by_id[scenario_id], trial, arm_index))
    slots = max(1, plan.request_slots or plan.concurrency)
    finished: list[Session] = []
    writer = GroupWriter(sink)

    async def worker() -> None:
        while True:
            try:
                position, scenario, trial, arm_index = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            session_plan, user = plan_session(
                plan, scenario, trial, arm_index, hooks_for, user_model, reference=reference
            )
            with request_rank(session_rank(position, len(todo), slots)):
                session = await run_session(session_plan, suite, agent, user)
            await writer.write(session)
            finished.append(session)
            if progress:
                progress.advance(session)

    workers: list[asyncio.Task[None]] = []
    try:
        for i in range(max(1, plan.concurrency)):
            workers.append(asyncio.create_task(worker()))
            if i % _STARTED_TOGETHER == _STARTED_TOGETHER - 1:
                # Let the loop poll its sockets between groups: a session's set-up costs
                # ~0.4 ms, and hundreds set up in one pass held every first request (and its
                # connection) back until all were done (~0.2 s for 600 sessions).
                await asyncio.sleep(0)
        running = [by_id[scenario_id] for scenario_id in dict.fromkeys(t[0] for t in todo)]
        workers.append(asyncio.create_task(_preload(suite, running)))
        await asyncio.gather(*workers)
    finally:
        for w in workers:
            w.cancel()
        writer.close()
    return finished


async def _preload(suite: JudgedSuite, scenarios: Sequence[Scenario]) -> None:
    """Load what the domains of `scenarios` (distinct ones) share (`DomainSpec.preload`: a
    base DB and its digest) once the first sessions have sent their requests, while the
    loop waits for answers.

    Otherwise the first verdict computed the digest of the whole base DB (~80 ms for tau2
    airline) on the loop, in the burst where the first sessions end, with every other
    session's answers waiting behind it."""
    await asyncio.sleep(0)
    try:
        specs = {id(spec): spec for spec in map(suite.domain_for, scenarios)}
        for spec in specs.values():
            spec.preload()
    except Exception:
        # Only a cache filled early: the sessions meet the same failure when they load the
        # domain, and report it.
        return
