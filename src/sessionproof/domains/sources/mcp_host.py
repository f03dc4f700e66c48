"""Tools served as MCP servers over streamable HTTP on loopback, through the official `mcp` SDK.

One `McpHost` is one HTTP server on 127.0.0.1; each `mount` adds an MCP server at its own
path (`/s/<token>/mcp`) answering from a `ServedTools` (list, call). `sessionproof serve`
mounts one scenario's tools; the external agents (`http-agent:`, `mcp-agent:`) mount one per
session, so an agent reaches exactly its own session's tools. Tool failures are results
(`isError` set), never protocol errors: the agent sees what a native agent would see.

Arguments are not validated against the tool's schema here: a call that does not fit is the
agent's decision and reaches the session's tool source (and the guard) as it was made.

Imported only when something serves tools (the SDK's server side is not needed otherwise).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import socket
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import CallToolResult, TextContent, Tool
from starlette.types import Message, Receive, Scope, Send

from ...errors import ConfigError
from ...records import ToolResult, ToolSpec

LOOPBACK = "127.0.0.1"


class _ClosedStreamNoise(logging.Filter):
    """Drops the SDK's traceback for a client's SSE stream closed at the end of its MCP
    session (every client that exits cleanly triggers it; it is not an error)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, anyio.ClosedResourceError)


logging.getLogger("mcp.server.streamable_http").addFilter(_ClosedStreamNoise())


class ServedTools(Protocol):
    """What a mounted MCP server answers from."""

    async def list_tools(self) -> list[ToolSpec]:
        """The tools as the agent should see them now."""
        ...

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one call; a failure is a classified result."""
        ...


def _tool(spec: ToolSpec) -> Tool:
    schema = dict(spec.parameters) if spec.parameters else {"type": "object", "properties": {}}
    return Tool(name=spec.name, description=spec.description, inputSchema=schema)


def mcp_server(tools: ServedTools, name: str = "sessionproof") -> Server[Any, Any]:
    """A low-level MCP server whose tools are `tools`' (no input validation: see above)."""
    server: Server[Any, Any] = Server(name)

    @server.list_tools()  # type: ignore[no-untyped-call, untyped-decorator]
    async def listing() -> list[Tool]:
        return [_tool(spec) for spec in await tools.list_tools()]

    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def calling(name: str, arguments: dict[str, Any]) -> CallToolResult:
        result = await tools.call_tool(name, dict(arguments or {}))
        return CallToolResult(
            content=[TextContent(type="text", text=result.output)], isError=not result.ok
        )

    return server


class _QuietServer(uvicorn.Server):
    """uvicorn without its signal handlers: Ctrl-C belongs to the run (or `serve`), which
    stops this server itself."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


@dataclass
class _Mount:
    manager: StreamableHTTPSessionManager
    stop: asyncio.Event
    task: asyncio.Task[None]
    on_closed: Callable[[], None] | None


class McpHost:
    """An HTTP server on loopback holding any number of MCP servers, one per path."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self._mounts: dict[str, _Mount] = {}
        self._server: _QuietServer | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def root(self) -> str:
        """`http://127.0.0.1:PORT` (the bound port once started)."""
        return f"http://{LOOPBACK}:{self.port}"

    async def start(self) -> None:
        """Bind and serve (idempotent). Raises `ConfigError` when the port is taken."""
        if self._server is not None:
            return
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((LOOPBACK, self.port))
        except OSError as exc:
            sock.close()
            raise ConfigError(f"cannot serve MCP on {LOOPBACK}:{self.port}: {exc}") from None
        sock.listen(128)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self._asgi,
            log_level="warning",
            access_log=False,
            lifespan="off",
            ws="none",
            interface="asgi3",
        )
        server = _QuietServer(config)
        self._server = server
        self._task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            if self._task.done():  # it failed to start: say why
                await self._task
                raise ConfigError(f"the MCP host on {self.root} stopped at start")
            await asyncio.sleep(0.005)

    async def mount(
        self, tools: ServedTools, *, on_closed: Callable[[], None] | None = None
    ) -> str:
        """Serve `tools` as an MCP server; returns its URL. `on_closed` is told when a
        client ends its MCP session (the DELETE the SDK's client sends on exit)."""
        await self.start()
        key = secrets.token_urlsafe(12)
        manager = StreamableHTTPSessionManager(
            mcp_server(tools), json_response=True, session_idle_timeout=None
        )
        stop = asyncio.Event()
        ready = asyncio.Event()

        async def hold() -> None:
            # The manager's task group must be entered and left in one task.
            async with manager.run():
                ready.set()
                await stop.wait()

        task = asyncio.create_task(hold())
        self._mounts[key] = _Mount(manager, stop, task, on_closed)
        await ready.wait()
        return f"{self.root}/s/{key}/mcp"

    async def unmount(self, url: str) -> None:
        """Stop serving the MCP server at `url` (nothing happens if there is none)."""
        key = url.rstrip("/").split("/")[-2] if "/s/" in url else url
        mount = self._mounts.pop(key, None)
        if mount is None:
            return
        mount.stop.set()
        with contextlib.suppress(Exception):
            await mount.task

    async def aclose(self) -> None:
        """Unmount everything and stop the HTTP server."""
        for key in list(self._mounts):
            await self.unmount(key)
        server, task = self._server, self._task
        self._server = self._task = None
        if server is not None and task is not None:
            server.should_exit = True
            with contextlib.suppress(Exception):
                await task

    async def _asgi(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        parts = str(scope.get("path", "")).strip("/").split("/")
        mount = (
            self._mounts.get(parts[1])
            if len(parts) == 3 and parts[0] == "s" and parts[2] == "mcp"
            else None
        )
        if mount is None:
            await _not_found(send)
            return
        if scope.get("method") != "DELETE" or mount.on_closed is None:
            await mount.manager.handle_request(scope, receive, send)
            return
        status: list[int] = []

        async def noted(message: Message) -> None:
            if message.get("type") == "http.response.start":
                status.append(int(message.get("status", 0)))
            await send(message)

        await mount.manager.handle_request(scope, receive, noted)
        # Only a DELETE that ended an MCP session (it named one, and it was accepted) ends
        # the served session: a bare or refused DELETE is answered and changes nothing.
        named = any(k.lower() == b"mcp-session-id" for k, _ in scope.get("headers", []))
        if named and status and 200 <= status[0] < 300:
            mount.on_closed()


async def _not_found(send: Send) -> None:
    body = b'{"error": "no MCP server at this path"}'
    await send(
        {
            "type": "http.response.start",
            "status": 404,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})
