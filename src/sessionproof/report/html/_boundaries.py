"""The report's section of faults at both boundaries: per run × arm, the tool faults and the
model-boundary faults (the agent's own provider requests), absorbed vs surfaced."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ...records import Session
from ...scoring._internal import BOUNDARY_COLUMNS, boundary_rows
from ._data import ReportRun
from ._sections import section

SECTION_ID = "boundaries"

NOTE = (
    "Absorbed: retried past before the agent saw it (tool faults by the guard; model faults by "
    "the transport's retries, which are infrastructure, never the agent's failure). Surfaced: "
    "reached the agent as a failed tool result or as its own malformed reply (bad_args, "
    "counted against it), or ended the session as infra_error (excluded from accuracy, "
    "counted apart in 'infra')."
)


def _rows(runs: Sequence[ReportRun]) -> list[list[str]]:
    rows: list[list[str]] = []
    for run in runs:
        by_arm: dict[str, list[Session]] = {arm: [] for arm in run.arms}
        for session in run.sessions:
            by_arm.setdefault(session.arm, []).append(session)
        rows += [[run.run_id, *row] for row in boundary_rows(by_arm)]
    return rows


def boundaries_section(runs: Sequence[ReportRun]) -> str:
    """The table of faults at the tool and model boundaries; '' when no arm met one."""
    rows = _rows(runs)
    if not rows:
        return ""
    head = "".join(f"<th>{escape(h)}</th>" for h in ("run", *BOUNDARY_COLUMNS))
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    table = f'<table class="boundaries"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    return section(
        SECTION_ID,
        "Faults at the tool and model boundaries",
        table + f'<p class="def">{escape(NOTE)}</p>',
    )
