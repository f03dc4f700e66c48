"""The `acme:SET` suites: ordering gadgets, judged by ACME's own judge."""

from __future__ import annotations

from sessionproof.errors import UnknownSuiteError
from sessionproof.records import Action, Criteria, Scenario, UserSpec
from sessionproof.suites import Suite

from ._shop import DOMAIN

EVALUATOR = "acme"
"""The judge name the scenarios give (`criteria.evaluator`)."""


def _order(sid: str, ask: str, gadget_id: str, quantity: int) -> Scenario:
    return Scenario(
        id=sid,
        domain=DOMAIN,
        user=UserSpec(turns=[ask]),
        criteria=Criteria(
            gold_actions=[
                Action(tool="order_gadget", args={"gadget_id": gadget_id, "quantity": quantity})
            ],
            evaluator=EVALUATOR,
        ),
        metadata={"orders": [{"gadget_id": gadget_id, "quantity": quantity}]},
    )


SETS: dict[str, list[Scenario]] = {
    "smoke": [
        _order("acme-two-widgets", "Please order two blue widgets (G1).", "G1", 2),
        _order("acme-skates", "One pair of rocket skates (G2), please.", "G2", 1),
    ]
}
"""The scenario sets, by the part of the suite name after "acme:"."""


def load_acme(name: str) -> Suite:
    """The suite `acme:SET` (the suite plug-in's factory)."""
    part = name.partition(":")[2] or "smoke"
    if part not in SETS:
        raise UnknownSuiteError(f"unknown suite {name!r}; ACME sets: {', '.join(SETS)}")
    return Suite(name, list(SETS[part]))
