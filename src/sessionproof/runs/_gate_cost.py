"""The gate's cost block: each side's tokens and USD by role (agent, simulated user, judge),
per session and per successful session (`scoring`'s `cost_summary`, priced by the shipped
table or the user's), and the one sentence the summary prints beside the verdict.

A model without a price gives tokens only, and the sentence then compares tokens and says so:
no price is ever guessed here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..records import Session
from ..scoring._internal import CostSummary, PriceTable, compare_cost, cost_summary, shipped_prices


def gate_cost(
    sides: Mapping[str, Sequence[Session]], prices: PriceTable | None = None
) -> dict[str, CostSummary]:
    """Side name (`baseline`, `candidate`) → its cost over the sessions the decision used,
    priced by `prices` (default: the shipped table)."""
    table = prices if prices is not None else shipped_prices()
    return {name: cost_summary(list(sessions), table) for name, sessions in sides.items()}


def cost_sentence(cost: Mapping[str, CostSummary]) -> str:
    """One line comparing the sides' cost per successful session (or saying why not)."""
    base, cand = cost.get("baseline"), cost.get("candidate")
    if base is None or cand is None:
        return "cost: not measured"
    if base.total_tokens == 0 and cand.total_tokens == 0:
        return "cost: no model tokens were recorded on either side (reference or Python agents)"
    for who, side in (("baseline", base), ("candidate", cand)):
        if side.total_tokens == 0:
            return f"cost: the {who} recorded no model tokens, so the costs are not compared"
    b, c = base.per_success, cand.per_success
    figures = ""
    if b.usd is not None and c.usd is not None:
        figures = f" (${c.usd:.4g} against ${b.usd:.4g})"
    elif b.tokens is not None and c.tokens is not None:
        figures = f" ({c.tokens:,.0f} against {b.tokens:,.0f} tokens)"
    return f"cost, candidate against baseline: {compare_cost(base, cand)}{figures}"
