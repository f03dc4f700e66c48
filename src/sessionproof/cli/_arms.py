"""The report of a run with several arms: terminal tables or the `--json` shape."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import typer
from rich.markup import escape

from ..report import pct, pct_range, render_table
from ..scoring import ARM_DEFINITIONS, compare_arms
from ..store import SessionRow, Store
from ._app import out_console


def report_arms(
    db: Store, run_id: str, arms: list[str], rows: Sequence[SessionRow], store: Path, as_json: bool
) -> None:
    """Compare the arms of `run_id` and print the result."""
    rows_by_arm = {a: [r for r in rows if r.arm == a] for a in arms}
    sessions_by_arm = {a: db.load_sessions(run_id, arm=a) for a in arms}
    report = compare_arms(rows_by_arm, sessions_by_arm)
    if as_json:
        payload = {
            "run_id": run_id,
            "arms": {
                name: {**arm.summary.model_dump(mode="json"), **arm.model_dump(exclude={"summary"})}
                for name, arm in report.arms.items()
            },
            "paired": [p.model_dump(mode="json") for p in report.paired],
            "store": str(store),
        }
        typer.echo(json.dumps(payload, indent=2))
        return

    table = []
    for name, arm in report.arms.items():
        s = arm.summary
        ci = pct_range(*s.ci95) if s.ci95 else "n/a"
        tol = arm.drift_tolerance
        table.append(
            [
                name,
                pct(s.session_accuracy),
                ci,
                str(s.sessions),
                str(arm.injected_failures),
                pct(arm.error_recovery_rate),
                "-" if tol is None else f"{tol['tolerance']:.2f}" if tol["tolerance"] else "n/a",
                str(s.infra_errors),
            ]
        )
    cols = ["arm", "accuracy", "95% CI", "sessions", "faults", "recovery", "drift tol.", "infra"]
    render_table(out_console, f"run {run_id}: arms", cols, table)
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
        )
    for name, text in ARM_DEFINITIONS.items():
        out_console.print(f"[bold]{escape(name)}[/]: {escape(text)}")
