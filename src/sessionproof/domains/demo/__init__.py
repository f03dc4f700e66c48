"""The built-in `demo` domain and suite: a small orders / help-desk world.

Customers with addresses and payment methods, products with stocked variants, orders that move
from pending to shipped to delivered, refunds and support tickets; ten tools over them, a
policy for the agent, and a scripted scenario suite. Nothing is read until it is asked for.
"""

from ._data_model import (
    Address,
    CancelReason,
    Customer,
    CustomerMatch,
    DemoDB,
    Money,
    Order,
    OrderItem,
    OrderStatus,
    OrderSummary,
    PaymentMethod,
    Product,
    Refund,
    Shipment,
    Ticket,
    TicketCategory,
    Variant,
)
from ._load import DOMAIN_NAME, initial_db, load_policy, load_scenarios, parse_db, parse_scenarios
from ._spec import TRANSFER_TOOLS, DemoSpec, spec
from ._tools import RETURN_WINDOW_DAYS, DemoTools

__all__ = [
    "DOMAIN_NAME",
    "RETURN_WINDOW_DAYS",
    "TRANSFER_TOOLS",
    "Address",
    "CancelReason",
    "Customer",
    "CustomerMatch",
    "DemoDB",
    "DemoSpec",
    "DemoTools",
    "Money",
    "Order",
    "OrderItem",
    "OrderStatus",
    "OrderSummary",
    "PaymentMethod",
    "Product",
    "Refund",
    "Shipment",
    "Ticket",
    "TicketCategory",
    "Variant",
    "initial_db",
    "load_policy",
    "load_scenarios",
    "parse_db",
    "parse_scenarios",
    "spec",
]
