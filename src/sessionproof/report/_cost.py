"""Terminal rendering of a `CostSummary`: a table by role, and the one line `run` prints."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..scoring._internal import ROLES, CostSummary, PerUnit

ROLE_NAMES = {"agent": "agent", "user": "simulated user", "judge": "judge"}
"""How each role reads in a report."""
_WHO = ROLE_NAMES


def usd_text(value: float | None) -> str:
    """Dollars with enough digits for a cheap session ("$0.0123"); "–" without a price."""
    if value is None:
        return "–"
    return f"${value:,.4f}" if abs(value) < 100 else f"${value:,.2f}"


def _tokens(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"


def _per(unit: PerUnit) -> str:
    if unit.undefined:
        return unit.undefined
    money = usd_text(unit.usd) if unit.usd is not None else "USD unknown (a model has no price)"
    return f"{money}, {_tokens(unit.tokens)} tokens"


def cost_table(cost: CostSummary, title: str = "cost") -> Table:
    """Tokens and USD by role, then per session and per successful session."""
    table = Table(title=escape(title), title_justify="left")
    for column in ("who", "calls", "attempts", "input tokens", "cached", "output tokens", "USD"):
        table.add_column(column)
    for role in ROLES:
        t = cost.tokens[role]
        table.add_row(
            _WHO[role],
            str(t.calls),
            str(t.attempts),
            f"{t.input_tokens:,}",
            f"{t.cached_tokens:,}",
            f"{t.output_tokens:,}",
            usd_text(cost.usd[role]),
        )
    total = sum(t.input_tokens for t in cost.tokens.values())
    out = sum(t.output_tokens for t in cost.tokens.values())
    table.add_row("total", "", "", f"{total:,}", "", f"{out:,}", usd_text(cost.total_usd))
    return table


def cost_line(cost: CostSummary) -> str:
    """One line: cost per session and per successful session, and the split by role."""
    split = ", ".join(
        f"{_WHO[r]} {usd_text(cost.usd[r]) if cost.usd[r] is not None else 'tokens only'}"
        for r in ROLES
        if cost.tokens[r].calls
    )
    line = (
        f"cost per session: {_per(cost.per_session)}; per successful session: "
        f"{_per(cost.per_success)}"
    )
    return f"{line}; by role: {split}" if split else f"{line}; no model calls"


def render_cost(console: Console, cost: CostSummary, title: str = "cost") -> None:
    """The cost table, the per-session figures, the price table's date and each model
    without a price."""
    console.print(cost_table(cost, title))
    console.print(f"per session: {escape(_per(cost.per_session))}", highlight=False)
    console.print(f"per successful session: {escape(_per(cost.per_success))}", highlight=False)
    dated = f"prices as of {cost.prices_as_of or 'an undated table'}"
    if cost.prices_overridden_by:
        dated += f", overridden by {', '.join(cost.prices_overridden_by)}"
    console.print(escape(dated), highlight=False, soft_wrap=True)
    for note in cost.notes():
        console.print(f"[yellow]{escape(note)}[/]", highlight=False, soft_wrap=True)
