"""Terminal tables of a suite's breakdowns (e.g. the wild suite's task accuracy by position)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from ..scoring._internal import Breakdowns
from ._format import pct, pct_range
from ._terminal import render_table


def render_breakdowns(
    console: Console, breakdowns: Breakdowns, title: str, *, definitions: bool = True
) -> None:
    """Every table of `breakdowns` (label, rate, 95% CI, passed/units), then, when asked,
    the definitions."""
    console.print(
        f"[bold]{escape(title)}[/]: {breakdowns.unit} accuracy {pct(breakdowns.rate)} "
        f"[{breakdowns.passed}/{breakdowns.units} {escape(breakdowns.unit)}s]",
        highlight=False,
    )
    for table in breakdowns.tables:
        rows = [
            [
                cell.label,
                pct(cell.rate),
                "n/a" if cell.ci95 is None else pct_range(*cell.ci95),
                f"{cell.passed}/{cell.units}",
            ]
            for cell in table.cells
        ]
        render_table(console, f"{title}: {table.title}", ["", "rate", "95% CI", "n"], rows)
    if definitions:
        for name, text in breakdowns.definitions.items():
            console.print(f"[bold]{escape(name)}[/]: {escape(text)}")
