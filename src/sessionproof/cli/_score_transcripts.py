"""`sessionproof score` for transcripts (every registered format: chat logs, traces, benchmark
trajectories)."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
from rich.markup import escape
from rich.table import Table

from ..runs import score
from ..suites._internal import ScoreReport
from ._safe import SafeConsole as Console  # control characters escaped


def _fraction(match: int, total: int) -> str:
    return f"{match}/{total}" + (f" ({match / total:.1%})" if total else "")


def _table(report: ScoreReport) -> Table:
    name = Path(report.source).name
    table = Table(title=f"score {escape(name)} ({report.format}, {report.domain or '?'})")
    table.add_column("measure")
    table.add_column("value", justify="right")
    acc = report.session_accuracy
    table.add_row("run", report.run_id)
    table.add_row("sessions", str(report.sessions))
    table.add_row("graded", str(report.graded))
    unjudged = sum(report.not_judged.values())
    if unjudged:
        table.add_row("not judged", str(unjudged))
    if report.divergences is not None:
        table.add_row("calls with no recorded result", str(report.divergences))
    if report.arms:  # several arms: each its own accuracy, never one pooled figure
        for arm, each in report.arms.items():
            value = each.session_accuracy
            shown = f"{value:.1%} [{each.graded} graded]" if value is not None else "-"
            table.add_row(f"session accuracy ({escape(arm)})", shown)
    else:
        table.add_row("session accuracy", f"{acc:.1%}" if acc is not None else "-")
    table.add_row(
        "reward agreement", _fraction(report.agreement_reward.match, report.agreement_reward.total)
    )
    table.add_row("DB agreement", _fraction(report.agreement_db.match, report.agreement_db.total))
    table.add_row("records skipped", str(len(report.skipped)))
    table.add_row("warnings", str(len(report.warnings)))
    table.add_row("seconds", f"{report.seconds:.2f}")
    return table


def score_transcripts_command(
    path: Path,
    fmt: str,
    domain: str | None,
    store: Path,
    as_json: bool,
    judge: str | None,
    no_report: bool = False,
    *,
    label_from: str | None = None,
    suite: str | None = None,
) -> int:
    """Score a transcript file, store its sessions, print a table or (`as_json`) the summary.

    Returns the exit code: 0 when every record was imported and judged cleanly, 1 when some
    records were skipped or carried a warning (each is reported on stderr and listed in the
    summary; the rest are still judged and stored). A warning exits 1 because it can hide a
    lost call: a misspelt block type, a result answering no call. Raises `InputFileError` /
    `ConfigError` when the file or the options cannot be used at all.
    """
    report = score(
        path,
        fmt=fmt,
        domain=domain,
        store=store,
        judge=judge,
        argv=sys.argv,
        label_from=label_from,
        suite=suite,
    )
    if not isinstance(report, ScoreReport):
        raise TypeError("model outputs are scored by score_outputs_command")
    err = Console(stderr=True)
    for reason, count in report.not_judged.items():
        # On stderr too, so it is seen with --json: these sessions are neither pass nor fail.
        err.print(
            f"not judged: {count} session(s): {escape(reason)}", highlight=False, soft_wrap=True
        )
    for problem in report.errors:
        label = "skipped" if problem.fatal else "warning"
        err.print(f"[yellow]{label}:[/] {escape(str(problem))}", highlight=False, soft_wrap=True)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(report.summary(), option=orjson.OPT_INDENT_2) + b"\n")
        sys.stdout.flush()
    else:
        out = Console()
        out.print(_table(report))
        if report.disagreements:
            dis = Table(title="disagreements with the file's own verdicts")
            for column in ("session", "ours", "theirs", "why"):
                dis.add_column(column)
            for d in report.disagreements:
                dis.add_row(escape(d.session), str(d.ours), str(d.theirs), escape(d.why))
            out.print(dis)
    if report.run_id:
        from ._report import write_run_report

        write_run_report(report.run_id, store, no_report)
    return 1 if report.errors else 0
