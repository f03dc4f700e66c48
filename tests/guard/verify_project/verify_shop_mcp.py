"""The same shop as a real MCP server (official SDK), a black box to sessionproof: its state
lives in this process. Usage: python verify_shop_mcp.py"""

from __future__ import annotations

import json

from mcp.server.fastmcp import FastMCP

server = FastMCP("verify-shop", host="127.0.0.1")
ORDERS = {
    "O1": {
        "order_id": "O1",
        "status": "pending",
        "lines": [{"sku": "a", "price": 10.0}],
        "total": 10.0,
        "refunded": 0.0,
    },
    "O-stuck": {
        "order_id": "O-stuck",
        "status": "pending",
        "lines": [{"sku": "b", "price": 5.0}],
        "total": 5.0,
        "refunded": 0.0,
    },
    "O-shipped": {
        "order_id": "O-shipped",
        "status": "shipped",
        "lines": [{"sku": "c", "price": 7.0}],
        "total": 7.0,
        "refunded": 0.0,
    },
    "O-bad": {
        "order_id": "O-bad",
        "status": "pending",
        "lines": [{"sku": "d", "price": 3.0}, {"sku": "e", "price": 4.0}],
        "total": 99.0,
        "refunded": 0.0,
    },
}


@server.tool()
def get_order(order_id: str) -> str:
    """Look an order up."""
    return json.dumps(ORDERS[order_id])


@server.tool()
def cancel_order(order_id: str) -> str:
    """Cancel an order."""
    if order_id != "O-stuck":
        ORDERS[order_id]["status"] = "cancelled"
    return '{"result": "ok"}'


@server.tool()
def refund(order_id: str, amount: float, request_id: str) -> str:
    """Refund part of an order."""
    ORDERS[order_id]["refunded"] += amount
    return json.dumps({"refunded": ORDERS[order_id]["refunded"]})


if __name__ == "__main__":
    server.run()
