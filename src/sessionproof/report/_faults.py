"""Terminal tables of fault detection and recovery: one arm's groups, or several arms."""

from __future__ import annotations

from collections.abc import Mapping

from rich.markup import escape
from rich.table import Table

from ..scoring._internal import FaultCell, FaultsReport
from ._format import pct

COLUMNS = ("faults", "detected", "95% CI", "sessions", "recovered", "95% CI")


def fault_groups(report: FaultsReport, *, with_kinds: bool = True) -> list[tuple[str, FaultCell]]:
    """The report's groups in print order: all, explicit, implicit, transient, permanent,
    then each kind (unless `with_kinds` is False); empty groups left out."""
    fixed = [
        ("all", report.overall),
        ("explicit", report.explicit),
        ("implicit", report.implicit),
        ("transient", report.transient),
        ("permanent", report.permanent),
    ]
    kinds = [(k, c) for k, c in report.by_kind.items()] if with_kinds else []
    return [(name, cell) for name, cell in fixed + kinds if cell.detection.n]


def cell_row(cell: FaultCell) -> list[str]:
    """The six numbers of one group: faults, detection and its CI, sessions, recovery and
    its CI (n/a without a judged session)."""
    d, r = cell.detection, cell.recovery
    return [
        str(d.n),
        pct(d.rate),
        _range(d.ci95),
        str(r.n),
        pct(r.rate),
        _range(r.ci95),
    ]


def _range(ci: tuple[float, float] | None) -> str:
    return "n/a" if ci is None else f"{ci[0]:.0%}–{ci[1]:.0%}"


def faults_table(report: FaultsReport, title: str = "fault detection and recovery") -> Table:
    """One arm's detection and recovery, by group."""
    table = Table(title=escape(title), title_justify="left")
    for column in ("group", *COLUMNS):
        table.add_column(escape(column))
    for name, cell in fault_groups(report):
        table.add_row(escape(name), *cell_row(cell))
    table.caption = _caption(report)
    return table


def arms_faults_table(arms: Mapping[str, FaultsReport | None]) -> Table | None:
    """Each arm's detection and recovery, with its explicit / implicit and transient /
    permanent parts when it mixes them (None when no arm met a fault; the kinds are in
    `show --metrics`)."""
    rows = [(arm, report) for arm, report in arms.items() if report is not None]
    if not rows:
        return None
    table = Table(title="fault detection and recovery", title_justify="left")
    for column in ("arm", "group", *COLUMNS):
        table.add_column(escape(column))
    for arm, report in rows:
        whole = report.overall.detection.n
        for name, cell in fault_groups(report, with_kinds=False):
            # A group holding every fault of the arm repeats "all".
            if name == "all" or cell.detection.n != whole:
                table.add_row(escape(arm), escape(name), *cell_row(cell))
    return table


def _caption(report: FaultsReport) -> str:
    how = ", ".join(f"{k} {v}" for k, v in sorted(report.detected_how.items())) or "none"
    text = f"detected by: {how}"
    if report.not_judged:
        text += f"; {report.not_judged} sessions without a verdict left out of recovery"
    if report.excluded_infra:
        text += f"; {report.excluded_infra} infra_error sessions left out"
    return text
