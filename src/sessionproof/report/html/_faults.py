"""The report's section of fault detection and recovery: per run × arm that met faults, each
group (all, explicit / implicit, transient / permanent, each kind) with both rates and their
Wilson intervals, then how faults were noticed and the definitions."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ...scoring._internal import DETECTION_DEFINITIONS
from .._faults import COLUMNS, cell_row, fault_groups
from ._data import ReportRun
from ._sections import section

SECTION_ID = "faults"


def has_faults(runs: Sequence[ReportRun]) -> bool:
    """Whether any arm of `runs` met a fault (else the section is left out)."""
    return any(m.faults is not None for run in runs for m in run.arms.values())


def faults_section(runs: Sequence[ReportRun]) -> str:
    """Detection and recovery of every run × arm that met faults (arms never pooled); ''
    when none did."""
    if not has_faults(runs):
        return ""
    rows: list[str] = []
    notes: list[str] = []
    for run in runs:
        for arm, report in run.arms.items():
            found = report.faults
            if found is None:
                continue
            for name, cell in fault_groups(found):
                cells = (run.run_id, arm, name, *cell_row(cell))
                rows.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")
            how = ", ".join(f"{k} {v}" for k, v in sorted(found.detected_how.items()))
            left = f"{found.not_judged} without a verdict, {found.excluded_infra} infra_error"
            notes.append(f"{run.run_id} · {arm}: noticed by {how or 'nothing'}; left out: {left}")
    head = "".join(f"<th>{escape(h)}</th>" for h in ("run", "arm", "group", *COLUMNS))
    table = (
        f'<table class="faults"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    said = "".join(f'<p class="def">{escape(n)}</p>' for n in notes)
    defs = "".join(
        f'<p class="def">{escape(k)}: {escape(v)}</p>' for k, v in DETECTION_DEFINITIONS.items()
    )
    return section(SECTION_ID, "Fault detection and recovery", table + said + defs)
