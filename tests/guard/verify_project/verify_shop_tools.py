"""A small shop as a typed toolkit, with the backend bugs the verification policies catch:
cancelling order O-stuck reports success and changes nothing, and order O-bad is stored with
a total that is not the sum of its lines."""

from __future__ import annotations

from pydantic import BaseModel

from sessionproof.domains import Toolkit, tool
from sessionproof.errors import ToolError


class Line(BaseModel):
    """One line of an order."""

    sku: str
    price: float


class Order(BaseModel):
    """An order."""

    order_id: str
    status: str
    lines: list[Line]
    total: float
    refunded: float = 0.0


class ShopDB(BaseModel):
    """The shop's orders."""

    orders: dict[str, Order] = {}


class NoSuchOrder(ToolError):
    """The order does not exist."""

    error_class = "not_found"


class ShopTools(Toolkit[ShopDB]):
    """A shop's order desk."""

    def _order(self, order_id: str) -> Order:
        found = self.db.orders.get(order_id)
        if found is None:
            raise NoSuchOrder(f"no order {order_id}")
        return found

    @tool()
    def get_order(self, order_id: str) -> Order:
        """Look an order up.

        Args:
            order_id: The order's id.
        """
        return self._order(order_id)

    @tool(write=True)
    def cancel_order(self, order_id: str) -> dict[str, str]:
        """Cancel an order.

        Args:
            order_id: The order's id.
        """
        order = self._order(order_id)
        if order_id != "O-stuck":  # the bug: O-stuck is never cancelled, yet "ok"
            order.status = "cancelled"
        return {"result": "ok"}

    @tool(write=True)
    def refund(self, order_id: str, amount: float, request_id: str) -> dict[str, float]:
        """Refund part of an order.

        Args:
            order_id: The order's id.
            amount: How much to refund.
            request_id: The client's idempotency key.
        """
        order = self._order(order_id)
        order.refunded += amount
        return {"refunded": order.refunded}
