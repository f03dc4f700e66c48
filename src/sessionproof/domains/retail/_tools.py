"""Retail tools with tau2-bench's names, parameters, effects and error texts.

`RetailCore` holds the tools tau2-bench and tau-bench share; `RetailTools` is tau2's set. The
tau-bench variant (`sessionproof.domains.taubench`) subclasses the core and changes only what
tau-bench does differently, through `MESSAGES` and the class flags below.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import ClassVar

from .._tau import TauToolkit, calculate
from .._toolkit import tool
from ._models import (
    GiftCard,
    Order,
    OrderPayment,
    PaymentMethod,
    Product,
    RetailDB,
    User,
    UserAddress,
    Variant,
)

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


class RetailCore(TauToolkit[RetailDB]):
    """Retail tools common to tau2-bench and tau-bench."""

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

    @tool()
    def calculate(self, expression: str) -> str:
        """Evaluate an arithmetic expression and return the result rounded to two decimals.

        Args:
            expression: The expression, e.g. '12.5 * 3 - 4'. Digits, + - * /, parentheses,
                dots and spaces only.
        """
        try:
            return calculate(expression)
        except ValueError as exc:
            if str(exc) == "Invalid characters in expression":
                raise self._error("bad_characters") from None
            raise

    @tool(write=True)
    def cancel_pending_order(self, order_id: str, reason: str) -> Order:
        """Cancel an order whose status is 'pending' and refund its payments.

        Gift-card payments are refunded to the card at once; other methods take 5-7 business
        days. Explain the details and get an explicit yes from the user before calling.

        Args:
            order_id: The order id, starting with '#', e.g. '#W0000000'.
            reason: Why the user cancels: 'no longer needed' or 'ordered by mistake'.
        """
        order = self._order(order_id)
        if order.status != "pending":
            raise self._error("cancel_not_pending")
        if reason not in {"no longer needed", "ordered by mistake"}:
            raise self._error("bad_reason")
        order = self._own("orders", order_id, Order)
        refunds = []
        for payment in order.payment_history:
            refunds.append(
                OrderPayment(
                    transaction_type="refund",
                    amount=payment.amount,
                    payment_method_id=payment.payment_method_id,
                )
            )
            card = self._gift_card_for_write(order.user_id, payment.payment_method_id)
            if card is not None:
                card.balance = round(card.balance + payment.amount, 2)
        order.status = "cancelled"
        order.cancel_reason = reason  # type: ignore[assignment]
        order.payment_history.extend(refunds)
        return order

    @tool(write=True)
    def exchange_delivered_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> Order:
        """Request an exchange of items of a delivered order for other variants of the same
        products. Can be done once per delivered order; collect every item first, explain the
        details and get an explicit yes from the user before calling.

        Args:
            order_id: The order id, starting with '#', e.g. '#W0000000'.
            item_ids: Item ids to exchange (repeat an id to exchange several of it).
            new_item_ids: The replacement item ids, position by position, each a variant of
                the same product as the item it replaces.
            payment_method_id: The user's payment method that pays or receives the price
                difference, e.g. 'gift_card_0000000' or 'credit_card_0000000'.
        """
        order = self._order(order_id)
        if order.status != "delivered":
            raise self._error("exchange_not_delivered")
        held = [item.item_id for item in order.items]
        for item_id in item_ids:
            if item_ids.count(item_id) > held.count(item_id):
                raise self._error("exchange_count", item_id=item_id)
        if len(item_ids) != len(new_item_ids):
            raise self._error("exchange_length")
        # Starts as the int 0, as in tau2: an empty exchange stores 0, not 0.0.
        diff_price: float = 0
        for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
            item = next((i for i in order.items if i.item_id == item_id), None)
            if item is None:
                raise self._error("order_item_missing", item_id=item_id)
            variant = self._variant(item.product_id, new_item_id)
            if not variant.available:
                raise self._error("new_item_unavailable", item_id=new_item_id)
            diff_price += variant.price - item.price
        diff_price = round(diff_price, 2)
        method = self._payment_method(order.user_id, payment_method_id)
        if isinstance(method, GiftCard) and method.balance < diff_price:
            raise self._error("exchange_balance")
        order = self._own("orders", order_id, Order)
        order.status = "exchange requested"
        order.exchange_items = sorted(item_ids)
        order.exchange_new_items = sorted(new_item_ids)
        order.exchange_payment_method_id = payment_method_id
        order.exchange_price_difference = diff_price
        return order

    @tool()
    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        """Look up a user id from first name, last name and zip code (names match without
        regard to case). Prefer looking up by email; use this when the user has no email.

        Args:
            first_name: The user's first name, e.g. 'John'.
            last_name: The user's last name, e.g. 'Doe'.
            zip: The user's zip code, e.g. '12345'.
        """
        for user_id, user in self.db.users.items():
            if (
                user.name.first_name.lower() == first_name.lower()
                and user.name.last_name.lower() == last_name.lower()
                and user.address.zip == zip
            ):
                return user_id
        raise self._error("user_not_found")

    @tool()
    def find_user_id_by_email(self, email: str) -> str:
        """Look up a user id from an email address (without regard to case).

        Args:
            email: The user's email, e.g. 'someone@example.com'.
        """
        for user_id, user in self.db.users.items():
            if user.email.lower() == email.lower():
                return user_id
        raise self._error("user_not_found")

    @tool()
    def get_order_details(self, order_id: str) -> Order:
        """Show an order: items, status, shipments and payments.

        Args:
            order_id: The order id, starting with '#', e.g. '#W0000000'.
        """
        return self._order(order_id)

    @tool()
    def get_product_details(self, product_id: str) -> Product:
        """Show a product type and all its variants (item ids, options, stock, price).

        Args:
            product_id: The product id, e.g. '6086499569' (not an item id).
        """
        return self._product(product_id)

    @tool()
    def get_user_details(self, user_id: str) -> User:
        """Show a user's profile: name, address, email, payment methods and order ids.

        Args:
            user_id: The user id, e.g. 'sara_doe_496'.
        """
        return self._user(user_id)

    @tool()
    def list_all_product_types(self) -> str:
        """List every product type's name and product id, as a JSON object sorted by name."""
        names = {product.name: product.product_id for product in self.db.products.values()}
        return json.dumps(names, sort_keys=True)

    @tool(write=True)
    def modify_pending_order_address(
        self,
        order_id: str,
        address1: str,
        address2: str,
        city: str,
        state: str,
        country: str,
        zip: str,
    ) -> Order:
        """Change the shipping address of a pending order. Explain the change and get an
        explicit yes from the user before calling.

        Args:
            order_id: The order id, starting with '#', e.g. '#W0000000'.
            address1: First address line, e.g. '123 Main St'.
            address2: Second address line, e.g. 'Apt 1', or ''.
            city: City, e.g. 'San Francisco'.
            state: State, e.g. 'CA'.
            country: Country, e.g. 'USA'.
            zip: Zip code, e.g. '12345'.
        """
        if not self._pending_for_change(self._order(order_id)):
            raise self._error("modify_not_pending")
        address = UserAddress(
            address1=address1, address2=address2, city=city, state=state, country=country, zip=zip
        )
        order = self._own("orders", order_id, Order)
        order.address = address
        return order

    @tool(write=True)
    def modify_pending_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> Order:
        """Swap items of a pending order for other variants of the same products. Allowed
        once per order; collect every item first, explain the details and get an explicit yes
        from the user before calling.

        Args:
            order_id: The order id, starting with '#', e.g. '#W0000000'.
            item_ids: Item ids to change (repeat an id to change several of it).
            new_item_ids: The new item ids, position by position, each a different variant of
                the same product as the item it replaces.
            payment_method_id: The user's payment method that pays or receives the price
                difference, e.g. 'gift_card_0000000' or 'credit_card_0000000'.
        """
        order = self._order(order_id)
        if order.status != "pending":
            raise self._error("modify_not_pending")
        held = [item.item_id for item in order.items]
        for item_id in item_ids:
            if item_ids.count(item_id) > held.count(item_id):
                raise self._error("modify_count", item_id=item_id)
        if len(item_ids) != len(new_item_ids):
            raise self._error("modify_length")
        diff_price: float = 0
        for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
            if self.REJECT_SAME_ITEM and item_id == new_item_id:
                raise self._error("modify_same_item")
            item = next((i for i in order.items if i.item_id == item_id), None)
            if item is None:
                raise self._error("order_item_missing", item_id=item_id)
            variant = self._variant(item.product_id, new_item_id)
            if not variant.available:
                raise self._error("new_item_unavailable", item_id=new_item_id)
            diff_price += variant.price - item.price
        method = self._payment_method(order.user_id, payment_method_id)
        if isinstance(method, GiftCard) and method.balance < diff_price:
            raise self._error("modify_balance")
        order = self._own("orders", order_id, Order)
        # Unrounded, as tau2 records it: only the card balance is rounded.
        order.payment_history.append(
            OrderPayment(
                transaction_type="payment" if diff_price > 0 else "refund",
                amount=abs(diff_price),
                payment_method_id=payment_method_id,
            )
        )
        card = self._gift_card_for_write(order.user_id, payment_method_id)
        if card is not None:
            card.balance = round(card.balance - diff_price, 2)
        for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
            item = next(i for i in order.items if i.item_id == item_id)
            if not self.LAST_VARIANT_PRICES:
                variant = self._variant(item.product_id, new_item_id)
            item.item_id = new_item_id
            item.price = variant.price
            item.options = dict(variant.options)
        order.status = "pending (item modified)"
        return order

    @tool(write=True)
    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> Order:
        """Pay a pending order with another of the user's payment methods; the original
        payment is refunded. Explain the change and get an explicit yes before calling.

        Args:
            order_id: The order id, starting with '#', e.g. '#W0000000'.
            payment_method_id: The new payment method, e.g. 'gift_card_0000000' or
                'credit_card_0000000'; it must differ from the current one.
        """
        order = self._order(order_id)
        if not self._pending_for_change(order):
            raise self._error("modify_not_pending")
        method = self._payment_method(order.user_id, payment_method_id)
        history = order.payment_history
        if len(history) != 1 or history[0].transaction_type != "payment":
            raise self._error("one_payment")
        old_id = history[0].payment_method_id
        if old_id == payment_method_id:
            raise self._error("same_payment")
        amount = history[0].amount
        if isinstance(method, GiftCard) and method.balance < amount:
            raise self._error("payment_balance")
        order = self._own("orders", order_id, Order)
        order.payment_history.extend(
            [
                OrderPayment(
                    transaction_type="payment", amount=amount, payment_method_id=payment_method_id
                ),
                OrderPayment(transaction_type="refund", amount=amount, payment_method_id=old_id),
            ]
        )
        card = self._gift_card_for_write(order.user_id, payment_method_id)
        if card is not None:
            card.balance = round(card.balance - amount, 2)
        old_card = self._gift_card_for_write(order.user_id, old_id)
        if old_card is not None:
            old_card.balance = round(old_card.balance + amount, 2)
        return order

    @tool(write=True)
    def modify_user_address(
        self,
        user_id: str,
        address1: str,
        address2: str,
        city: str,
        state: str,
        country: str,
        zip: str,
    ) -> User:
        """Change a user's default address. Explain the change and get an explicit yes from
        the user before calling.

        Args:
            user_id: The user id, e.g. 'sara_doe_496'.
            address1: First address line, e.g. '123 Main St'.
            address2: Second address line, e.g. 'Apt 1', or ''.
            city: City, e.g. 'San Francisco'.
            state: State, e.g. 'CA'.
            country: Country, e.g. 'USA'.
            zip: Zip code, e.g. '12345'.
        """
        self._user(user_id)
        address = UserAddress(
            address1=address1, address2=address2, city=city, state=state, country=country, zip=zip
        )
        user = self._own("users", user_id, User)
        user.address = address
        return user

    @tool(write=True)
    def return_delivered_order_items(
        self, order_id: str, item_ids: list[str], payment_method_id: str
    ) -> Order:
        """Request the return of items of a delivered order; the user then gets an email on
        how to send them back. Explain the details and get an explicit yes before calling.

        Args:
            order_id: The order id, starting with '#', e.g. '#W0000000'.
            item_ids: Item ids to return (repeat an id to return several of it).
            payment_method_id: Where the refund goes: the order's original payment method or
                one of the user's gift cards.
        """
        order = self._order(order_id)
        if order.status != "delivered":
            raise self._error("return_not_delivered")
        method = self._payment_method(self._user(order.user_id).user_id, payment_method_id)
        if (
            not isinstance(method, GiftCard)
            and payment_method_id != order.payment_history[0].payment_method_id
        ):
            raise self._error("return_method")
        held = [item.item_id for item in order.items]
        for item_id in item_ids:
            if item_ids.count(item_id) > held.count(item_id):
                raise self._error("return_count")
        order = self._own("orders", order_id, Order)
        order.status = "return requested"
        order.return_items = sorted(item_ids)
        order.return_payment_method_id = payment_method_id
        return order

    @tool()
    def transfer_to_human_agents(self, summary: str) -> str:
        """Hand the conversation to a human agent. Only when the user asks for one, or when
        the request cannot be solved with these tools under the policy.

        Args:
            summary: A short summary of the user's issue for the human agent.
        """
        return "Transfer successful"


class RetailTools(RetailCore):
    """tau2-bench's retail tools: the shared core plus item lookup."""

    @tool()
    def get_item_details(self, item_id: str) -> Variant:
        """Show one item (a product variant): options, stock and price.

        Args:
            item_id: The item id, e.g. '6086499569' (not a product id).
        """
        for product in self.db.products.values():
            if item_id in product.variants:
                return product.variants[item_id]
        raise self._error("item_not_found")
