"""The retail DB: products with variants, users with payment methods, orders.

Field names, order and types follow tau2-bench's retail data model, because tool replies are
`model_dump()` in field order and the DB verdict compares states value for value (a balance
stored as 88 and one stored as 88.0 are different states there, and here).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Variant(_Record):
    """One purchasable item: a product with a set of options."""

    item_id: str
    options: dict[str, str]
    available: bool
    price: float


class Product(_Record):
    """A product type and its variants, keyed by item id."""

    name: str
    product_id: str
    variants: dict[str, Variant]


class UserName(_Record):
    """A user's first and last name."""

    first_name: str
    last_name: str


class UserAddress(_Record):
    """A postal address."""

    address1: str
    address2: str
    city: str
    country: str
    state: str
    zip: str


class CreditCard(_Record):
    """A saved credit card."""

    source: Literal["credit_card"]
    id: str
    brand: str
    last_four: str


class GiftCard(_Record):
    """A gift card with a balance (refunds to it are immediate)."""

    source: Literal["gift_card"]
    id: str
    balance: float


class Paypal(_Record):
    """A PayPal account."""

    source: Literal["paypal"]
    id: str


PaymentMethod = Annotated[CreditCard | GiftCard | Paypal, Field(discriminator="source")]
"""A saved payment method, told apart by `source`."""


class User(_Record):
    """A customer: identity, default address, payment methods, order ids."""

    user_id: str
    name: UserName
    address: UserAddress
    email: str
    payment_methods: dict[str, PaymentMethod]
    orders: list[str]


class OrderFullfilment(_Record):
    """Shipments of an order (the misspelling is tau2's model name)."""

    tracking_id: list[str]
    item_ids: list[str]


class OrderItem(_Record):
    """One item line of an order, priced at purchase time."""

    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


class OrderPayment(_Record):
    """A payment or refund on an order."""

    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


OrderStatus = Literal[
    "processed",
    "pending",
    "pending (item modified)",
    "delivered",
    "cancelled",
    "exchange requested",
    "return requested",
]
"""Where an order is in its life."""


class Order(_Record):
    """An order with its items, status, shipments and payments."""

    order_id: str
    user_id: str
    address: UserAddress
    items: list[OrderItem]
    status: OrderStatus
    fulfillments: list[OrderFullfilment]
    payment_history: list[OrderPayment]
    cancel_reason: Literal["no longer needed", "ordered by mistake"] | None = None
    exchange_items: list[str] | None = None
    exchange_new_items: list[str] | None = None
    exchange_payment_method_id: str | None = None
    exchange_price_difference: float | None = None
    return_items: list[str] | None = None
    return_payment_method_id: str | None = None


class RetailDB(_Record):
    """The whole retail world, three tables keyed by id."""

    products: dict[str, Product]
    users: dict[str, User]
    orders: dict[str, Order]


TABLES = ("products", "users", "orders")
"""RetailDB's record tables (copied per session, written record by record)."""
