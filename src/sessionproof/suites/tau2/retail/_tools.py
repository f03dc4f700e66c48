"""Retail tools with tau2-bench's names, parameters, effects and error texts.

`RetailCore` holds the tools tau2-bench and tau-bench share (the order-changing ones live in
`_orders`); `RetailTools` is tau2's set. The tau-bench variant
(`sessionproof.suites.tau2.taubench`) subclasses the core and changes only what tau-bench does
differently, through `MESSAGES` and the class flags of `RetailBase`.
"""

from __future__ import annotations

import json

from ....domains import tool
from .._tau import CalculatorTool, transfer_to_human_agents
from ._base import TAU2_MESSAGES as TAU2_MESSAGES
from ._models import Order, Product, RetailDB, User, UserAddress, Variant
from ._orders import RetailOrderTools


class RetailCore(RetailOrderTools, CalculatorTool[RetailDB]):
    """Retail tools common to tau2-bench and tau-bench."""

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

    # tau2's hand-off, one definition for both domains; bound here so it keeps its place
    # in the tool list the agent sees.
    transfer_to_human_agents = transfer_to_human_agents


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
