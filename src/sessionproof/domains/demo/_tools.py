"""The demo toolkit: what an agent can look up and change in the orders / help-desk world.

Business failures raise `ToolError` with a taxonomy class so the agent (and the guard) can tell
"no such order" (`not_found`) from "the arguments are wrong" (`validation_error`) from "the
rules forbid it" (`policy_refusal`). Writes derive every new id from the DB itself and read the
date from `DemoDB.today`, so replaying the same calls always yields the same state hash.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

from ...errors import ToolError
from ...records import ErrorClass
from .._toolkit import Toolkit, tool
from ._data_model import (
    Address,
    CancelReason,
    Customer,
    CustomerMatch,
    DemoDB,
    Order,
    OrderSummary,
    PaymentMethod,
    Product,
    Refund,
    Ticket,
    TicketCategory,
)

RETURN_WINDOW_DAYS = 30
"""Days after delivery during which items can be returned."""

_ZIP = re.compile(r"\d{5}")
_STATE = re.compile(r"[A-Z]{2}")


def _clean(text: str) -> str:
    # Collapsing whitespace keeps "18  Quarry Road " and "18 Quarry Road" the same state, so
    # the state-hash comparison judges what the agent meant, not its spacing.
    return " ".join(text.split())


def _order_key(order_id: str) -> str:
    # Customers (and models copying them) often write "#1042".
    return order_id.strip().lstrip("#").strip()


class DemoTools(Toolkit[DemoDB]):
    """Tools over a `DemoDB`. One instance per session; writes change its DB in place."""

    # -- helpers (not tools) ----------------------------------------------------------------

    def _customer(self, customer_id: str) -> Customer:
        customer = self.db.customers.get(customer_id.strip())
        if customer is None:
            raise ToolError(f"customer {customer_id!r} not found", ErrorClass.not_found)
        return customer

    def _order(self, order_id: str) -> Order:
        order = self.db.orders.get(_order_key(order_id))
        if order is None:
            raise ToolError(f"order {order_id!r} not found", ErrorClass.not_found)
        return order

    def _pending(self, order: Order, action: str) -> None:
        if order.status != "pending":
            raise ToolError(
                f"order {order.id} is {order.status}; only pending orders can be {action}",
                ErrorClass.policy_refusal,
            )

    def _credit(self, order: Order, method_id: str, amount: Decimal) -> None:
        method = self.db.customers[order.customer_id].payment_method(method_id)
        if method is not None and method.balance is not None:
            method.balance += amount

    # -- reads --------------------------------------------------------------------------------

    @tool()
    def find_customer_by_email(self, email: str) -> CustomerMatch:
        """Find the customer account that an email address belongs to.

        Use this to authenticate a customer before looking at or changing anything of theirs.

        Args:
            email: The email address the customer gives, e.g. "maya.okafor@example.com".
        """
        wanted = email.strip().lower()
        for customer in self.db.customers.values():
            if customer.email.lower() == wanted:
                return CustomerMatch(customer_id=customer.id, name=customer.name)
        raise ToolError(f"no customer with email {email!r}", ErrorClass.not_found)

    @tool()
    def get_customer(self, customer_id: str) -> Customer:
        """Get a customer's profile: name, contact details, default address, payment methods.

        Args:
            customer_id: The customer's id, e.g. "C01".
        """
        return self._customer(customer_id).model_copy(deep=True)

    @tool()
    def list_customer_orders(self, customer_id: str) -> list[OrderSummary]:
        """List every order of a customer, oldest first, with status, date and total.

        Args:
            customer_id: The customer's id, e.g. "C01".
        """
        customer = self._customer(customer_id)
        orders = sorted(
            (o for o in self.db.orders.values() if o.customer_id == customer.id),
            key=lambda o: (o.placed_on, o.id),
        )
        return [
            OrderSummary(
                order_id=o.id,
                status=o.status,
                placed_on=o.placed_on,
                total=o.total,
                item_names=[i.name for i in o.items],
            )
            for o in orders
        ]

    @tool()
    def get_order(self, order_id: str) -> Order:
        """Get an order: status, items (with item ids), shipping address, tracking, refunds.

        Args:
            order_id: The order number, e.g. "1042".
        """
        return self._order(order_id).model_copy(deep=True)

    @tool()
    def get_product(self, product_id: str) -> Product:
        """Get a product with every variant's options, price and units in stock.

        Args:
            product_id: The product's id, e.g. "P02" (order items carry it).
        """
        product = self.db.products.get(product_id.strip())
        if product is None:
            raise ToolError(f"product {product_id!r} not found", ErrorClass.not_found)
        return product.model_copy(deep=True)

    # -- writes -------------------------------------------------------------------------------

    @tool(write=True)
    def update_order_address(
        self, order_id: str, line1: str, city: str, state: str, zip_code: str, line2: str = ""
    ) -> Order:
        """Change where a pending order will be delivered. Shipped orders cannot be changed.

        Args:
            order_id: The order number, e.g. "1042".
            line1: Street address, e.g. "18 Quarry Road".
            city: City name.
            state: Two-letter US state code, e.g. "VT".
            zip_code: Five-digit ZIP code, e.g. "05401".
            line2: Apartment, suite or unit; leave empty when there is none.
        """
        order = self._order(order_id)
        self._pending(order, "re-addressed")
        address = Address(
            line1=_clean(line1),
            line2=_clean(line2),
            city=_clean(city),
            state=_clean(state).upper(),
            zip_code=zip_code.strip(),
        )
        if not address.line1 or not address.city:
            raise ToolError("line1 and city must not be empty", ErrorClass.validation_error)
        if not _STATE.fullmatch(address.state):
            raise ToolError(
                f"state must be a two-letter code, got {state!r}", ErrorClass.validation_error
            )
        if not _ZIP.fullmatch(address.zip_code):
            raise ToolError(
                f"zip_code must be five digits, got {zip_code!r}", ErrorClass.validation_error
            )
        order.shipping_address = address
        return order.model_copy(deep=True)

    @tool(write=True)
    def cancel_order(self, order_id: str, reason: CancelReason) -> Order:
        """Cancel a pending order and refund its full total to the payment method it was paid with.

        Only pending orders can be cancelled; shipped or delivered items are returned instead.

        Args:
            order_id: The order number, e.g. "1042".
            reason: Why the customer cancels: "no_longer_needed" or "ordered_by_mistake".
        """
        order = self._order(order_id)
        self._pending(order, "cancelled")
        for item in order.items:
            variant = self.db.products[item.product_id].variant(item.variant_id)
            if variant is not None:
                variant.stock += item.quantity
        refund = Refund(
            id=f"{order.id}-R{len(order.refunds) + 1}",
            kind="cancellation",
            amount=order.total,
            payment_method_id=order.payment_method_id,
            item_ids=[i.item_id for i in order.items],
        )
        order.refunds.append(refund)
        self._credit(order, refund.payment_method_id, refund.amount)
        order.status = "cancelled"
        order.cancel_reason = reason
        return order.model_copy(deep=True)

    def _refund_target(self, order: Order, refund_to: str | None) -> PaymentMethod:
        customer = self.db.customers[order.customer_id]
        method_id = order.payment_method_id if refund_to is None else refund_to.strip()
        method = customer.payment_method(method_id)
        if method is None:
            raise ToolError(
                f"payment method {method_id!r} is not one of the customer's",
                ErrorClass.validation_error,
            )
        if method.id != order.payment_method_id and method.kind != "gift_card":
            raise ToolError(
                "refunds go to the original payment method or one of the customer's gift cards",
                ErrorClass.policy_refusal,
            )
        return method

    @tool(write=True)
    def return_items(
        self, order_id: str, item_ids: list[str], refund_to: str | None = None
    ) -> Refund:
        """Return items of a delivered order and refund them, within 30 days of delivery.

        Args:
            order_id: The order number, e.g. "1031".
            item_ids: Ids of the order items to return, e.g. ["1031-1"] (see get_order).
            refund_to: Payment method id for the refund: the order's original payment method
                (the default) or one of the customer's gift cards.
        """
        order = self._order(order_id)
        if order.status != "delivered":
            raise ToolError(
                f"order {order.id} is {order.status}; only delivered orders can be returned",
                ErrorClass.policy_refusal,
            )
        delivered = order.shipment.delivered_on if order.shipment else None
        if delivered is None:  # the DB check rules this out; kept for the type checker
            raise ToolError(f"order {order.id} has no delivery date", ErrorClass.unknown)
        closes = delivered + dt.timedelta(days=RETURN_WINDOW_DAYS)
        if self.db.today > closes:
            raise ToolError(
                f"order {order.id} was delivered on {delivered}; its return window closed on "
                f"{closes}",
                ErrorClass.policy_refusal,
            )
        wanted = [i.strip() for i in item_ids]
        if not wanted:
            raise ToolError("item_ids must name at least one item", ErrorClass.validation_error)
        if len(set(wanted)) != len(wanted):
            raise ToolError("item_ids lists an item twice", ErrorClass.validation_error)
        by_id = {i.item_id: i for i in order.items}
        unknown = [i for i in wanted if i not in by_id]
        if unknown:
            raise ToolError(
                f"order {order.id} has no item {', '.join(unknown)}; its items are "
                f"{', '.join(by_id)}",
                ErrorClass.validation_error,
            )
        again = [i for i in wanted if by_id[i].returned]
        if again:
            raise ToolError(
                f"item {', '.join(again)} of order {order.id} was already returned",
                ErrorClass.policy_refusal,
            )
        method = self._refund_target(order, refund_to)
        refund = Refund(
            id=f"{order.id}-R{len(order.refunds) + 1}",
            kind="return",
            amount=sum((by_id[i].line_total for i in wanted), start=Decimal(0)),
            payment_method_id=method.id,
            item_ids=wanted,
        )
        for item_id in wanted:
            by_id[item_id].returned = True
        order.refunds.append(refund)
        self._credit(order, method.id, refund.amount)
        if all(i.returned for i in order.items):
            order.status = "returned"
        return refund.model_copy(deep=True)

    @tool(write=True)
    def create_ticket(
        self, customer_id: str, category: TicketCategory, order_id: str | None = None
    ) -> Ticket:
        """Open a support ticket for the human support team (damaged or missing items, billing).

        Args:
            customer_id: The customer's id, e.g. "C01".
            category: One of "damaged_item", "missing_package", "billing", "other".
            order_id: The order the ticket is about, if any.
        """
        customer = self._customer(customer_id)
        key = None
        if order_id is not None:
            order = self._order(order_id)
            if order.customer_id != customer.id:
                raise ToolError(
                    f"order {order.id} does not belong to customer {customer.id}",
                    ErrorClass.policy_refusal,
                )
            key = order.id
        for ticket in self.db.tickets.values():
            same = (ticket.customer_id, ticket.order_id, ticket.category)
            if ticket.status == "open" and same == (customer.id, key, category):
                raise ToolError(
                    f"ticket {ticket.id} is already open for this; not opening a duplicate",
                    ErrorClass.policy_refusal,
                )
        number = max((int(t) for t in self.db.tickets), default=5000) + 1
        ticket = Ticket(
            id=str(number),
            customer_id=customer.id,
            order_id=key,
            category=category,
            status="open",
            opened_on=self.db.today,
        )
        self.db.tickets[ticket.id] = ticket
        return ticket.model_copy(deep=True)

    # -- hand-off -----------------------------------------------------------------------------

    @tool()
    def transfer_to_human_agents(self, summary: str) -> str:
        """Hand the conversation to a human agent. This ends your part of the session.

        Use it only when the customer asks for a person or the request is outside what these
        tools and the policy allow.

        Args:
            summary: A short summary of the customer's issue for the human agent.
        """
        if not summary.strip():
            raise ToolError("summary must not be empty", ErrorClass.validation_error)
        return "Transfer successful: a human agent will take over this conversation."
