"""Faults at both boundaries (tool and model), absorbed vs surfaced, per arm: the table `run`
and `show` print after their summaries (nothing when no arm met a fault)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..records import Session
from ..report._internal import render_table
from ..runs import RunReport
from ..scoring._internal import BOUNDARY_COLUMNS, boundary_rows
from ._app import out_console

NOTE = (
    "absorbed: retried past before the agent saw it (tool faults: by the guard; model faults: "
    "by the transport's retries, never the agent's failure); surfaced: reached the agent as a "
    "failed tool result, or as its own malformed reply (bad_args), or ended the session as "
    "infra_error (excluded from accuracy)"
)


def faulted_arms(arms: Iterable[str]) -> bool:
    """Whether any of `arms` injects faults at either boundary (only those need the table)."""
    return any("faults=" in arm for arm in arms)


def render_boundaries(title: str, arms: Sequence[str], sessions: Iterable[Session]) -> None:
    """Print the table for `sessions`, one row per arm that met a fault (nothing if none)."""
    by_arm: dict[str, list[Session]] = {arm: [] for arm in arms}
    for session in sessions:
        by_arm.setdefault(session.arm, []).append(session)
    rows = boundary_rows(by_arm)
    if not rows:
        return
    render_table(out_console, title, BOUNDARY_COLUMNS, rows, keep=(0,))
    out_console.print(NOTE, highlight=False)


def report_boundaries(run: RunReport) -> None:
    """The table for the sessions this call of `run` ran."""
    title = f"run {run.run_id}: faults at the tool and model boundaries"
    if run.resumed_sessions:
        title += " (the sessions run now; show gives the whole run)"
    render_boundaries(title, run.arms, run.sessions)
