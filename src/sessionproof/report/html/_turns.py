"""The per-turn section: accuracy per user turn in both readings, for runs that have it.

Only runs whose sessions carry per-turn verdicts (`MetricsReport.turns`: suites whose
scenarios declare per-turn criteria) have the section; a report of no such run leaves it
out, so every other report is as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ...scoring._internal import TURN_DEFINITIONS, TurnPoint
from .._format import pct, pct_range
from ._data import ReportRun
from ._sections import _label, _table, section

SECTION_ID = "turns"


def _cells(point: TurnPoint | None) -> list[str]:
    if point is None:
        return ["–", ""]
    return [f"{pct(point.accuracy)} ({point.passed}/{point.sessions})", pct_range(*point.ci95)]


def has_turns(runs: Sequence[ReportRun]) -> bool:
    """True when some arm of some run has per-turn verdicts."""
    return any(m.turns is not None for r in runs for m in r.arms.values())


def turns_section(runs: Sequence[ReportRun]) -> str:
    """Per-turn accuracy on the agent's own history and from the gold prefix, one table per
    run and arm, with the definitions; "" when no run has per-turn verdicts."""
    if not has_turns(runs):
        return ""
    parts = []
    for run in runs:
        for arm, metrics in run.arms.items():
            report = metrics.turns
            if report is None:
                continue
            own = {p.turn: p for p in report.own_history}
            prefix = {p.turn: p for p in report.gold_prefix}
            rows = [
                [str(t + 1), *_cells(own.get(t)), *_cells(prefix.get(t))]
                for t in sorted(own.keys() | prefix.keys())
            ]
            title = (
                f"{_label(run, arm)}: own history {report.own_history_sessions} sessions "
                f"(session accuracy {pct(report.session_accuracy)}), gold prefix "
                f"{report.gold_prefix_sessions} sessions"
            )
            head = ["turn", "own history", "Wilson 95%", "gold prefix", "Wilson 95%"]
            parts.append(f"<h3>{escape(title)}</h3>" + _table(head, rows))
    defs = "".join(
        f"<dt>{escape(name)}</dt><dd>{escape(text)}</dd>" for name, text in TURN_DEFINITIONS.items()
    )
    return section(SECTION_ID, "Per-turn accuracy", "".join(parts) + f"<dl>{defs}</dl>")
