"""A domain from the tools of a running MCP server, through the official `mcp` SDK.

The server is started per session over stdio (`command`) or reached over streamable HTTP
(`url`), listed once, called live, and closed when the session ends. Every failure is a
classified result, so a broken server ends only its own session: a call past the timeout
(a hung server) is `timeout`; a server that exits or drops the connection is `unavailable`
and the source is then `gone()`, so the engine ends that session as `infra_error` (not the
agent's failure; excluded from accuracy); a tool error is classified from its text; a
result with no readable content is `malformed_output`.

Imported only when a suite names an MCP domain (the SDK is not needed otherwise).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import threading
import time
from collections.abc import Coroutine
from contextlib import AsyncExitStack
from datetime import timedelta
from typing import IO, Any, TypeVar

import anyio
from mcp import ClientSession, McpError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client
from mcp.types import CallToolResult, TextContent

from ...errors import ConfigError
from ...records import ErrorClass, ToolCall, ToolResult, ToolSpec
from ...taxonomy import classify_text
from .. import Domain, DomainSpec, ToolContext, error_result, unparsed_result
from ._fixtures import NoState

T = TypeVar("T")
SHARED_REFUSED = (
    "`shared: true` is refused: each session starts its own server so that every session "
    "starts from the same state (one server for the run would carry one session's writes "
    "into the next and mix concurrent sessions' writes, so verdicts would depend on "
    "scheduling, and a stdio pipe cannot cross executor processes). To share one server, "
    "start it yourself and give its `url`: every session then connects to it, and its state "
    "between sessions is yours to keep clean"
)
"""Why one stdio server per run is refused, and the way to share a server anyway."""
STARTUP_TIMEOUT_S = 60.0
"""Seconds a server may take to start, answer the handshake and list its tools (at least the
per-call timeout): `timeout_s` bounds each call — a hung tool — not a slow start."""
_GONE = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)
"""What the SDK raises once the server process or connection is gone."""


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` to the end on a fresh event loop in its own thread (safe from inside a
    running loop, e.g. when a suite loads in an async test)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, name="sessionproof-mcp-list")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


def _text(result: CallToolResult) -> str | None:
    parts = [c.text for c in result.content if isinstance(c, TextContent)]
    if parts:
        return "\n".join(parts)
    if result.structuredContent is not None:
        import json

        return json.dumps(result.structuredContent)
    return None


class McpTools:
    """A `ToolSource` over one MCP connection (opened on first use, closed by `aclose`)."""

    def __init__(self, spec: McpDomainSpec) -> None:
        self.spec = spec
        self._stack: AsyncExitStack | None = None
        self._session: ClientSession | None = None
        self._gone: str | None = None
        self._errlog: IO[str] | None = None

    def _stderr_tail(self) -> str:
        if self._errlog is None:
            return ""
        try:
            self._errlog.seek(0)
            lines = [line.strip() for line in self._errlog.read().splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return f" (server stderr: {lines[-1][:200]})" if lines else ""

    async def _open(self) -> ClientSession:
        if self._session is not None:
            return self._session
        stack = AsyncExitStack()
        self._stack = stack
        spec = self.spec
        if spec.command is not None:
            self._errlog = stack.enter_context(tempfile.TemporaryFile("w+"))  # noqa: SIM115
            params = StdioServerParameters(
                command=spec.executable(),
                args=spec.command[1:],
                env={**os.environ, **spec.env},
                cwd=spec.cwd,
            )
            read, write = await stack.enter_async_context(stdio_client(params, self._errlog))
        else:
            assert spec.url is not None  # the reference validated one of the two
            read, write, _ = await stack.enter_async_context(
                streamablehttp_client(spec.url, timeout=spec.timeout_s)
            )
        startup = max(spec.timeout_s, STARTUP_TIMEOUT_S)
        session = await stack.enter_async_context(
            ClientSession(read, write, read_timeout_seconds=timedelta(seconds=startup))
        )
        async with asyncio.timeout(startup):
            await session.initialize()
        self._session = session
        return session

    async def list_tools(self, ctx: ToolContext | None = None) -> list[ToolSpec]:
        """The server's tools (listed once per connection)."""
        if self.spec.cached_specs is not None:
            return list(self.spec.cached_specs)
        session = await self._open()
        async with asyncio.timeout(max(self.spec.timeout_s, STARTUP_TIMEOUT_S)):
            listed = await session.list_tools()
        specs = [
            ToolSpec(
                name=t.name,
                description=t.description or "",
                parameters=dict(t.inputSchema or {"type": "object", "properties": {}}),
                output_schema=dict(t.outputSchema) if t.outputSchema else None,
            )
            for t in listed.tools
        ]
        self.spec.cached_specs = specs
        return list(specs)

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """One live call; every failure is a classified result."""
        start = time.perf_counter()
        if call.arguments is None:
            return unparsed_result(call, start)
        if self._gone is not None:
            return error_result(call, ErrorClass.unavailable, self._gone, start)
        limit = self.spec.timeout_s
        try:
            session = await self._open()
            async with asyncio.timeout(limit + 1):  # the SDK's own timeout comes first
                result = await session.call_tool(
                    call.name, call.arguments, read_timeout_seconds=timedelta(seconds=limit)
                )
        except TimeoutError:
            return error_result(
                call, ErrorClass.timeout, f"MCP server gave no answer within {limit:g} s", start
            )
        except McpError as exc:
            text = str(exc.error.message)
            if "connection closed" in text.lower():  # the SDK's word for a dead server
                self._gone = f"MCP server is gone: {text}{self._stderr_tail()}"
                return error_result(call, ErrorClass.unavailable, self._gone, start)
            if "timed out" in text.lower() or "timeout" in text.lower():
                return error_result(call, ErrorClass.timeout, f"MCP: {text}", start)
            return error_result(
                call, classify_text(text, ErrorClass.server_error), f"MCP: {text}", start
            )
        except _GONE as exc:
            self._gone = f"MCP server is gone: {type(exc).__name__}{self._stderr_tail()}"
            return error_result(call, ErrorClass.unavailable, self._gone, start)
        except Exception as exc:  # the SDK's other failures: still one classified call
            text = f"MCP client error: {type(exc).__name__}: {exc}"
            return error_result(call, classify_text(text, ErrorClass.server_error), text, start)
        output = _text(result)
        if result.isError:
            text = output or "the tool reported an error"
            return error_result(call, classify_text(text, ErrorClass.server_error), text, start)
        if output is None:
            return error_result(
                call, ErrorClass.malformed_output, "MCP result has no text content", start
            )
        return ToolResult(
            call_id=call.id, name=call.name, output=output, latency_s=time.perf_counter() - start
        )

    async def aclose(self) -> None:
        """Close the connection and stop the server (a broken one is closed all the same)."""
        stack, self._stack, self._session = self._stack, None, None
        if stack is not None:
            try:
                await stack.aclose()
            except BaseException as exc:  # a crashed server's transport may raise on exit
                if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
                    raise

    def state_hash(self) -> str | None:
        """None: the state is the server's."""
        return None

    def gone(self) -> str | None:
        """Why the server can answer nothing more (it exited, its connection dropped): the
        session then ends as `infra_error`. A hung server is not gone: each call times out,
        a failure the agent may handle."""
        return self._gone


class McpDomainSpec(DomainSpec):
    """A domain whose tools are an MCP server's (one server per session)."""

    stateful = False
    """The state is the server's: no hash, no gold replay."""

    def __init__(
        self,
        name: str,
        *,
        command: list[str] | None = None,
        url: str | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        shared: bool = False,
        policy: str = "",
        transfer_tools: frozenset[str] = frozenset(),
        timeout_s: float = 30.0,
    ) -> None:
        if (command is None) == (url is None):
            raise ConfigError(f"MCP domain {name!r}: give exactly one of command or url")
        if shared:
            raise ConfigError(f"MCP domain {name!r}: {SHARED_REFUSED}")
        self.name = name
        self.command = command
        self.url = url
        self.env = dict(env or {})
        self.cwd = cwd
        self.policy = policy
        self.transfer_tools = transfer_tools
        self.timeout_s = timeout_s
        self.cached_specs: list[ToolSpec] | None = None

    def executable(self) -> str:
        """The command's program; `python` is the interpreter running sessionproof."""
        assert self.command is not None
        first = self.command[0]
        return sys.executable if first in ("python", "python3") else first

    def create(self) -> Domain[Any]:
        """A new domain with its own connection (its server starts on first use)."""
        return Domain(self.name, NoState(), McpTools(self), self.policy, self.transfer_tools)  # type: ignore[arg-type]

    def tools(self) -> list[ToolSpec]:
        """The server's tools: it is started once, listed, and stopped."""
        if self.cached_specs is None:

            async def listing() -> list[ToolSpec]:
                tools = McpTools(self)
                try:
                    return await tools.list_tools()
                finally:
                    await tools.aclose()

            try:
                run_sync(listing())
            except Exception as exc:
                what = " ".join(self.command) if self.command else self.url
                raise ConfigError(
                    f"MCP domain {self.name!r}: cannot list the tools of {what}: "
                    f"{type(exc).__name__}: {exc}"
                ) from None
        return list(self.cached_specs or [])
