"""The terminal tables of `sessionproof rerun --fork-at`: per transcript, the original, the
candidate from the fork and the baseline lane; overall, both paired comparisons."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from ._app import out_console

if TYPE_CHECKING:
    from rich.table import Table

    from ..rerun._internal import RerunReport, TranscriptRerun
    from ..scoring.stats._internal import PairedComparison

_WHY_CHARS = 100
"""The table cuts a reason here; `--json` and the stored sessions keep it whole."""


def _mark(verdict: bool | None) -> str:
    return "n/a" if verdict is None else ("pass" if verdict else "fail")


def _marks(verdicts: list[bool | None]) -> str:
    return " ".join(_mark(v) for v in verdicts) or "-"


def _state(values: list[bool | None]) -> str:
    return " ".join("=" if v else ("≠" if v is False else "?") for v in values) or "-"


def _fork(t: TranscriptRerun) -> str:
    """The turn, and the divergence's class when it chose the turn (`--json` has it whole)."""
    reason = t.fork_reason or ""
    if reason.startswith("divergence: "):
        return f"{t.fork_at} {escape(reason.removeprefix('divergence: ').split(' ')[0])}"
    return str(t.fork_at)


def _row(t: TranscriptRerun, lane: bool) -> list[str]:
    why = t.why or ""
    if len(why) > _WHY_CHARS:
        why = why[: _WHY_CHARS - 1] + "…"
    cells = [
        escape(t.id),
        _fork(t),
        _state(t.fork_state),
        _mark(t.original),
        _marks(t.rerun),
    ]
    if lane:
        cells.append(_marks(t.baseline))
    return [*cells, escape(why)]


def _paired_rows(table: Table, p: PairedComparison | None, note: str | None, label: str) -> None:
    if p is None:
        table.add_row(f"paired Δ ({label})", escape(note or "n/a"))
        return
    d = p.difference
    table.add_row(f"pairs ({label})", str(p.scenarios))
    table.add_row(f"paired Δ ({label})", f"{d.estimate:+.1%}")
    table.add_row("  95% CI (bootstrap)", f"{d.low:+.1%} … {d.high:+.1%}")
    table.add_row("  McNemar p (exact)", f"{p.mcnemar_p:.3g}")


def print_forks(report: RerunReport) -> None:
    """The fork tables of `report` on stdout."""
    from rich.table import Table

    from ..report._internal import pct

    lane = report.baseline_lane is not None
    name = Path(report.source).name
    table = Table(
        title=f"fork {escape(name)} at {escape(str(report.fork_at))} with "
        f"{escape(report.model)}"
        + (f" (baseline lane: {escape(str(report.baseline_lane))})" if lane else "")
    )
    columns = ["transcript", "fork at", "state", "original", "candidate"]
    columns += ["baseline lane"] if lane else []
    for column in columns:
        table.add_column(column, no_wrap=True, max_width=26 if column == "fork at" else 14)
    table.add_column("why", ratio=1)
    for t in report.transcripts:
        table.add_row(*_row(t, lane))
    out_console.print(table)
    overall = Table(title="overall")
    overall.add_column("measure")
    overall.add_column("value", justify="right")
    ran = report.run_id if report.transcripts else "none: nothing forked"
    overall.add_row("candidate run", ran)
    if report.baseline_run_id:
        overall.add_row("baseline-lane run", report.baseline_run_id)
    overall.add_row("forked / not forked", f"{len(report.transcripts)} / {len(report.not_forked)}")
    states = [v for t in report.transcripts for v in t.fork_state]
    overall.add_row(
        "state at fork = recorded",
        f"{sum(1 for v in states if v)} of {len(states)}"
        + (f" ({sum(1 for v in states if v is False)} differ)" if False in states else ""),
    )
    overall.add_row("original completion", pct(report.original_accuracy))
    overall.add_row("candidate from fork", pct(report.rerun_accuracy))
    _paired_rows(overall, report.paired, report.paired_note, "candidate − original")
    if lane:
        overall.add_row("baseline lane from fork", pct(report.baseline_accuracy))
        _paired_rows(
            overall,
            report.baseline_paired,
            report.baseline_paired_note,
            "candidate − baseline lane",
        )
    overall.add_row("records skipped", str(len(report.skipped)))
    out_console.print(overall)
    if report.store:
        out_console.print(
            f"stored in {escape(report.store)}; details: sessionproof show {report.run_id} "
            f"--store {escape(report.store)}",
            highlight=False,
        )
