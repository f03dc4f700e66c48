"""`sessionproof run`: run a suite against a model and store every session."""

from __future__ import annotations

import asyncio
import json
import math
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from .._secrets import register_spec_credentials
from ..agents import Agent, display_spec, plays_users
from ..engine import DEFAULT_AGENT_TIMEOUT_S, HooksFactory, RunPlan, SessionHooks, execute_run
from ..errors import ConfigError
from ..records import Scenario
from ..report import render_summary
from ..scoring import METRIC_DEFINITIONS, summarize
from ..store import DEFAULT_STORE_PATH, REDACTED, RunManifest, Store, new_run_id, scrub_text
from ..suites import BUILTIN_SUITES, load_suite
from ._app import app, err_console, out_console
from ._progress import RunProgress

RUN_HELP = (
    "Run a suite of multi-turn scenarios against a model; store every session.\n\n"
    "Suites: "
    + "; ".join(f"{k} ({v})" for k, v in BUILTIN_SUITES.items())
    + "; or a path to a scenario .yaml/.json file, or a project directory (`sessionproof "
    "init DIR` makes one).\n\n"
    "Models: local, local:PATH.gguf, oracle, openai:MODEL, openai-compat:MODEL@URL, "
    "anthropic:MODEL, python:pkg.module:function.\n\n"
    + "\n\n".join(f"{k}: {v}" for k, v in METRIC_DEFINITIONS.items())
)


RESUME_KEEPS = (
    "suite",
    "model",
    "trials",
    "limit",
    "seed",
    "max_steps",
    "user_model",
    "tool_mode",
    "arm",
    "faults",
    "drift",
    "guard",
    "agent_timeout",
)
"""Parameters a resumed run takes from its manifest: giving one with --resume is an error."""

_SUITE_FILE_SUFFIXES = (".yaml", ".yml", ".json")


def _refuse_with_resume(ctx: typer.Context, manifest: RunManifest) -> None:
    # A spec whose credentials were redacted before storing must be given again.
    respecify = {
        name
        for name, stored in (("model", manifest.model), ("user_model", manifest.user_model))
        if stored is not None and REDACTED in stored
    }
    # By name: typer ships its own copy of click, whose ParameterSource is another enum.
    given = [
        f"--{name.replace('_', '-')}"
        for name in RESUME_KEEPS
        if name not in respecify
        and getattr(ctx.get_parameter_source(name), "name", None) == "COMMANDLINE"
    ]
    if given:
        raise ConfigError(
            f"--resume cannot be combined with {', '.join(given)}: "
            "a resumed run keeps the settings it was started with"
        )


def _check_timeout(seconds: float) -> float:
    if not (math.isfinite(seconds) and seconds > 0):
        raise ConfigError(
            f"--agent-timeout must be a positive, finite number of seconds, not {seconds:g}"
        )
    return seconds


def suite_reference(name: str) -> str:
    """What the manifest records for `--suite`: a suite file or project directory as an
    absolute path (so the run resumes from any directory), a built-in suite as its name."""
    path = Path(name)
    if (path.suffix.lower() in _SUITE_FILE_SUFFIXES and path.is_file()) or path.is_dir():
        return str(path.resolve())
    return name


def _make_agent(spec: str, tool_mode: str, seed: int) -> Agent:
    from ..agents import make_agent

    agent: Agent = make_agent(spec, tool_mode=tool_mode, seed=seed)  # type: ignore[arg-type]
    return agent


def _resumed_spec(
    run_id: str, flag: str, stored: str, given: str | None, default: str | None
) -> str:
    """The model spec a resumed run uses: the stored one, unless credentials were redacted
    from it (they are never stored); then the same spec must be given again."""
    if REDACTED not in stored:
        return stored
    if given is not None and given != default:
        register_spec_credentials(given)
        if scrub_text(given) == stored:
            return given
    raise ConfigError(
        f"run {run_id} used {stored}, whose credentials are not stored; resume it with "
        f"the same {flag} again"
    )


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
    ctx: typer.Context,
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
    agent_timeout: Annotated[
        float,
        typer.Option(
            help="Seconds one agent decision may take; past it the session ends as an agent "
            "error classified timeout.",
            metavar="SECONDS",
        ),
    ] = DEFAULT_AGENT_TIMEOUT_S,
) -> None:
    if tool_mode not in ("native", "prompted", "auto"):
        raise ConfigError(f"--tool-mode must be native, prompted or auto, not {tool_mode!r}")
    if not resume:
        _check_timeout(agent_timeout)
    with Store.open(store) as db:
        if resume:
            manifest = db.get_run(resume)
            if manifest.command != "run":
                raise ConfigError(
                    f"run {manifest.run_id} is a {manifest.command} run; only runs made by "
                    "`sessionproof run` can be resumed"
                )
            _refuse_with_resume(ctx, manifest)
            model = _resumed_spec(manifest.run_id, "--model", manifest.model, model, "local")
            suite, trials, seed = manifest.suite, manifest.trials, manifest.seed
            limit, arms = manifest.limit, list(manifest.arms) or ["baseline"]
            max_steps = manifest.max_steps or max_steps
            user_model = (
                None
                if manifest.user_model is None
                else _resumed_spec(
                    manifest.run_id, "--user-model", manifest.user_model, user_model, None
                )
            )
            tool_mode = str(manifest.options.get("tool_mode", tool_mode))
            agent_timeout = float(manifest.options.get("agent_timeout", agent_timeout))
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
                suite=suite_reference(suite),
                suite_hash=loaded.content_hash(),
                model=model,
                user_model=user_model,
                seed=seed,
                trials=trials,
                arms=arms,
                max_steps=max_steps,
                limit=limit,
                concurrency=workers,
                options={"tool_mode": tool_mode, "agent_timeout": agent_timeout},
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
            agent_timeout=agent_timeout,
            skip=skip,
        )
        err_console.print(
            f"run [bold]{run_id}[/]: suite {escape(suite)} ({len(loaded.scenarios)} scenarios) × "
            f"{trials} trial(s) × {len(arms)} arm(s), model {escape(display_spec(model))}",
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
