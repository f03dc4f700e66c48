"""Retail tools that change orders: cancel, exchange, return, and pending-order changes."""

from __future__ import annotations

from ....domains import tool
from ._base import RetailBase
from ._models import GiftCard, Order, OrderPayment, UserAddress


class RetailOrderTools(RetailBase):
    """The order-changing retail tools (tau2-bench's names, effects and texts)."""

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
