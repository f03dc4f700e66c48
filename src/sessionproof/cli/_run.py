"""`sessionproof run`: run a suite against a model and store every session."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from ..agents import Agent, plays_users
from ..engine import HooksFactory, RunPlan, SessionHooks, execute_run
from ..errors import ConfigError
from ..records import Scenario
from ..report import render_summary
from ..scoring import METRIC_DEFINITIONS, summarize
from ..store import DEFAULT_STORE_PATH, RunManifest, Store, new_run_id
from ..suites import BUILTIN_SUITES, load_suite
from ._app import app, err_console, out_console
from ._progress import RunProgress

RUN_HELP = (
    "Run a suite of multi-turn scenarios against a model; store every session.\n\n"
    "Suites: "
    + "; ".join(f"{k} ({v})" for k, v in BUILTIN_SUITES.items())
    + "; or a path to a scenario .yaml/.json file.\n\n"
    "Models: local, local:PATH.gguf, oracle, openai:MODEL, openai-compat:MODEL@URL, "
    "anthropic:MODEL, python:pkg.module:function.\n\n"
    + "\n\n".join(f"{k}: {v}" for k, v in METRIC_DEFINITIONS.items())
)


def _make_agent(spec: str, tool_mode: str, seed: int) -> Agent:
    from ..agents import make_agent

    agent: Agent = make_agent(spec, tool_mode=tool_mode, seed=seed)  # type: ignore[arg-type]
    return agent


def _arms(arm: list[str], faults: str | None, drift: str | None, guard: bool | None) -> list[str]:
    if arm and (faults or drift or guard is not None):
        raise ConfigError("use either --arm or --faults/--drift/--guard, not both")
    if arm:
        from ..conditions import parse_arm

        names = [parse_arm(a).name for a in arm]  # normalised, and junk fails fast
        if len(set(names)) != len(names):
            raise ConfigError("the same --arm was given twice")
        return names
    parts = [f"faults={faults}"] if faults else []
    if drift:
        parts.append(f"drift={drift}")
    if guard:
        parts.append("guard")
    return [" ".join(parts) or "baseline"]


def _hooks_factory(arms: list[str]) -> HooksFactory | None:
    if arms == ["baseline"]:
        return None
    from ..conditions import hooks_for, parse_arm

    conditions = {a: parse_arm(a) for a in arms}  # parse up front: a bad spec fails fast

    def make(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
        # Drift lands on a tool the task uses, so it meets the agent's path.
        gold_tools = [a.tool for a in scenario.criteria.gold_actions]
        return hooks_for(conditions[arm], seed, prefer_tools=gold_tools)

    return make


@app.command("run", help=RUN_HELP)
def run(
    suite: Annotated[str, typer.Option(help="Suite name or scenario file.")] = "demo",
    model: Annotated[str, typer.Option(help="Model spec (see above).")] = "local",
    trials: Annotated[int, typer.Option(min=1, help="Trials per scenario (pass^k needs k).")] = 1,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N scenarios.")] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Sessions at once (default 1 for local, else 4).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for faults, drift and sampling.")] = 0,
    max_steps: Annotated[int, typer.Option(min=1, help="Agent decisions per session.")] = 40,
    store: Annotated[Path, typer.Option(help="DuckDB store file.")] = DEFAULT_STORE_PATH,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
    resume: Annotated[
        str | None, typer.Option(help="Continue a killed run: RUN_ID.", metavar="RUN_ID")
    ] = None,
    user_model: Annotated[
        str | None, typer.Option(help="Model for simulated users (default: the agent's).")
    ] = None,
    tool_mode: Annotated[
        str, typer.Option(help="native | prompted | auto (prompted when tools unsupported).")
    ] = "auto",
    arm: Annotated[
        list[str] | None, typer.Option(help="A condition to run, e.g. 'faults=3% guard'.")
    ] = None,
    faults: Annotated[str | None, typer.Option(help="Fault plan, e.g. 3% or timeout:2%.")] = None,
    drift: Annotated[str | None, typer.Option(help="Schema drift KIND[@TURN].")] = None,
    guard: Annotated[
        bool | None, typer.Option("--guard/--no-guard", help="Wrap tools in the guard.")
    ] = None,
) -> None:
    if tool_mode not in ("native", "prompted", "auto"):
        raise ConfigError(f"--tool-mode must be native, prompted or auto, not {tool_mode!r}")
    with Store.open(store) as db:
        if resume:
            manifest = db.get_run(resume)
            suite, model, trials, seed = (
                manifest.suite,
                manifest.model,
                manifest.trials,
                manifest.seed,
            )
            limit, arms = manifest.limit, list(manifest.arms) or ["baseline"]
            max_steps = manifest.max_steps or max_steps
            user_model = manifest.user_model
            loaded = load_suite(suite).limited(limit)
            if loaded.content_hash() != manifest.suite_hash:
                raise ConfigError(
                    f"suite {suite!r} changed since run {manifest.run_id} started; "
                    "start a new run instead of resuming"
                )
            run_id = manifest.run_id
            skip = db.finished_keys(run_id)
        else:
            workers = concurrency or (1 if model.startswith("local") else 4)
            arms = _arms(arm or [], faults, drift, guard)
            loaded = load_suite(suite).limited(limit)
            run_id = new_run_id()
            manifest = RunManifest(
                run_id=run_id,
                command="run",
                suite=suite,
                suite_hash=loaded.content_hash(),
                model=model,
                user_model=user_model,
                seed=seed,
                trials=trials,
                arms=arms,
                max_steps=max_steps,
                limit=limit,
                concurrency=workers,
                options={"tool_mode": tool_mode},
                scenario_ids=[s.id for s in loaded.scenarios],
                argv=sys.argv[1:],
            )
            db.create_run(manifest)
            skip = set()
        hooks = _hooks_factory(arms)
        workers = concurrency or manifest.concurrency
        done_before = len(skip)
        plan = RunPlan(
            run_id=run_id,
            trials=trials,
            arms=arms,
            seed=seed,
            concurrency=workers,
            max_steps=max_steps,
            skip=skip,
        )
        err_console.print(
            f"run [bold]{run_id}[/]: suite {escape(suite)} ({len(loaded.scenarios)} scenarios) × "
            f"{trials} trial(s) × {len(arms)} arm(s), model {escape(model)}",
            highlight=False,
        )
        try:
            asyncio.run(_execute(loaded, model, user_model, tool_mode, plan, db, hooks))
        except KeyboardInterrupt:
            db.set_status(run_id, "interrupted")
            err_console.print(f"interrupted; continue with: sessionproof run --resume {run_id}")
            raise typer.Exit(130) from None
        db.set_status(run_id, "finished")
        _report(db, run_id, arms, store, as_json, done_before)


async def _execute(
    suite: Any,
    model: str,
    user_model: str | None,
    tool_mode: str,
    plan: RunPlan,
    db: Store,
    hooks: Any,
) -> None:
    agent = _make_agent(model, tool_mode, plan.seed)
    user_agent: Agent | None = None
    try:
        if user_model and user_model != model:
            user_agent = _make_agent(user_model, "native", plan.seed)
        elif plays_users(agent):
            user_agent = agent
        with RunProgress(err_console, "sessions") as progress:
            kwargs: dict[str, Any] = {"user_model": user_agent, "progress": progress}
            if hooks is not None:
                kwargs["hooks_for"] = hooks
            await execute_run(suite, agent, plan, db, **kwargs)
    finally:
        await agent.aclose()
        if user_agent is not None and user_agent is not agent:
            await user_agent.aclose()


def _report(
    db: Store, run_id: str, arms: list[str], store: Path, as_json: bool, done_before: int
) -> None:
    rows = db.session_rows(run_id)
    if len(arms) > 1:
        from ._arms import report_arms

        report_arms(db, run_id, arms, rows, store, as_json)
        return
    summary = summarize(rows)
    if as_json:
        payload = {
            "run_id": run_id,
            **summary.model_dump(mode="json"),
            "resumed_sessions": done_before,
            "store": str(store),
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    render_summary(out_console, f"run {run_id}", summary)
    out_console.print(
        f"stored in {escape(str(store))}; details: "
        f"sessionproof show {run_id} --store {escape(str(store))}",
        highlight=False,
    )
