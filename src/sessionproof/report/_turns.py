"""Per-turn accuracy in both readings, as a terminal table."""

from __future__ import annotations

from rich.table import Table

from ..scoring._internal import TurnReport
from ._format import pct, pct_range


def turns_table(report: TurnReport) -> Table:
    """One row per user turn: accuracy on the agent's own history and from the gold prefix."""
    own = {p.turn: p for p in report.own_history}
    prefix = {p.turn: p for p in report.gold_prefix}
    table = Table(
        title=(
            f"per-turn accuracy: own history ({report.own_history_sessions} sessions, "
            f"session accuracy {pct(report.session_accuracy)}) · gold prefix "
            f"({report.gold_prefix_sessions} sessions)"
        )
    )
    table.add_column("turn", justify="right")
    table.add_column("own history", justify="right")
    table.add_column("95% CI")
    table.add_column("gold prefix", justify="right")
    table.add_column("95% CI")
    for turn in sorted(own.keys() | prefix.keys()):
        cells = []
        for point in (own.get(turn), prefix.get(turn)):
            if point is None:
                cells += ["–", ""]
            else:
                cells += [
                    f"{pct(point.accuracy)} ({point.passed}/{point.sessions})",
                    pct_range(*point.ci95),
                ]
        table.add_row(str(turn + 1), *cells)
    return table
