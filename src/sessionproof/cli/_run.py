"""`sessionproof run`: run a suite against a model and store every session."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from .._defaults import DEFAULT_AGENT_TIMEOUT_S, DEFAULT_MAX_STEPS, DEFAULT_STORE_PATH
from ._app import app, err_console, out_console, progress_console
from ._inspect import PriceOpt, PricesOpt
from ._later import help_later
from ._report import NoReportOpt, told_report

if TYPE_CHECKING:
    from .. import runs
    from ..runs._internal import RunStart

_RUN_SUMMARY = "Run a suite of multi-turn scenarios against a model; store every session."


def run_help() -> str:
    """The help of `run`: the suites, the model specs and the metrics known right now (it
    reads their registries, so it is built when shown, not on every start-up)."""
    from ..agents._internal import accepted_specs
    from ..scoring._internal import METRIC_DEFINITIONS
    from ..suites._internal import BUILTIN_SUITES

    return (
        _RUN_SUMMARY + "\n\n"
        "Suites: "
        + "; ".join(f"{k} ({v})" for k, v in BUILTIN_SUITES.items())
        + "; or a path to a scenario .yaml/.json file, or a project directory (`sessionproof "
        "init DIR` makes one).\n\n"
        "Models: "
        + accepted_specs()
        + ".\n\n"
        + "\n\n".join(f"{k}: {v}" for k, v in METRIC_DEFINITIONS.items())
    )


def __getattr__(name: str) -> Any:
    """`RUN_HELP`, built on first use (`run_help`)."""
    if name == "RUN_HELP":
        return run_help()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@app.command(
    "run", help=_RUN_SUMMARY, short_help=_RUN_SUMMARY, cls=help_later(lambda: {"": run_help()})
)
def run(
    ctx: typer.Context,
    suite: Annotated[str, typer.Option(help="Suite name or scenario file.")] = "demo",
    model: Annotated[str, typer.Option(help="Model spec (see above).")] = "local",
    trials: Annotated[int, typer.Option(min=1, help="Trials per scenario (pass^k needs k).")] = 1,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N scenarios.")] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Model requests in flight to one provider, agent and simulated user together "
            "(default 1 for local, else 4); for agents that call no provider, sessions at once.",
        ),
    ] = None,
    max_sessions: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Sessions at once (default: 4 x --concurrency when a provider model plays the "
            "agent or the user, so request slots never wait on sessions; else --concurrency).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for faults, drift and sampling.")] = 0,
    max_steps: Annotated[
        int, typer.Option(min=1, help="Agent decisions per session.")
    ] = DEFAULT_MAX_STEPS,
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
    drift: Annotated[str | None, typer.Option(help="Schema drift KIND[:P%][@TURN[@TOOL]].")] = None,
    guard: Annotated[
        bool | None, typer.Option("--guard/--no-guard", help="Wrap tools in the guard.")
    ] = None,
    perturb: Annotated[
        str | None,
        typer.Option(
            help="Imperfect instructions: missing_arg | shifted_arg | coreference, "
            "optionally @TURN (as an arm: perturb=KIND[@TURN]).",
            metavar="KIND[@TURN]",
        ),
    ] = None,
    model_faults: Annotated[
        str | None,
        typer.Option(
            help="Faults at the model boundary (the agent's own provider requests), e.g. "
            "429x3:2%,5xx:2%,timeout:1%,cut_stream:1%,bad_args:1% (as an arm: "
            "model_faults=SPEC).",
            metavar="SPEC",
        ),
    ] = None,
    agent_timeout: Annotated[
        float,
        typer.Option(
            help="Seconds one agent decision may take; past it the session ends as an agent "
            "error classified timeout.",
            metavar="SECONDS",
        ),
    ] = DEFAULT_AGENT_TIMEOUT_S,
    vary: Annotated[
        str | None,
        typer.Option(
            help="Vary one party's seed alone: agent, user or judge (the --judge model's; "
            "needs --judge). The trials of a scenario then differ only in that party's "
            "sampling (the other seeds are the first trial's), so `show --metrics --split` "
            "can share the verdict variance between parties (docs/noise.md). Refused for a "
            "party that takes no seed (oracle, scripted, local) or whose provider ignores it "
            "(an anthropic: judge). all: every seed follows the trial, the simulated user's "
            "and the judge's too (the reference).",
            metavar="agent|user|judge|all",
        ),
    ] = None,
    reading: Annotated[
        str,
        typer.Option(
            help="How multi-turn sessions are read: own (each from its first turn, on the "
            "agent's own history) or gold-prefix (each turn its own session, started from the "
            "gold history of the turns before it).",
            metavar="own|gold-prefix",
        ),
    ] = "own",
    executor: Annotated[
        str | None,
        typer.Option(
            help="Where sessions run: local (this process), local:N (N forked worker "
            "processes), ray (a local loopback Ray cluster, or RAY_ADDRESS) or ray:ADDRESS "
            "(needs sessionproof[ray]). Default local (on resume: the run's).",
            metavar="local[:N]|ray[:ADDRESS]",
        ),
    ] = None,
    no_report: NoReportOpt = False,
    rpm: Annotated[
        float | None,
        typer.Option(
            min=0.001,
            help="Requests per minute the model's provider allows (agent and simulated user "
            "together). Kept by --resume unless given again.",
        ),
    ] = None,
    tpm: Annotated[
        float | None,
        typer.Option(
            min=0.001,
            help="Tokens per minute the model's provider allows. Kept by --resume unless "
            "given again.",
        ),
    ] = None,
    otlp_endpoint: Annotated[
        str | None,
        typer.Option(
            help="Send each session's OpenTelemetry spans to this OTLP/HTTP collector as it "
            "ends (off by default).",
            metavar="URL",
        ),
    ] = None,
    otlp_header: Annotated[
        list[str] | None, typer.Option(help="A header for the collector, K=V.", metavar="K=V")
    ] = None,
    otel_content: Annotated[
        bool, typer.Option(help="Spans carry messages, arguments and results (scrubbed).")
    ] = False,
    otel_compat: Annotated[
        str | None,
        typer.Option(
            help="Also the attributes Phoenix (openinference) or Langfuse (langfuse) read.",
            metavar="openinference|langfuse",
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            help="Judge model for natural-language assertions (its calls are recorded and "
            "costed as the judge's); without it they are not evaluated.",
            metavar="MODEL",
        ),
    ] = None,
    prices: PricesOpt = None,
    price: PriceOpt = None,
) -> None:
    from .. import runs
    from ..runs._internal import RESUME_KEEPS
    from ..scoring._internal import price_table
    from ._progress import RunProgress

    given = [
        name
        for name in RESUME_KEEPS
        # By name: typer ships its own copy of click, whose ParameterSource is another enum.
        if getattr(ctx.get_parameter_source(name), "name", None) == "COMMANDLINE"
    ]
    started: list[str] = []

    def announce(start: RunStart) -> None:
        started.append(start.run_id)
        err_console.print(
            f"run [bold]{start.run_id}[/]: suite {escape(start.suite)} ({start.scenarios} "
            f"scenarios) × {start.trials} trial(s) × {len(start.arms)} arm(s), model "
            f"{escape(start.model)}",
            highlight=False,
        )

    export = _export(otlp_endpoint, otlp_header, otel_content, otel_compat)
    table = price_table(prices or [], price or [])  # a bad price file stops before running
    try:
        with RunProgress(progress_console(), "sessions") as progress:
            if resume:
                report = runs.resume(
                    resume,
                    store=store,
                    model=model if "model" in given else None,
                    user_model=user_model if "user_model" in given else None,
                    concurrency=concurrency,
                    max_sessions=max_sessions,
                    executor=executor,
                    rpm=rpm,
                    tpm=tpm,
                    given=given,
                    progress=progress,
                    on_start=announce,
                    html=not no_report,
                    export=export,
                    prices=table,
                )
            else:
                config = runs.RunConfig(
                    suite=suite,
                    model=model,
                    trials=trials,
                    limit=limit,
                    concurrency=concurrency,
                    max_sessions=max_sessions,
                    seed=seed,
                    max_steps=max_steps,
                    user_model=user_model,
                    tool_mode=tool_mode,
                    arms=arm or [],
                    faults=faults,
                    drift=drift,
                    guard=guard,
                    perturb=perturb,
                    model_faults=model_faults,
                    agent_timeout=agent_timeout,
                    store=store,
                    reading=reading,
                    vary=vary,
                    executor=executor or "local",
                    rpm=rpm,
                    tpm=tpm,
                    export=export,
                    judge=judge,
                    prices=table,
                )
                report = runs.run(
                    config, progress, on_start=announce, argv=sys.argv[1:], html=not no_report
                )
    except KeyboardInterrupt:
        # The library marked the run interrupted; its id was announced when it started.
        if started:
            err_console.print(f"interrupted; continue with: sessionproof run --resume {started[0]}")
        else:
            err_console.print("interrupted before the run started")
        raise typer.Exit(130) from None
    _report(report, as_json)
    # The run wrote its report itself, while its store was still open (see `runs.run`).
    told_report(report.html_report, report.html_error)


def print_costs(report: runs.RunReport) -> None:
    """One cost line per arm, and each model the price table has no price for."""
    from ..report._internal import cost_line

    notes: list[str] = []
    for arm, cost in report.cost_by_arm.items():
        who = f"arm {arm}: " if len(report.cost_by_arm) > 1 else ""
        out_console.print(escape(who + cost_line(cost)), highlight=False, soft_wrap=True)
        notes += [n for n in cost.notes() if n not in notes]
    for note in notes:
        out_console.print(f"[yellow]{escape(note)}[/]", highlight=False, soft_wrap=True)


def _export(
    endpoint: str | None, headers: list[str] | None, content: bool, compat: str | None
) -> runs.OtlpExport | None:
    """The run's live OTLP export, when `--otlp-endpoint` asks for one."""
    if endpoint is None:
        return None
    from ..runs import OtlpExport
    from ..telemetry._internal import parse_headers

    return OtlpExport(
        endpoint=endpoint, headers=parse_headers(headers or []), content=content, compat=compat
    )


def _report(report: runs.RunReport, as_json: bool) -> None:
    from ..report._internal import render_breakdowns
    from ._boundaries import report_boundaries
    from ._summaries import render_summaries

    if report.comparison is not None:
        from ._arms import report_arms

        report_arms(report, as_json)
        if not as_json:
            report_boundaries(report)
        return
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2))
        return
    render_summaries(
        out_console, report.summary_by_arm or {"": report.summary}, f"run {report.run_id}"
    )
    report_boundaries(report)
    for arm, tables in report.breakdowns.items():
        render_breakdowns(out_console, tables, f"arm {arm}")
    if report.faults is not None:
        from ..report._internal import faults_table

        out_console.print(faults_table(report.faults))
    print_costs(report)
    if report.turns is not None:
        from ..report._internal import turns_table
        from ..scoring._internal import TURN_DEFINITIONS

        out_console.print(turns_table(report.turns))
        for name, text in TURN_DEFINITIONS.items():
            out_console.print(f"[bold]{escape(name)}[/]: {escape(text)}", highlight=False)
    stats = report.concurrency
    if stats is not None:
        out_console.print(
            f"provider requests: {stats.requests}, in flight peak {stats.peak} mean "
            f"{stats.mean:g} (limit {stats.limit}); 429s seen {stats.rate_limited}, window "
            f"down to {stats.window_min}",
            highlight=False,
        )
    store = report.store or ""
    out_console.print(
        f"stored in {escape(store)}; details: "
        f"sessionproof show {report.run_id} --store {escape(store)}",
        highlight=False,
    )
