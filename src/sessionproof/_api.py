"""The short Python API: run a suite with an agent, get typed sessions and a summary."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from .agents import Agent, plays_users
from .engine import RunPlan, SessionList, execute_run
from .records import Session
from .scoring import RunSummary, summarize
from .suites import Suite, load_suite


class RunResult(BaseModel):
    """Sessions of a run (each with its `outcome`) and their summary."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    sessions: list[Session]
    summary: RunSummary


async def arun_suite(
    suite: str | Suite = "demo",
    agent: str | Agent = "oracle",
    *,
    trials: int = 1,
    limit: int | None = None,
    seed: int = 0,
    concurrency: int = 4,
    max_steps: int = 40,
    user_model: Agent | None = None,
    store: str | Path | None = None,
) -> RunResult:
    """Async form of `run_suite`."""
    from .agents import make_agent
    from .store import RunManifest, Store, new_run_id

    loaded = (load_suite(suite) if isinstance(suite, str) else suite).limited(limit)
    the_agent: Agent = make_agent(agent, seed=seed) if isinstance(agent, str) else agent
    run_id = new_run_id()
    plan = RunPlan(
        run_id=run_id, trials=trials, seed=seed, concurrency=concurrency, max_steps=max_steps
    )
    sink = SessionList()
    if user_model is None and plays_users(the_agent):
        user_model = the_agent  # as in `sessionproof run`: the agent's model plays the user
    try:
        await execute_run(loaded, the_agent, plan, sink, user_model=user_model)
    finally:
        if isinstance(agent, str):
            await the_agent.aclose()
    if store is not None:
        with Store.open(store) as db:
            db.create_run(
                RunManifest(
                    run_id=run_id,
                    command="run",
                    suite=loaded.name,
                    suite_hash=loaded.content_hash(),
                    model=the_agent.name,
                    seed=seed,
                    trials=trials,
                    arms=["baseline"],
                    max_steps=max_steps,
                    limit=limit,
                    scenario_ids=[s.id for s in loaded.scenarios],
                )
            )
            for session in sink.sessions:
                db.write_session(session)
            db.set_status(run_id, "finished")
    return RunResult(run_id=run_id, sessions=sink.sessions, summary=summarize(sink.sessions))


def run_suite(
    suite: str | Suite = "demo",
    agent: str | Agent = "oracle",
    *,
    trials: int = 1,
    limit: int | None = None,
    seed: int = 0,
    concurrency: int = 4,
    max_steps: int = 40,
    user_model: Agent | None = None,
    store: str | Path | None = None,
) -> RunResult:
    """Run `suite` (a name, a scenario file, or a `Suite`) with `agent` (a model spec string
    or any `Agent`) and return every session with its verdict, plus the summary.

    Simulated users are played by `user_model`, by default the agent itself when it is a
    model (reference agents state the scenario's instructions instead), as in `run`. With
    `store`, the run is also written to that DuckDB file like `sessionproof run` does.
    """
    return asyncio.run(
        arun_suite(
            suite,
            agent,
            trials=trials,
            limit=limit,
            seed=seed,
            concurrency=concurrency,
            max_steps=max_steps,
            user_model=user_model,
            store=store,
        )
    )
