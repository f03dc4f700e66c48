"""The report of a run with several arms: terminal tables or the `--json` shape."""

from __future__ import annotations

import json

import typer
from rich.markup import escape

from ..report._internal import (
    arms_faults_table,
    pct,
    pct_range,
    render_breakdowns,
    render_table,
)
from ..runs import RunReport
from ..scoring._internal import ARM_DEFINITIONS
from ._app import out_console


def report_arms(run: RunReport, as_json: bool) -> None:
    """Print the arm comparison of a finished run (tables, or the `--json` object)."""
    if as_json:
        typer.echo(json.dumps(run.to_json(), indent=2))
        return
    report = run.comparison
    if report is None:
        raise ValueError(f"run {run.run_id} has one arm: nothing to compare")
    run_id = run.run_id

    table = []
    for name, arm in report.arms.items():
        s = arm.summary
        ci = pct_range(*s.ci95) if s.ci95 else "n/a"
        tol = arm.drift_tolerance
        table.append(
            [
                name,
                "–" if s.session_accuracy is None else pct(s.session_accuracy),
                ci,
                str(s.sessions),
                str(arm.injected_failures),
                pct(arm.error_recovery_rate),
                "-" if tol is None else f"{tol['tolerance']:.2f}" if tol["tolerance"] else "n/a",
                str(s.infra_errors),
                str(s.not_judged),
            ]
        )
    cols = ["arm", "accuracy", "95% CI", "sessions", "faults", "recovery", "drift tol."]
    cols += ["infra", "not judged"]
    summaries = [arm.summary for arm in report.arms.values()]
    if any(x.unevaluated_sessions for x in summaries):
        # Criteria left unevaluated (no --judge): the accuracy over those that were checked.
        cols.insert(2, "over evaluated")
        for row, x in zip(table, summaries, strict=True):
            row.insert(2, "–" if x.evaluated_accuracy is None else pct(x.evaluated_accuracy))
    render_table(out_console, f"run {run_id}: arms", cols, table, keep=(0,))
    paired = [
        [
            f"{p.b} vs {p.a}",
            str(p.pairs),
            f"{p.difference:+.1%}",
            f"{p.ci95[0]:+.1%} … {p.ci95[1]:+.1%}",
            f"{p.mcnemar_p:.3g}",
            "-" if p.pairs_needed is None else str(p.pairs_needed),
        ]
        for p in report.paired
    ]
    if paired:
        render_table(
            out_console,
            "paired differences",
            ["arms", "pairs", "Δ accuracy", "95% CI", "McNemar p", "pairs needed"],
            paired,
            keep=(0,),
        )
    faults = arms_faults_table({name: arm.faults for name, arm in report.arms.items()})
    if faults is not None:
        out_console.print(faults)
    from ._run import print_costs

    print_costs(run)
    last = list(run.breakdowns)[-1:]
    for name, tables in run.breakdowns.items():
        render_breakdowns(out_console, tables, f"arm {name}", definitions=name in last)
    for name, text in ARM_DEFINITIONS.items():
        out_console.print(f"[bold]{escape(name)}[/]: {escape(text)}")
