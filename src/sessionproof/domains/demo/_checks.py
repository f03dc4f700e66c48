"""Cross-record consistency of the demo DB.

Field types are checked by pydantic; what is checked here spans records (an order's customer
must exist, its total must match its items). A DB that breaks these would make tools give
answers that contradict each other, and scenarios built on it would judge agents wrongly.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._data_model import DemoDB, Order


def _key_mismatches(kind: str, table: Iterable[tuple[str, str]]) -> list[str]:
    return [f"{kind} {key!r} has id {rid!r}" for key, rid in table if key != rid]


def _check_order(db: DemoDB, order: Order) -> list[str]:
    where = f"order {order.id}"
    out: list[str] = []
    customer = db.customers.get(order.customer_id)
    if customer is None:
        return [f"{where}: unknown customer {order.customer_id!r}"]
    methods = {p.id for p in customer.payment_methods}
    if order.payment_method_id not in methods:
        out.append(f"{where}: payment method {order.payment_method_id!r} is not the customer's")
    item_ids = [i.item_id for i in order.items]
    if not item_ids:
        out.append(f"{where}: has no items")
    if len(set(item_ids)) != len(item_ids):
        out.append(f"{where}: duplicate item ids")
    for item in order.items:
        product = db.products.get(item.product_id)
        if product is None or product.variant(item.variant_id) is None:
            out.append(f"{where}: item {item.item_id} names an unknown product or variant")
        if item.returned and order.status not in ("delivered", "returned"):
            out.append(f"{where}: item {item.item_id} is returned but the order is {order.status}")
    total = sum((i.line_total for i in order.items), start=Decimal(0))
    if total != order.total:
        out.append(f"{where}: total {order.total} does not match its items ({total})")
    if order.placed_on > db.today:
        out.append(f"{where}: placed after today ({order.placed_on})")
    ship = order.shipment
    if order.status in ("pending", "cancelled") and ship is not None:
        out.append(f"{where}: a {order.status} order cannot have a shipment")
    if order.status == "shipped" and (ship is None or ship.delivered_on is not None):
        out.append(f"{where}: a shipped order needs a shipment not yet delivered")
    if order.status in ("delivered", "returned") and (ship is None or ship.delivered_on is None):
        out.append(f"{where}: a {order.status} order needs a delivery date")
    if (order.status == "cancelled") != (order.cancel_reason is not None):
        out.append(f"{where}: a cancel reason goes with the cancelled status, and only with it")
    if order.status == "returned" and not all(i.returned for i in order.items):
        out.append(f"{where}: status returned but not every item is returned")
    refund_ids = [r.id for r in order.refunds]
    if len(set(refund_ids)) != len(refund_ids):
        out.append(f"{where}: duplicate refund ids")
    for refund in order.refunds:
        if refund.payment_method_id not in methods:
            out.append(f"{where}: refund {refund.id} goes to a payment method not the customer's")
        if not set(refund.item_ids) <= set(item_ids):
            out.append(f"{where}: refund {refund.id} names items not in the order")
    return out


def check_db(db: DemoDB) -> list[str]:
    """Every consistency problem of `db`, as readable sentences (empty when consistent)."""
    problems: list[str] = []
    problems += _key_mismatches("customer", ((k, c.id) for k, c in db.customers.items()))
    problems += _key_mismatches("product", ((k, p.id) for k, p in db.products.items()))
    problems += _key_mismatches("order", ((k, o.id) for k, o in db.orders.items()))
    problems += _key_mismatches("ticket", ((k, t.id) for k, t in db.tickets.items()))

    emails = [c.email.lower() for c in db.customers.values()]
    if len(set(emails)) != len(emails):
        problems.append("two customers share an email address")
    method_ids = [p.id for c in db.customers.values() for p in c.payment_methods]
    if len(set(method_ids)) != len(method_ids):
        problems.append("two payment methods share an id")
    variant_ids = [v.id for p in db.products.values() for v in p.variants]
    if len(set(variant_ids)) != len(variant_ids):
        problems.append("two variants share an id")

    for order in db.orders.values():
        problems += _check_order(db, order)

    for ticket in db.tickets.values():
        if ticket.customer_id not in db.customers:
            problems.append(f"ticket {ticket.id}: unknown customer {ticket.customer_id!r}")
        if ticket.order_id is not None:
            owner = db.orders.get(ticket.order_id)
            if owner is None or owner.customer_id != ticket.customer_id:
                problems.append(
                    f"ticket {ticket.id}: order {ticket.order_id} is not the customer's"
                )
        if not ticket.id.isdigit():
            problems.append(f"ticket {ticket.id!r}: ids are numeric")
    return problems
