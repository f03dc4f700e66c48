"""A small real agent for the tests: its own loop over the `openai` SDK, its tools from the
session's MCP server (the `mcp` SDK's client over streamable HTTP).

The model is whatever OpenAI-compatible server `FAKE_OPENAI_URL` names (a scripted fake on
loopback in the tests). Run as a process per session (`mcp-agent:`):

    python openai_mcp_agent.py [stdio | crash | hang | garbage]

— turns as JSON lines on stdin, replies on stdout; `crash`, `hang` and `garbage` misbehave on a
turn that mentions "cancel" (exit 3, never answer, print a non-JSON line) and behave otherwise.
`AgentServer` serves the same agent over HTTP (`http-agent:`).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client
from openai import AsyncOpenAI

Histories = dict[str, list[dict[str, Any]]]


async def handle_turn(histories: Histories, turn: dict[str, Any]) -> str:
    """One user turn: ask the model, run the tool calls it makes over MCP, until it answers."""
    history = histories.setdefault(
        turn["session_id"], [{"role": "system", "content": turn.get("policy") or "Help."}]
    )
    history.append({"role": "user", "content": turn["message"]})
    client = AsyncOpenAI(base_url=os.environ["FAKE_OPENAI_URL"], api_key="test-" + "key")
    async with (
        streamablehttp_client(turn["mcp_url"]) as (read, write, _),
        ClientSession(read, write) as mcp,
    ):
        await mcp.initialize()
        tools: Any = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description or "",
                    "parameters": t.inputSchema,
                },
            }
            for t in (await mcp.list_tools()).tools
        ]
        for _ in range(10):
            completion = await client.chat.completions.create(
                model="fake-model", messages=history, tools=tools
            )
            message = completion.choices[0].message
            if not message.tool_calls:
                history.append({"role": "assistant", "content": message.content or ""})
                await client.close()
                return message.content or ""
            history.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                fn = call.function  # type: ignore[union-attr]
                result = await mcp.call_tool(fn.name, json.loads(fn.arguments))
                text = "".join(getattr(c, "text", "") for c in result.content)
                history.append({"role": "tool", "tool_call_id": call.id, "content": text})
    await client.close()
    return "I could not finish."


class AgentServer:
    """The agent behind a URL on loopback: POST a turn, get `{"message": ...}`."""

    def __init__(self) -> None:
        histories: Histories = {}
        lock = threading.Lock()
        self.turns: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                turn = json.loads(raw)
                with lock:
                    owner.turns.append(turn)
                text = asyncio.run(handle_turn(histories, turn))
                body = json.dumps({"message": text}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """Where to POST turns."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/turn"

    def __enter__(self) -> AgentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def main(mode: str) -> None:
    """The process-per-session agent: one JSON line in, one JSON line out, per turn."""
    histories: Histories = {}
    for line in sys.stdin:
        turn = json.loads(line)
        assert turn["mcp_url"] == os.environ["SESSIONPROOF_MCP_URL"]
        if mode != "stdio" and "cancel" in turn["message"].lower():
            if mode == "crash":
                sys.stderr.write("agent: giving up on purpose\n")
                sys.stderr.flush()
                os._exit(3)
            if mode == "hang":
                time.sleep(600)
            if mode == "garbage":
                print("this is not json", flush=True)
                continue
        text = asyncio.run(handle_turn(histories, turn))
        print(json.dumps({"message": text}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "stdio")
