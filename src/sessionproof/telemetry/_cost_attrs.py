"""The cost attributes of our spans: a model call's USD on its `chat` span, a session's in
all and by role on its root span; each only where every call it sums has a price (no
GenAI convention names cost, so they live under `sessionproof.cost.*`)."""

from __future__ import annotations

from ..records import Session
from ..records._internal import ModelCall
from ..scoring._internal import ROLES, PriceTable, cost_summary
from . import _names as n
from ._attrs import Attrs


def call_cost(call: ModelCall, prices: PriceTable) -> Attrs:
    """`sessionproof.cost.usd` of one model call, or nothing when its model has no price."""
    price = prices.price_for(call.provider, call.model)
    if price is None:
        return {}
    u = call.usage
    return {n.COST_USD: price.usd(u.input_tokens, u.output_tokens, u.cached_tokens)}


def session_cost(session: Session, prices: PriceTable) -> Attrs:
    """A session's USD by role (`sessionproof.cost.usd.agent|user|judge`, for each role that
    called a model and is priced) and in all (`sessionproof.cost.usd`, when every call is)."""
    cost = cost_summary([session], prices)
    out: Attrs = {}
    for role in ROLES:
        usd = cost.usd[role]
        if usd is not None and cost.tokens[role].calls:
            out[n.COST_USD_BY_ROLE + role] = usd
    if cost.total_usd is not None and any(cost.tokens[r].calls for r in ROLES):
        out[n.COST_USD] = cost.total_usd
    return out
