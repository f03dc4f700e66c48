"""`sessionproof gate`: decide whether a candidate may replace a baseline, for CI."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from .._defaults import DEFAULT_STORE_PATH
from ._app import app, err_console, out_console
from ._inspect import PriceOpt, PricesOpt
from ._outputs import refuse_clobber

_HELP = (
    "Decide whether a candidate may replace a baseline: better, not_worse (within --margin), "
    "worse or inconclusive, on sessions paired by scenario × trial × seed × arm, run in "
    "rounds until decided or undecidable (group-sequential alpha spending, futility "
    "stopping). Each side is "
    "a stored run id or a model spec the gate runs. Exit 0 better/not_worse, 1 worse, "
    "2 inconclusive (1 with --fail-inconclusive; errors also exit 2)."
)


@app.command("gate", help=_HELP, short_help=_HELP.split(":")[0] + ".")
def gate_command(
    baseline: Annotated[
        str, typer.Option(help="Baseline: a stored run id (or prefix) or a model spec.")
    ],
    candidate: Annotated[
        str, typer.Option(help="Candidate: a stored run id (or prefix) or a model spec.")
    ],
    suite: Annotated[
        str | None,
        typer.Option(help="Suite name or scenario file (default: the stored side's suite)."),
    ] = None,
    margin: Annotated[
        float, typer.Option(help="Non-inferiority margin, in success rate (0.05 = 5 points).")
    ] = 0.05,
    alpha: Annotated[float, typer.Option(help="Error rate: intervals at 1 − alpha.")] = 0.05,
    max_trials: Annotated[
        int, typer.Option(help="Most rounds (trials per scenario) the gate runs.")
    ] = 10,
    budget_sessions: Annotated[
        int | None, typer.Option(help="Most sessions the gate may run, both sides together.")
    ] = None,
    spending: Annotated[
        str,
        typer.Option(
            help="Alpha spending: hwang-shih-decani (γ = −1: fewest sessions where the "
            "answer is clear), obrien-fleming (strict early, a few points more power near "
            "the thresholds at the last round) or pocock (flat: stops soonest on large "
            "effects)."
        ),
    ] = "hwang-shih-decani",
    thin: Annotated[
        bool | None,
        typer.Option(
            "--thin/--no-thin",
            help="Thinned rounds (default when a side is run): after two rounds, scenarios "
            "whose pairs keep agreeing run only by a seeded draw (fewer sessions; up to twice "
            "--max-trials rounds). --no-thin runs every scenario every round.",
        ),
    ] = None,
    futility: Annotated[
        float | None,
        typer.Option(
            help="When a side is run, stop as inconclusive once a verdict by the last round "
            "has a chance under this at the difference seen so far (default 0.02, from half "
            "the rounds on; 0: off). Never makes a verdict wrong; saves the rounds of a gate "
            "that cannot decide.",
        ),
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N scenarios.")] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed (default 0, or the stored side's seed).")
    ] = None,
    arm: Annotated[
        str | None, typer.Option(help="The arm to gate on (default: baseline, or the run's first).")
    ] = None,
    user_model: Annotated[
        str | None, typer.Option(help="Model for simulated users (default: the agent's).")
    ] = None,
    max_steps: Annotated[
        int | None, typer.Option(min=1, help="Agent decisions per session.")
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Requests in flight per provider (as `run`).")
    ] = None,
    store: Annotated[Path, typer.Option(help="DuckDB store file.")] = DEFAULT_STORE_PATH,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
    junit: Annotated[Path | None, typer.Option(help="Write JUnit XML here.")] = None,
    summary: Annotated[
        Path | None, typer.Option(help="Write a Markdown summary here (CI step summary, PR).")
    ] = None,
    report_path: Annotated[
        Path | None, typer.Option("--report", help="Write the gate's HTML page here.")
    ] = None,
    fail_inconclusive: Annotated[
        bool, typer.Option(help="Exit 1, not 2, when inconclusive.")
    ] = False,
    prices: PricesOpt = None,
    price: PriceOpt = None,
) -> None:
    """Run the gate and exit with its status."""
    from ..runs import gate
    from ..runs._internal import (
        GateLook,
        gate_junit,
        gate_lines,
        gate_page,
        gate_summary,
        write_text,
    )
    from ..scoring._internal import price_table

    for path in (junit, summary, report_path):
        refuse_clobber(path, store=store)
    table = price_table(prices or [], price or [])  # a bad price file stops before any run

    def told(seen: GateLook) -> None:
        err_console.print(
            f"round {seen.round}: {seen.pairs} pairs, candidate − baseline "
            f"{seen.estimate * 100:+.1f} pts [{seen.low * 100:+.1f}, {seen.high * 100:+.1f}] "
            f"→ {seen.verdict}",
            highlight=False,
        )

    result = gate(
        baseline,
        candidate,
        suite=suite,
        margin=margin,
        alpha=alpha,
        max_trials=max_trials,
        budget_sessions=budget_sessions,
        spending=spending,  # type: ignore[arg-type]  # checked by gate: one clear line
        thin=thin,
        futility=futility,
        store=store,
        seed=seed,
        limit=limit,
        arm=arm,
        user_model=user_model,
        max_steps=max_steps,
        concurrency=concurrency,
        on_round=told,
        argv=sys.argv[1:],
        prices=table,
    )
    title = suite or ""
    if junit is not None:
        write_text(
            junit, gate_junit(result, fail_inconclusive=fail_inconclusive, suite=title), "JUnit XML"
        )
    if summary is not None:
        # Appended: GitHub's $GITHUB_STEP_SUMMARY is one file every step adds to.
        text = gate_summary(result, title)
        try:
            with summary.open("a", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            from ..errors import InputFileError

            raise InputFileError(f"cannot write the summary to {summary}: {exc.strerror}") from None
    if report_path is not None:
        write_text(report_path, gate_page(result, title), "gate report")
    if as_json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        for line in gate_lines(result):
            out_console.print(escape(line), highlight=False, soft_wrap=True)
    raise typer.Exit(result.exit_code(fail_inconclusive))
