"""The report's cost section: per run × arm (never pooled), tokens and USD by agent,
simulated user and judge, per session and per successful session; a model without a price
is named and its USD left blank, never guessed."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ...scoring._internal import ROLES, CostSummary, PerUnit
from .._cost import ROLE_NAMES, usd_text
from ._data import ReportRun
from ._sections import section

SECTION_ID = "cost"
_WHO = ROLE_NAMES


def _per(unit: PerUnit) -> str:
    if unit.undefined:
        return unit.undefined
    tokens = "–" if unit.tokens is None else f"{unit.tokens:,.0f} tokens"
    money = usd_text(unit.usd) if unit.usd is not None else "USD unknown"
    return f"{money} · {tokens}"


def _role(cost: CostSummary, role: str) -> str:
    t = cost.tokens[role]
    if not t.calls:
        return "–"
    usd = cost.usd[role]
    money = usd_text(usd) if usd is not None else "tokens only"
    calls = f"{t.calls} call" + ("" if t.calls == 1 else "s")
    return f"{money} · {t.input_tokens + t.output_tokens:,} tokens · {calls}"


def _row(run_id: str, arm: str, cost: CostSummary) -> str:
    cells = [
        run_id,
        arm,
        f"{cost.successes}/{cost.sessions}",
        *(_role(cost, r) for r in ROLES),
        usd_text(cost.total_usd),
        _per(cost.per_session),
        _per(cost.per_success),
    ]
    return "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>"


def cost_section(runs: Sequence[ReportRun]) -> str:
    """One row per run × arm with its cost split, then the price table's date and each model
    without a price; '' when no run has a cost (none was computed)."""
    rows: list[str] = []
    notes: list[str] = []
    dates: set[str] = set()
    for run in runs:
        for arm, cost in run.costs.items():
            rows.append(_row(run.run_id, arm, cost))
            notes += [n for n in cost.notes() if n not in notes]
            dated = f"prices as of {cost.prices_as_of or 'an undated table'}"
            if cost.prices_overridden_by:
                dated += f", overridden by {', '.join(cost.prices_overridden_by)}"
            dates.add(dated)
    if not rows:
        return ""
    head = ["run", "arm", "successes", *(_WHO[r] for r in ROLES), "total USD"]
    head += ["per session", "per successful session"]
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    table = (
        f'<table class="cost"><thead><tr>{th}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )
    said = "".join(f'<p class="def">{escape(d)}</p>' for d in sorted(dates))
    said += "".join(f'<p class="missing">{escape(n)}</p>' for n in notes)
    how = (
        '<p class="def">All sessions count toward the cost (their calls were paid for); per '
        "successful session divides it by the successes, undefined without one. USD needs "
        "every call of a role priced: a model without a price gives tokens only.</p>"
    )
    return section(SECTION_ID, "Cost", table + said + how)
