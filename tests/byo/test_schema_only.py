"""Schema-only tools answered from fixtures (OpenAI tools, OpenAPI), and an OpenAPI document
against a live loopback HTTP service, each running a scenario end to end."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from sessionproof.records import ErrorClass

from .test_mcp import _run

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]

OPENAPI = {
    "openapi": "3.0.0",
    "info": {"title": "pets", "version": "1"},
    "paths": {
        "/pets/{pet_id}": {
            "get": {
                "operationId": "get_pet",
                "summary": "One pet.",
                "parameters": [{"name": "pet_id", "in": "path", "schema": {"type": "integer"}}],
            }
        },
        "/pets": {
            "post": {
                "operationId": "add_pet",
                "requestBody": {
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                    }
                },
            }
        },
    },
    "components": {
        "schemas": {
            "Pet": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            }
        }
    },
}


def _scenario(sid: str, domain: str, tool: str, args: str, expect: str) -> str:
    return (
        f"  - id: {sid}\n    domain: {domain}\n    user: {{turns: [go]}}\n"
        f"    criteria:\n      gold_actions: [{{tool: {tool}, args: {args}}}]\n"
        f"      expected_calls: [{{tool: {tool}, args: {expect}}}]\n"
    )


def test_openai_tools_with_fixtures(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "fx.yaml").write_text(
        "- {tool: get_weather, args: {city: Paris}, output: {temp: 21}}\n"
        "- {tool: get_weather, args: {city: Oslo}, error: upstream down,"
        " error_class: unavailable}\n"
    )
    path = tmp_path / "s.yaml"
    path.write_text(
        "domains:\n  wx: {tools: tools.json, fixtures: fx.yaml}\nscenarios:\n"
        + _scenario("paris", "wx", "get_weather", "{city: Paris, unit: C}", "{city: [Paris]}")
        + _scenario("oslo", "wx", "get_weather", "{city: Oslo}", "{city: [Oslo]}")
        + _scenario("rome", "wx", "get_weather", "{city: Rome}", "{city: [Rome]}")
    )
    oslo, paris, rome = _run(path)
    assert paris.tool_results()[0].output == '{"temp": 21}'
    assert paris.outcome is not None and paris.outcome.success
    assert oslo.tool_results()[0].error_class == ErrorClass.unavailable
    assert rome.tool_results()[0].error_class == ErrorClass.not_found
    assert "no fixture for get_weather" in rome.tool_results()[0].output
    assert not (oslo.outcome and oslo.outcome.success)


def test_openapi_with_fixtures(tmp_path: Path) -> None:
    (tmp_path / "api.json").write_text(json.dumps(OPENAPI))
    path = tmp_path / "s.yaml"
    path.write_text(
        "domains:\n  pets:\n    openapi: api.json\n"
        "    fixtures: [{tool: get_pet, args: {pet_id: 7}, output: {name: Rex}}]\n"
        "scenarios:\n" + _scenario("rex", "pets", "get_pet", "{pet_id: 7}", "{pet_id: [7]}")
    )
    (rex,) = _run(path)
    assert rex.tool_results()[0].output == '{"name": "Rex"}'
    assert rex.outcome is not None and rex.outcome.success


class _Pets(BaseHTTPRequestHandler):
    pets: ClassVar[dict[int, str]] = {7: "Rex"}

    def _send(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        pet_id = int(self.path.rsplit("/", 1)[-1])
        if pet_id in self.pets:
            self._send(200, {"name": self.pets[pet_id]})
        else:
            self._send(404, {"error": "no such pet"})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.pets[8] = body["name"]
        self._send(201, {"id": 8, "name": body["name"]})

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def pet_service() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pets)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_openapi_against_a_live_loopback_service(tmp_path: Path, pet_service: str) -> None:
    (tmp_path / "api.json").write_text(json.dumps(OPENAPI))
    path = tmp_path / "s.yaml"
    path.write_text(
        f'domains:\n  pets: {{openapi: api.json, base_url: "{pet_service}"}}\nscenarios:\n'
        + _scenario("get", "pets", "get_pet", "{pet_id: 7}", "{pet_id: [7]}")
        + _scenario("add", "pets", "add_pet", "{name: Tom}", "{name: [Tom]}")
        + _scenario("missing", "pets", "get_pet", "{pet_id: 99}", "{pet_id: [99]}")
    )
    add, get, missing = _run(path)
    assert get.tool_results()[0].output == '{"name": "Rex"}'
    assert add.tool_results()[0].output == '{"id": 8, "name": "Tom"}'
    assert _Pets.pets[8] == "Tom"  # a real request reached the service
    assert missing.tool_results()[0].error_class == ErrorClass.not_found
    assert get.outcome is not None and get.outcome.success
    assert add.outcome is not None and add.outcome.success
    assert missing.outcome is not None and not missing.outcome.success
