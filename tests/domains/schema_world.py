"""A small shop whose tools are defined only by JSON Schemas plus one Python callable each.

No toolkit class, no subclass: the shape a team's own function list, an MCP server or an
OpenAPI document takes.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sessionproof.domains import Domain, DomainSpec, SchemaTool, SchemaTools, register_domain
from sessionproof.errors import ToolError
from sessionproof.records import ToolSpec

DOMAIN = "shop-by-schema"

GET_ORDER = ToolSpec(
    name="get_order",
    description="Look an order up by its id.",
    parameters={
        "type": "object",
        "properties": {"order_id": {"type": "string", "description": "The order's id."}},
        "required": ["order_id"],
        "additionalProperties": False,
    },
)
CANCEL_ORDER = ToolSpec(
    name="cancel_order",
    description="Cancel a pending order.",
    parameters={
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "description": "The order's id."},
            "reason": {"type": "string", "enum": ["no_longer_needed", "ordered_by_mistake"]},
        },
        "required": ["order_id", "reason"],
        "additionalProperties": False,
    },
    write=True,
)


class ShopDB(BaseModel):
    """The shop's state: order id → status."""

    model_config = ConfigDict(extra="forbid")

    orders: dict[str, str] = Field(default_factory=lambda: {"1042": "pending", "7": "shipped"})


def shop_tools(db: ShopDB) -> SchemaTools:
    """The shop's tools over `db`: one async reader, one sync writer."""

    async def get_order(order_id: str) -> dict[str, Any]:
        if order_id not in db.orders:
            raise ToolError(f"order {order_id!r} not found", "not_found")
        return {"order_id": order_id, "status": db.orders[order_id]}

    def cancel_order(order_id: str, reason: str) -> dict[str, Any]:
        status = db.orders.get(order_id)
        if status is None:
            raise ToolError(f"order {order_id!r} not found", "not_found")
        if status != "pending":
            raise ToolError(f"order {order_id} is {status}; only pending orders", "policy_refusal")
        db.orders[order_id] = "cancelled"
        return {"order_id": order_id, "status": "cancelled", "reason": reason}

    return SchemaTools([SchemaTool(GET_ORDER, get_order), SchemaTool(CANCEL_ORDER, cancel_order)])


class ShopSpec(DomainSpec):
    """Fresh shops."""

    name = DOMAIN

    def create(self) -> Domain[ShopDB]:
        """A shop in its initial state."""
        db = ShopDB()
        return Domain(DOMAIN, db, shop_tools(db), policy="Cancel pending orders on request.")


register_domain(ShopSpec())
