"""A real MCP server for the implicit-fault tests (official SDK): the shop of
implicit_world.py, its state in this process.

Usage: python implicit_mcp_server.py   (stdio)
"""

from __future__ import annotations

import json

from mcp.server.fastmcp import FastMCP

server = FastMCP("shop", host="127.0.0.1")
ORDERS = {
    "O1": {"id": "O1", "status": "pending", "total": 42.5, "items": ["lamp", "desk", "chair"]},
    "O2": {"id": "O2", "status": "delivered", "total": 19.99, "items": ["pen", "ink"]},
    "O3": {"id": "O3", "status": "pending", "total": 7.25, "items": ["mug", "tea", "spoon", "jar"]},
}
WRITES = {"n": 0}


@server.tool()
def get_order(order_id: str) -> str:
    """An order by id."""
    if order_id not in ORDERS:
        raise ValueError(f"order {order_id!r} not found")
    return json.dumps(ORDERS[order_id])


@server.tool()
def list_orders() -> str:
    """Every order's id."""
    return json.dumps(sorted(ORDERS))


@server.tool()
def set_status(order_id: str, status: str) -> str:
    """Change an order's status."""
    if order_id not in ORDERS:
        raise ValueError(f"order {order_id!r} not found")
    ORDERS[order_id]["status"] = status
    WRITES["n"] += 1
    return json.dumps({"order_id": order_id, "status": status})


@server.tool()
def add_item(order_id: str, item: str) -> str:
    """Add an item to an order."""
    if order_id not in ORDERS:
        raise ValueError(f"order {order_id!r} not found")
    ORDERS[order_id]["items"].append(item)
    WRITES["n"] += 1
    return json.dumps({"order_id": order_id, "items": len(ORDERS[order_id]["items"])})


@server.tool()
def write_count() -> str:
    """How many status changes this server has applied (the tests' view of its state)."""
    return json.dumps({"writes": WRITES["n"]})


if __name__ == "__main__":
    server.run()
