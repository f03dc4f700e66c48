"""The retail toolkit's foundation: tau2's error texts, the variant flags, and lookups.

Lookups never write; a tool that changes a record owns it first (`_own`), see `_tau`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from .._tau import TauToolkit
from ._models import GiftCard, Order, PaymentMethod, Product, RetailDB, User, Variant

TAU2_MESSAGES: Mapping[str, str] = {
    "order_not_found": "Order not found",
    "user_not_found": "User not found",
    "product_not_found": "Product not found",
    "item_not_found": "Item not found",
    "variant_not_found": "Variant not found",
    "payment_not_found": "Payment method not found",
    "bad_characters": "Invalid characters in expression",
    "cancel_not_pending": "Non-pending order cannot be cancelled",
    "bad_reason": "Invalid reason",
    "exchange_not_delivered": "Non-delivered order cannot be exchanged",
    "exchange_count": "Number of {item_id} not found.",
    "exchange_length": "The number of items to be exchanged should match.",
    "order_item_missing": "Item {item_id} not found",
    "new_item_unavailable": "New item {item_id} not found or available",
    "exchange_balance": "Insufficient gift card balance to pay for the price difference",
    "modify_not_pending": "Non-pending order cannot be modified",
    "modify_count": "{item_id} not found",
    "modify_length": "The number of items to be exchanged should match",
    "modify_same_item": "The new item id should be different from the old item id",
    "modify_balance": "Insufficient gift card balance to pay for the new item",
    "one_payment": "There should be exactly one payment for a pending order",
    "same_payment": "The new payment method should be different from the current one",
    "payment_balance": "Insufficient gift card balance to pay for the order",
    "return_not_delivered": "Non-delivered order cannot be returned",
    "return_method": "Payment method should be the original payment method",
    "return_count": "Some item not found",
}
"""tau2-bench's retail error texts, by failure."""

_NOT_FOUND = frozenset(
    {
        "order_not_found",
        "user_not_found",
        "product_not_found",
        "item_not_found",
        "variant_not_found",
        "payment_not_found",
        "exchange_count",
        "order_item_missing",
        "new_item_unavailable",
        "modify_count",
        "return_count",
    }
)


class RetailBase(TauToolkit[RetailDB]):
    """Error texts, variant flags and lookups shared by every retail toolkit."""

    TOOLKIT_NAME = "RetailTools"
    MESSAGES = TAU2_MESSAGES
    NOT_FOUND = _NOT_FOUND
    LOOSE_PENDING: ClassVar[bool] = True
    """tau2 lets address and payment changes through for any status containing "pending"
    (so "pending (item modified)" too); tau-bench wants exactly "pending"."""
    REJECT_SAME_ITEM: ClassVar[bool] = True
    """tau2 refuses to "modify" an item into itself; tau-bench has no such check."""
    LAST_VARIANT_PRICES: ClassVar[bool] = True
    """tau2 (the release the reference trajectories ran) gives every modified item the price
    and options of the *last* new variant checked, not its own; the recorded replies and DB
    verdicts show it, so it is kept. tau-bench looks each new variant up."""

    # -- lookups (never write) ------------------------------------------------------------

    def _order(self, order_id: str) -> Order:
        if order_id not in self.db.orders:
            raise self._error("order_not_found")
        return self.db.orders[order_id]

    def _user(self, user_id: str) -> User:
        if user_id not in self.db.users:
            raise self._error("user_not_found")
        return self.db.users[user_id]

    def _product(self, product_id: str) -> Product:
        if product_id not in self.db.products:
            raise self._error("product_not_found")
        return self.db.products[product_id]

    def _variant(self, product_id: str, item_id: str) -> Variant:
        product = self._product(product_id)
        if item_id not in product.variants:
            raise self._error("variant_not_found", item_id=item_id)
        return product.variants[item_id]

    def _payment_method(self, user_id: str, payment_method_id: str) -> PaymentMethod:
        user = self._user(user_id)
        if payment_method_id not in user.payment_methods:
            raise self._error("payment_not_found")
        return user.payment_methods[payment_method_id]

    def _gift_card_for_write(self, user_id: str, payment_method_id: str) -> GiftCard | None:
        """The user's gift card, owned for writing, or None when the method is not one."""
        if not isinstance(self._payment_method(user_id, payment_method_id), GiftCard):
            return None
        card = self._own("users", user_id, User).payment_methods[payment_method_id]
        assert isinstance(card, GiftCard)
        return card

    def _pending_for_change(self, order: Order) -> bool:
        return "pending" in order.status if self.LOOSE_PENDING else order.status == "pending"

    # -- tools ----------------------------------------------------------------------------
