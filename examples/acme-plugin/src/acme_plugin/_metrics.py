"""ACME's own metric: how many gadgets a session ordered, in every output of sessionproof."""

from __future__ import annotations

from sessionproof.records import ToolCallEvent
from sessionproof.scoring import SessionInput, metric


@metric(
    "gadgets_ordered",
    "gadgets the agent ordered in the session (the sum of order_gadget quantities); mean with "
    "a 95% bootstrap interval over scenarios; sessions that were not judged are left out.",
    register=False,  # the entry point registers it; nothing happens on import
)
def gadgets_ordered(item: SessionInput) -> float:
    """The total quantity of the session's `order_gadget` calls."""
    return float(
        sum(
            int((e.payload.arguments or {}).get("quantity", 0))
            for e in item.session.events_of(ToolCallEvent)
            if e.payload.name == "order_gadget"
        )
    )
