"""Implicit faults on an OpenAPI service (a real HTTP server on 127.0.0.1: black-box, its
writes marked by method) and on JSON-schema tools over a typed DB (snapshot and restore)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from sessionproof.domains import Domain, SchemaTool, SchemaTools
from sessionproof.domains.sources._internal import HttpDomainSpec, read_openapi

from .implicit_world import Driver, ShopDB, ShopTools

STATE: dict[str, Any] = {}

DOC = {
    "openapi": "3.0.0",
    "info": {"title": "shop", "version": "1"},
    "paths": {
        "/orders/{order_id}": {
            "get": {
                "operationId": "get_order",
                "parameters": [{"name": "order_id", "in": "path", "schema": {"type": "string"}}],
            }
        },
        "/orders/{order_id}/status": {
            "post": {
                "operationId": "set_status",
                "parameters": [{"name": "order_id", "in": "path", "schema": {"type": "string"}}],
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"status": {"type": "string"}},
                                "required": ["status"],
                            }
                        }
                    }
                },
            }
        },
    },
}


class _Shop(BaseHTTPRequestHandler):
    def _send(self, code: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        order = STATE["orders"].get(self.path.split("/")[2])
        self._send(200 if order else 404, order or {"error": "not found"})

    def do_POST(self) -> None:
        order = STATE["orders"].get(self.path.split("/")[2])
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if order is None:
            self._send(404, {"error": "not found"})
            return
        order["status"] = body["status"]
        STATE["writes"] += 1
        self._send(200, {"order_id": order["id"], "status": order["status"]})

    def log_message(self, *args: Any) -> None:
        return None


@pytest.fixture
def service() -> Iterator[Domain[Any]]:
    STATE.update(orders=json.loads(ShopDB().model_dump_json())["orders"], writes=0)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Shop)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        yield HttpDomainSpec("shop-http", read_openapi(DOC), base, timeout_s=5).create()
    finally:
        server.shutdown()
        server.server_close()


async def test_openapi_write_kinds_on_a_service_that_cannot_be_undone(
    service: Domain[Any],
) -> None:
    noop = Driver(service, "silent_noop:100%", session="a")
    first = await noop.call("set_status", order_id="O1", status="packed")
    echoed = await noop.call("set_status", order_id="O1", status="shipped")
    assert echoed.output == first.output and STATE["writes"] == 1
    assert STATE["orders"]["O1"]["status"] == "packed"
    assert noop.faults()[0]["change"]["forwarded"] is False

    twice = Driver(service, "duplicate_write:100%", session="b")
    await twice.call("set_status", order_id="O2", status="lost")
    assert STATE["writes"] == 3 and twice.faults()[0]["change"]["applied"] == 2

    body = Driver(service, "error_in_body:100%", session="c")
    said = await body.call("set_status", order_id="O3", status="lost")
    assert said.ok and json.loads(said.output)["status"] == "error" and STATE["writes"] == 3


async def test_openapi_read_kinds(service: Domain[Any]) -> None:
    stale = Driver(service, "stale_read:100%")
    await stale.call("get_order", order_id="O3")
    await stale.call("set_status", order_id="O3", status="shipped")
    assert json.loads((await stale.call("get_order", order_id="O3")).output)["status"] == "pending"
    cut = Driver(service, "partial_result:100%", session="d")
    assert len(json.loads((await cut.call("get_order", order_id="O3")).output)["items"]) < 4
    bent = Driver(service, "corrupted_value:100%", session="e")
    served = json.loads((await bent.call("get_order", order_id="O2")).output)
    change = bent.faults()[0]["change"]
    assert served[change["path"]] == change["served"] != change["true"]


def _schema_domain() -> Domain[ShopDB]:
    db = ShopDB()
    toolkit = ShopTools(db)
    tools = [SchemaTool(spec, getattr(toolkit, spec.name)) for spec in ShopTools.specs()]
    return Domain("shop-schema", db, SchemaTools(tools, fast=True), policy="")


async def test_schema_tools_over_a_typed_db_are_snapshotted_and_restored() -> None:
    domain = _schema_domain()
    before = domain.state_hash()
    noop = Driver(domain, "silent_noop:100%")
    result = await noop.call("add_item", order_id="O1", item="rug")
    assert json.loads(result.output) == {"order_id": "O1", "items": 4}
    assert domain.db.orders["O1"].items == ["lamp", "desk", "chair"]
    assert domain.state_hash() == before
    assert noop.faults()[0]["change"] == {"committed": False, "forwarded": True, "restored": True}
    wrong = Driver(domain, "wrong_entity:100%", session="w")
    served = json.loads((await wrong.call("get_order", order_id="O2")).output)
    assert served["id"] in {"O1", "O3"} and wrong.faults()[0]["change"]["source"] == "domain"
