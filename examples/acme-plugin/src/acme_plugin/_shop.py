"""The ACME gadget shop: a small DB and the tools an agent uses on it."""

from __future__ import annotations

from pydantic import BaseModel

from sessionproof.domains import DomainSpec, Toolkit, tool
from sessionproof.domains.sources import ToolkitDomainSpec
from sessionproof.errors import ToolError

DOMAIN = "acme-shop"
"""The domain's name, as scenarios give it."""


class Gadget(BaseModel):
    """A gadget on sale."""

    gadget_id: str
    name: str
    stock: int


class Order(BaseModel):
    """An order placed by the agent."""

    gadget_id: str
    quantity: int


class ShopDB(BaseModel):
    """What the tools act on; every session starts from `STATE`."""

    gadgets: dict[str, Gadget] = {}
    orders: list[Order] = []


class OutOfStock(ToolError):
    """Not enough of the gadget left."""

    error_class = "policy_refusal"


class NoSuchGadget(ToolError):
    """No gadget has that id."""

    error_class = "not_found"


class ShopTools(Toolkit[ShopDB]):
    """You sell ACME gadgets. Look a gadget up before ordering it; never order more than
    the stock."""

    @tool()
    def find_gadget(self, name: str) -> list[Gadget]:
        """Gadgets whose name contains `name`.

        Args:
            name: Part of the gadget's name, like "widget".
        """
        return [g for g in self.db.gadgets.values() if name.lower() in g.name.lower()]

    @tool(write=True)
    def order_gadget(self, gadget_id: str, quantity: int) -> Order:
        """Order some of a gadget.

        Args:
            gadget_id: The gadget's id, like "G1".
            quantity: How many to order.
        """
        gadget = self.db.gadgets.get(gadget_id)
        if gadget is None:
            raise NoSuchGadget(f"no gadget {gadget_id}")
        if quantity > gadget.stock:
            raise OutOfStock(f"only {gadget.stock} of {gadget_id} left")
        gadget.stock -= quantity
        order = Order(gadget_id=gadget_id, quantity=quantity)
        self.db.orders.append(order)
        return order


STATE = {
    "gadgets": {
        "G1": {"gadget_id": "G1", "name": "Blue widget", "stock": 5},
        "G2": {"gadget_id": "G2", "name": "Rocket skates", "stock": 1},
    }
}


def shop_domain() -> DomainSpec:
    """The domain's factory (entry point `sessionproof.domains: acme-shop`)."""
    return ToolkitDomainSpec(DOMAIN, ShopTools, STATE)
