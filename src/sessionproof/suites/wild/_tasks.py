"""The wild suite's task templates: one user turn each, over the demo orders world.

A template turns a few words of the data file (`status 1042`) into a `TaskPlan`: what the
user says, the gold calls in the order a reference agent makes them (steps of calls that can
go in one batch), and the task's labels. The task *type* is read off the steps, never
declared: one call is single-tool, one batch of several is parallel, several steps of one call
each are sequential, several steps with a batch among them are mixed; a template with no calls
is chat, or clarify when the next task answers its question.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ...domains.demo._internal import Customer, DemoDB, Order
from ...errors import InputFileError


class TaskType(StrEnum):
    """What a task asks of the agent (WildToolBench's task types)."""

    single_tool = "single-tool"
    parallel = "parallel"
    sequential = "sequential"
    mixed = "mixed"
    clarify = "clarify"
    chat = "chat"


class Intent(StrEnum):
    """How a later task leans on what came before (WildToolBench's implicit intents)."""

    coreference = "coreference"
    """It refers to an earlier task's order by pronoun ("cancel it")."""
    partial_information = "partial-information"
    """It only supplies the piece an earlier, unanswerable request lacked ("the 1052 one")."""
    long_range = "long-range-dependency"
    """It needs a value the tools returned tasks ago (the customer id), never said by the user."""
    beyond_two_turns = "beyond-two-turns"
    """It refers to something the user said more than two turns back ("the first order")."""


@dataclass
class Call:
    """One gold call of a task."""

    tool: str
    args: dict[str, Any]
    ask_first: list[str] = field(default_factory=list)


@dataclass
class TaskPlan:
    """One task as a template made it."""

    text: str
    goal: str
    """What the user wants (lookup, cancel, return, ticket, chat): a change of goal between
    neighbouring tasks is an instruction transition."""
    steps: list[list[Call]] = field(default_factory=list)
    intent: Intent | None = None
    clarify: bool = False
    """No call can be made yet: the agent must ask (the next task answers)."""
    orders: list[str] = field(default_factory=list)
    """The orders this task is about (what a later "it" or "the first order" means)."""

    @property
    def type(self) -> TaskType:
        """The task type, read off the steps (see the module docstring)."""
        if self.clarify:
            return TaskType.clarify
        calls = sum(len(s) for s in self.steps)
        if calls == 0:
            return TaskType.chat
        if calls == 1:
            return TaskType.single_tool
        if len(self.steps) == 1:
            return TaskType.parallel
        return TaskType.mixed if any(len(s) > 1 for s in self.steps) else TaskType.sequential


@dataclass
class Context:
    """What a template may use: the customer, the world as the session left it, the history."""

    db: DemoDB
    customer: Customer
    tasks: list[TaskPlan] = field(default_factory=list)

    def order(self, order_id: str) -> Order:
        """One order of this customer; a data-file error otherwise."""
        order = self.db.orders.get(order_id)
        if order is None or order.customer_id != self.customer.id:
            raise InputFileError(f"wild suite: {order_id} is not an order of {self.customer.id}")
        return order

    def last_order(self) -> str:
        """The order the latest task that named one was about ("it")."""
        for task in reversed(self.tasks):
            if len(task.orders) == 1:
                return task.orders[0]
        raise InputFileError("wild suite: a coreference task needs one earlier order")

    def first_order(self) -> str:
        """The first order the first task named ("the first order I asked about")."""
        if not self.tasks or not self.tasks[0].orders:
            raise InputFileError("wild suite: 'first_*' needs the first task to name an order")
        return self.tasks[0].orders[0]

    def products(self, order_id: str) -> list[str]:
        """The distinct products of an order, in item order."""
        return list(dict.fromkeys(i.product_id for i in self.order(order_id).items))


def _find(ctx: Context) -> Call:
    return Call("find_customer_by_email", {"email": ctx.customer.email})


def _get(order_id: str, ask: bool = False) -> Call:
    return Call("get_order", {"order_id": order_id}, ["order_id"] if ask else [])


def _products(ctx: Context, order_id: str) -> list[Call]:
    return [Call("get_product", {"product_id": p}) for p in ctx.products(order_id)]


def _cancel(order_id: str, reason: str, ask: bool = False) -> Call:
    args = {"order_id": order_id, "reason": reason}
    return Call("cancel_order", args, ["order_id"] if ask else [])


def _returnable(ctx: Context, order_id: str) -> list[str]:
    order = ctx.order(order_id)
    delivered = order.shipment.delivered_on if order.shipment else None
    if order.status != "delivered" or delivered is None:
        raise InputFileError(f"wild suite: order {order_id} is not delivered")
    if ctx.db.today > delivered + dt.timedelta(days=30):
        raise InputFileError(f"wild suite: order {order_id} is past its return window")
    return [i.item_id for i in order.items]


# -- first tasks: the customer introduces themselves --------------------------------------------


def hello(ctx: Context) -> TaskPlan:
    """Authenticate only."""
    text = f"Hi, this is {ctx.customer.email}. Could you pull up my account?"
    return TaskPlan(text, "lookup", [[_find(ctx)]])


def hello_orders(ctx: Context) -> TaskPlan:
    """Authenticate, then list the orders with the id the lookup returned."""
    cid = ctx.customer.id
    text = f"Hi, I'm {ctx.customer.email}. Which orders do I have with you?"
    return TaskPlan(
        text, "lookup", [[_find(ctx)], [Call("list_customer_orders", {"customer_id": cid})]]
    )


def hello_status(ctx: Context, order_id: str) -> TaskPlan:
    """Authenticate, then read one order."""
    text = f"Hi, my email is {ctx.customer.email}. What's the status of order {order_id}?"
    return TaskPlan(text, "lookup", [[_find(ctx)], [_get(order_id)]], orders=[order_id])


def hello_two(ctx: Context, a: str, b: str) -> TaskPlan:
    """Authenticate, then read two orders in one batch."""
    text = f"Hello, {ctx.customer.email} here. Where are my orders {a} and {b}?"
    return TaskPlan(text, "lookup", [[_find(ctx)], [_get(a), _get(b)]], orders=[a, b])


# -- later tasks ----------------------------------------------------------------------------------


def status(ctx: Context, order_id: str) -> TaskPlan:
    """Read one order, named."""
    return TaskPlan(
        f"What's the status of order {order_id}?", "lookup", [[_get(order_id)]], orders=[order_id]
    )


def two(ctx: Context, a: str, b: str) -> TaskPlan:
    """Read two orders, named, in one batch."""
    text = f"Could you also check orders {a} and {b} for me?"
    return TaskPlan(text, "lookup", [[_get(a), _get(b)]], orders=[a, b])


def product(ctx: Context, order_id: str) -> TaskPlan:
    """Read an order, then its products."""
    text = f"What exactly is in order {order_id}, and is it still in stock?"
    steps = [[_get(order_id)], _products(ctx, order_id)]
    return TaskPlan(text, "lookup", steps, orders=[order_id])


def products(ctx: Context, a: str, b: str) -> TaskPlan:
    """Read two orders in a batch, then all their products in a batch."""
    text = f"Which products are in orders {a} and {b}? Are they in stock?"
    wanted = list(dict.fromkeys(ctx.products(a) + ctx.products(b)))
    steps = [[_get(a), _get(b)], [Call("get_product", {"product_id": p}) for p in wanted]]
    return TaskPlan(text, "lookup", steps, orders=[a, b])


def product_it(ctx: Context) -> TaskPlan:
    """The products of the order just discussed ("it"): its items are already known."""
    order_id = ctx.last_order()
    text = "What's the product in it, exactly? Is it in stock?"
    return TaskPlan(
        text, "lookup", [_products(ctx, order_id)], Intent.coreference, orders=[order_id]
    )


def cancel(ctx: Context, order_id: str) -> TaskPlan:
    """Cancel one order, named."""
    text = f"Please cancel order {order_id}; I no longer need it."
    return TaskPlan(text, "cancel", [[_cancel(order_id, "no_longer_needed")]], orders=[order_id])


def two_cancel(ctx: Context, a: str, b: str) -> TaskPlan:
    """Cancel two orders, named, in one batch."""
    text = f"Please cancel orders {a} and {b}, I no longer need either."
    steps = [[_cancel(a, "no_longer_needed"), _cancel(b, "no_longer_needed")]]
    return TaskPlan(text, "cancel", steps, orders=[a, b])


def cancel_it(ctx: Context) -> TaskPlan:
    """Cancel the order just discussed ("it")."""
    order_id = ctx.last_order()
    text = "Actually, please cancel it. I ordered it by mistake."
    steps = [[_cancel(order_id, "ordered_by_mistake")]]
    return TaskPlan(text, "cancel", steps, Intent.coreference, orders=[order_id])


def return_(ctx: Context, order_id: str) -> TaskPlan:
    """Read a delivered order for its item ids, then return them all."""
    items = _returnable(ctx, order_id)
    text = f"I'd like to return everything in order {order_id}, please."
    steps = [[_get(order_id)], [Call("return_items", {"order_id": order_id, "item_ids": items})]]
    return TaskPlan(text, "return", steps, orders=[order_id])


def return_it(ctx: Context) -> TaskPlan:
    """Return the order just read ("it"): its item ids are already known."""
    order_id = ctx.last_order()
    items = _returnable(ctx, order_id)
    text = "I'd like to send all of it back for a refund."
    steps = [[Call("return_items", {"order_id": order_id, "item_ids": items})]]
    return TaskPlan(text, "return", steps, Intent.coreference, orders=[order_id])


def mine(ctx: Context) -> TaskPlan:
    """List the orders by the customer id the first task's lookup returned."""
    call = Call("list_customer_orders", {"customer_id": ctx.customer.id})
    return TaskPlan("Can you list all my orders?", "lookup", [[call]], Intent.long_range)


def ticket(ctx: Context, order_id: str, category: str) -> TaskPlan:
    """Open a ticket: it needs the customer id from the first task's lookup."""
    what = {"damaged_item": "arrived damaged", "missing_package": "never arrived"}[category]
    text = f"My order {order_id} {what}. Please open a support ticket for it."
    args = {"customer_id": ctx.customer.id, "category": category, "order_id": order_id}
    steps = [[Call("create_ticket", args)]]
    return TaskPlan(text, "ticket", steps, Intent.long_range, orders=[order_id])


def clarify_cancel(ctx: Context) -> TaskPlan:
    """ "Cancel my pending order" with several pending: the agent must ask which."""
    pending = [
        o
        for o in ctx.db.orders.values()
        if o.customer_id == ctx.customer.id and o.status == "pending"
    ]
    if len(pending) < 2:
        raise InputFileError(
            f"wild suite: clarify_cancel needs two pending orders of {ctx.customer.id}"
        )
    return TaskPlan("Please cancel my pending order.", "cancel", clarify=True)


def clarify_status(ctx: Context) -> TaskPlan:
    """ "Check on my order" with several orders: the agent must ask which."""
    return TaskPlan("Can you check on my order for me?", "lookup", clarify=True)


def pick(ctx: Context, order_id: str) -> TaskPlan:
    """The answer to `clarify_cancel`: only the order number."""
    steps = [[_cancel(order_id, "no_longer_needed", ask=True)]]
    text = f"The {order_id} one. I no longer need it."
    return TaskPlan(text, "cancel", steps, Intent.partial_information, orders=[order_id])


def pick_status(ctx: Context, order_id: str) -> TaskPlan:
    """The answer to `clarify_status`: only the order number."""
    text = f"Order {order_id}."
    return TaskPlan(
        text, "lookup", [[_get(order_id, ask=True)]], Intent.partial_information, orders=[order_id]
    )


def first_status(ctx: Context) -> TaskPlan:
    """Read again the order the first task named (more than two turns back)."""
    order_id = ctx.first_order()
    text = "And the first order I asked you about, where is it now?"
    return TaskPlan(text, "lookup", [[_get(order_id)]], Intent.beyond_two_turns, orders=[order_id])


def first_cancel(ctx: Context) -> TaskPlan:
    """Cancel the order the first task named (more than two turns back)."""
    order_id = ctx.first_order()
    text = "Going back to the first order I asked about: please cancel it, I no longer need it."
    steps = [[_cancel(order_id, "no_longer_needed")]]
    return TaskPlan(text, "cancel", steps, Intent.beyond_two_turns, orders=[order_id])


def first_product(ctx: Context) -> TaskPlan:
    """The products of the order the first task named (its items are already known)."""
    order_id = ctx.first_order()
    text = "Which products were in the very first order I asked about? Still in stock?"
    return TaskPlan(
        text, "lookup", [_products(ctx, order_id)], Intent.beyond_two_turns, orders=[order_id]
    )


def chat(ctx: Context) -> TaskPlan:
    """Small talk: no call is right."""
    return TaskPlan("Thanks, that's really helpful!", "chat")


TEMPLATES: dict[str, Callable[..., TaskPlan]] = {
    "hello": hello,
    "hello_orders": hello_orders,
    "hello_status": hello_status,
    "hello_two": hello_two,
    "status": status,
    "two": two,
    "product": product,
    "products": products,
    "product_it": product_it,
    "cancel": cancel,
    "two_cancel": two_cancel,
    "cancel_it": cancel_it,
    "return": return_,
    "return_it": return_it,
    "mine": mine,
    "ticket": ticket,
    "clarify_cancel": clarify_cancel,
    "clarify_status": clarify_status,
    "pick": pick,
    "pick_status": pick_status,
    "first_status": first_status,
    "first_cancel": first_cancel,
    "first_product": first_product,
    "chat": chat,
}
"""Template name (as the data file spells it) → template."""
