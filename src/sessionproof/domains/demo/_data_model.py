"""The demo world's typed DB: customers, products, orders, support tickets.

Every record forbids unknown fields, so a typo in `db.json` is an error rather than a silently
ignored key. Cross-record consistency (an order's customer exists, its total matches its items)
is checked once, on the whole DB, by `DemoDB`'s validator.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainSerializer, model_validator

from ._checks import check_db

_CENT = Decimal("0.01")


def _to_cents(value: Decimal) -> Decimal:
    # Amounts are compared as text by the `communicate` criterion ("54.20"), so every amount
    # carries exactly two decimals whatever the JSON spelled ("54.2", 54.2).
    if not value.is_finite():
        raise ValueError("an amount must be a finite number")
    cents = value.quantize(_CENT)
    if cents != value:
        raise ValueError(f"an amount has at most two decimals, got {value}")
    if cents < 0:
        raise ValueError(f"an amount cannot be negative, got {value}")
    return cents


Money = Annotated[
    Decimal,
    AfterValidator(_to_cents),
    PlainSerializer(lambda d: f"{d:.2f}", return_type=str, when_used="json"),
]
"""A non-negative amount in dollars with two decimals; JSON shows it as a string ("54.20")."""

OrderStatus = Literal["pending", "shipped", "delivered", "cancelled", "returned"]
"""Lifecycle of an order. Only `pending` orders can be changed or cancelled."""

CancelReason = Literal["no_longer_needed", "ordered_by_mistake"]
"""Why a customer cancels an order."""

TicketCategory = Literal["damaged_item", "missing_package", "billing", "other"]
"""What a support ticket is about."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Address(_Record):
    """A US postal address."""

    line1: str
    line2: str = ""
    """Apartment, suite or unit; empty when there is none."""
    city: str
    state: str
    """Two-letter state code."""
    zip_code: str
    """Five-digit ZIP code."""


class PaymentMethod(_Record):
    """A way a customer pays, and where refunds can go."""

    id: str
    kind: Literal["card", "paypal", "gift_card"]
    label: str
    """How to name it to the customer, e.g. "Visa ending 4242"."""
    balance: Money | None = None
    """Remaining balance; gift cards only."""

    @model_validator(mode="after")
    def _balance_on_gift_cards_only(self) -> PaymentMethod:
        if (self.kind == "gift_card") != (self.balance is not None):
            raise ValueError(f"payment method {self.id}: only gift cards have a balance")
        return self


class Customer(_Record):
    """An account holder."""

    id: str
    name: str
    email: str
    phone: str
    address: Address
    """Default address on the profile."""
    payment_methods: list[PaymentMethod]

    def payment_method(self, method_id: str) -> PaymentMethod | None:
        """The customer's payment method with this id, if they have one."""
        return next((p for p in self.payment_methods if p.id == method_id), None)


class Variant(_Record):
    """One buyable version of a product (size, colour...)."""

    id: str
    options: dict[str, str]
    price: Money
    stock: int = Field(ge=0)
    """Units available to order now; 0 means out of stock."""


class Product(_Record):
    """A catalogue entry with its variants."""

    id: str
    name: str
    variants: list[Variant]

    def variant(self, variant_id: str) -> Variant | None:
        """The variant with this id, if the product has it."""
        return next((v for v in self.variants if v.id == variant_id), None)


class OrderItem(_Record):
    """One line of an order."""

    item_id: str
    product_id: str
    variant_id: str
    name: str
    options: dict[str, str]
    quantity: int = Field(ge=1)
    unit_price: Money
    returned: bool = False
    """True once the line has been returned and refunded."""

    @property
    def line_total(self) -> Decimal:
        """Price of the whole line."""
        return self.unit_price * self.quantity


class Shipment(_Record):
    """Where a shipped order is."""

    carrier: str
    tracking_number: str
    shipped_on: dt.date
    delivered_on: dt.date | None = None


class Refund(_Record):
    """Money sent back to a customer for (part of) an order."""

    id: str
    """`<order id>-R<n>`: numbered within the order, so ids never depend on time or chance."""
    kind: Literal["cancellation", "return"]
    amount: Money
    payment_method_id: str
    item_ids: list[str]


class Order(_Record):
    """A customer's order, its items, where it ships and what was refunded."""

    id: str
    customer_id: str
    status: OrderStatus
    placed_on: dt.date
    items: list[OrderItem]
    shipping_address: Address
    payment_method_id: str
    """The payment method charged for the order."""
    total: Money
    """Amount charged when the order was placed."""
    shipment: Shipment | None = None
    cancel_reason: CancelReason | None = None
    refunds: list[Refund] = Field(default_factory=list)


class OrderSummary(_Record):
    """One line of a customer's order list."""

    order_id: str
    status: OrderStatus
    placed_on: dt.date
    total: Money
    item_names: list[str]


class CustomerMatch(_Record):
    """The account an email address belongs to."""

    customer_id: str
    name: str


class Ticket(_Record):
    """A support ticket handed to the human support team."""

    id: str
    """Numeric string; a new ticket takes the highest existing number plus one."""
    customer_id: str
    order_id: str | None = None
    category: TicketCategory
    status: Literal["open", "closed"]
    opened_on: dt.date


class DemoDB(_Record):
    """The whole demo world. `today` is fixed so that date rules are deterministic."""

    today: dt.date
    customers: dict[str, Customer]
    products: dict[str, Product]
    orders: dict[str, Order]
    tickets: dict[str, Ticket] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> DemoDB:
        problems = check_db(self)
        if problems:
            raise ValueError("inconsistent demo DB: " + "; ".join(problems))
        return self
