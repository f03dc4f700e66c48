"""The tau2-bench retail domain: orders, users, products, with tau2's tools and DB.

Registered as `retail`; `spec()` is its lazy factory. The data under `data/` is tau2-bench's
(see data/SOURCE.md).
"""

from ._models import (
    CreditCard,
    GiftCard,
    Order,
    OrderItem,
    OrderPayment,
    Paypal,
    Product,
    RetailDB,
    User,
    UserAddress,
    Variant,
)
from ._spec import load_retail_base, make_spec, retail_policy, spec
from ._tools import TAU2_MESSAGES, RetailCore, RetailTools

__all__ = [
    "TAU2_MESSAGES",
    "CreditCard",
    "GiftCard",
    "Order",
    "OrderItem",
    "OrderPayment",
    "Paypal",
    "Product",
    "RetailCore",
    "RetailDB",
    "RetailTools",
    "User",
    "UserAddress",
    "Variant",
    "load_retail_base",
    "make_spec",
    "retail_policy",
    "spec",
]
