"""A small shop, served three ways for the implicit-fault tests: a typed toolkit, a real MCP
server (implicit_mcp_server.py, over stdio with the `mcp` SDK) and fixtures."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sessionproof.domains import Domain, Toolkit, ToolSource, tool
from sessionproof.domains.sources import Fixture, FixtureBook, FixtureDomainSpec
from sessionproof.domains.sources.mcp_source import McpDomainSpec
from sessionproof.errors import ToolError
from sessionproof.faults import FaultPlan
from sessionproof.faults._internal import FaultInjector
from sessionproof.records import EventKind, ToolCall, ToolResult, ToolSpec

from .world import Events, context

MCP_SERVER = Path(__file__).parent / "implicit_mcp_server.py"


class Order(BaseModel):
    """One order."""

    model_config = ConfigDict(extra="forbid")

    id: str
    status: str
    total: float
    items: list[str]


def _orders() -> dict[str, Order]:
    return {
        "O1": Order(id="O1", status="pending", total=42.5, items=["lamp", "desk", "chair"]),
        "O2": Order(id="O2", status="delivered", total=19.99, items=["pen", "ink"]),
        "O3": Order(id="O3", status="pending", total=7.25, items=["mug", "tea", "spoon", "jar"]),
    }


class ShopDB(BaseModel):
    """The shop's state."""

    model_config = ConfigDict(extra="forbid")

    orders: dict[str, Order] = Field(default_factory=_orders)


class ShopTools(Toolkit[ShopDB]):
    """Read orders, change an order's status."""

    @tool()
    def get_order(self, order_id: str) -> Order:
        """An order by id.

        Args:
            order_id: The order's id, e.g. "O1".
        """
        order = self.db.orders.get(order_id)
        if order is None:
            raise ToolError(f"order {order_id!r} not found", "not_found")
        return order.model_copy()

    @tool()
    def list_orders(self) -> list[str]:
        """Every order's id."""
        return sorted(self.db.orders)

    @tool(write=True)
    def set_status(self, order_id: str, status: str) -> str:
        """Change an order's status.

        Args:
            order_id: The order's id.
            status: The new status.
        """
        order = self.db.orders.get(order_id)
        if order is None:
            raise ToolError(f"order {order_id!r} not found", "not_found")
        order.status = status
        return json.dumps({"order_id": order_id, "status": status})

    @tool(write=True)
    def add_item(self, order_id: str, item: str) -> str:
        """Add an item to an order.

        Args:
            order_id: The order's id.
            item: The item's name.
        """
        order = self.db.orders.get(order_id)
        if order is None:
            raise ToolError(f"order {order_id!r} not found", "not_found")
        order.items.append(item)
        return json.dumps({"order_id": order_id, "items": len(order.items)})


def typed_domain() -> Domain[ShopDB]:
    """A fresh typed shop."""
    db = ShopDB()
    return Domain("shop", db, ShopTools(db), policy="")


def mcp_domain() -> Domain[Any]:
    """A shop behind a real MCP server over stdio (its listing marks no writes)."""
    spec = McpDomainSpec("shop-mcp", command=[sys.executable, str(MCP_SERVER)], timeout_s=20)
    return spec.create()


def fixture_domain() -> Domain[Any]:
    """The shop as fixtures (its OpenAPI-like specs mark set_status as the write)."""
    specs = ShopTools.specs()
    orders = _orders()
    fixtures = [
        *(
            Fixture("get_order", {"order_id": k}, json.loads(o.model_dump_json()))
            for k, o in orders.items()
        ),
        Fixture("list_orders", None, sorted(orders)),
        Fixture("set_status", None, {"ok": True}),
        Fixture("add_item", None, {"ok": True}),
    ]
    return FixtureDomainSpec("shop-fixtures", specs, FixtureBook(fixtures)).create()


class Driver:
    """Calls a source through one fault plan, like the engine: one context, every event kept."""

    def __init__(self, source: ToolSource, spec: str, seed: int = 3, session: str = "s") -> None:
        self.events = Events()
        self.source = FaultInjector(FaultPlan.parse(spec), seed=seed).wrap(source)
        self.ctx = context(self.events, seed=seed, session_id=session)
        self.results: list[ToolResult] = []

    async def call(self, name: str, **args: Any) -> ToolResult:
        """One call; its result is kept, as the agent would see it."""
        n = len(self.results)
        call = ToolCall(id=f"c{n}", name=name, arguments=args)
        result = await self.source.call_tool(call, self.ctx)
        self.results.append(result)
        return result

    def faults(self) -> list[dict[str, Any]]:
        """The implicit_fault events' payloads, in order."""
        return self.events.of(EventKind.implicit_fault)

    async def specs(self) -> list[ToolSpec]:
        """The tools as listed through the plan."""
        return await self.source.list_tools(self.ctx)
