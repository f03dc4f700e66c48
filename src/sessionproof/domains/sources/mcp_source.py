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
import logging
import sys
import tempfile
import threading
import time
from collections.abc import Coroutine
from datetime import timedelta
from typing import IO, Any, TypeVar
from urllib.parse import urlsplit

import anyio
from mcp import McpError
from mcp.types import CallToolResult, TextContent

from ...errors import ConfigError
from ...records import ErrorClass, ToolCall, ToolResult, ToolSpec
from ...taxonomy._internal import classify_text
from .. import Domain, DomainSpec, ToolContext
from .._results import error_result, unparsed_result
from ._fixtures import NoState
from ._mcp_conn import McpConnection, Unusable, describe
from ._stdio import Noise

_log = logging.getLogger("sessionproof.mcp")

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
        self._gone: str | None = None
        self._errlog: IO[str] | None = None
        self._conn = McpConnection(
            spec.server(),
            argv=[spec.executable(), *spec.command[1:]] if spec.command else None,
            url=spec.url,
            env=spec.env,
            cwd=spec.cwd,
            errlog=self._open_errlog,
            http_timeout_s=spec.timeout_s,
        )

    def _open_errlog(self) -> IO[str]:
        if self._errlog is None:
            self._errlog = tempfile.TemporaryFile("w+")  # noqa: SIM115  closed in aclose
        return self._errlog

    def _stderr_tail(self) -> str:
        if self._errlog is None:
            return ""
        try:
            self._errlog.seek(0)
            lines = [line.strip() for line in self._errlog.read().splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return f" (server stderr: {lines[-1][:200]})" if lines else ""

    def _startup_s(self) -> float:
        return max(self.spec.timeout_s, STARTUP_TIMEOUT_S)

    async def listed(self) -> list[ToolSpec]:
        """The server's tools, listed now; raises `Unusable` naming the server and phase."""
        limit = self._startup_s()
        session = await self._conn.open(limit)
        self._conn.phase = "listing tools"
        try:
            async with asyncio.timeout(limit):
                listed = await self._conn.race(session.list_tools())
        except TimeoutError:
            raise Unusable(
                f"MCP server {self.spec.server()}: listing tools: no answer within {limit:g} s"
            ) from None
        except McpError as exc:
            raise Unusable(
                f"MCP server {self.spec.server()}: listing tools: {describe(exc)}"
            ) from None
        return [
            ToolSpec(
                name=t.name,
                description=t.description or "",
                parameters=dict(t.inputSchema or {"type": "object", "properties": {}}),
                output_schema=dict(t.outputSchema) if t.outputSchema else None,
            )
            for t in listed.tools
        ]

    def specs(self) -> list[ToolSpec]:
        """The server's tools as listed at load (`Domain.tools()`: scoring reads them)."""
        return self.spec.tools()

    async def list_tools(self, ctx: ToolContext | None = None) -> list[ToolSpec]:
        """The server's tools (listed once per domain). A server that cannot be listed
        leaves no tools and makes the source `gone()`: the session is `infra_error`."""
        if self.spec.cached_specs is not None:
            return list(self.spec.cached_specs)
        try:
            specs = await self.listed()
        except Unusable as exc:
            self._gone = f"{exc}{self._stderr_tail()}"
            return []
        self.spec.cached_specs = specs
        return list(specs)

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """One live call; every failure is a classified result. A server that never
        started, refused, or completed no handshake makes the source `gone()`."""
        start = time.perf_counter()
        if call.arguments is None:
            return unparsed_result(call, start)
        if self._gone is not None:
            return error_result(call, ErrorClass.unavailable, self._gone, start)
        limit = self.spec.timeout_s
        try:
            session = await self._conn.open(self._startup_s())
            async with asyncio.timeout(limit + 1):  # the SDK's own timeout comes first
                result = await self._conn.race(
                    session.call_tool(
                        call.name, call.arguments, read_timeout_seconds=timedelta(seconds=limit)
                    )
                )
        except Unusable as exc:
            self._gone = f"{exc}{self._stderr_tail()}"
            return error_result(call, ErrorClass.unavailable, self._gone, start)
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
            text = f"MCP client error: {describe(exc)}"
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
        """Close the connection and stop the server's process group (a broken one all the
        same); a server that wrote non-JSON-RPC lines is reported once per domain."""
        try:
            await self._conn.close()
        finally:
            if self._conn.was_ready:  # a server that never started says so in its error
                self.spec.noted_noise(self._conn.noise)
            errlog, self._errlog = self._errlog, None
            if errlog is not None:
                errlog.close()

    def state_hash(self) -> str | None:
        """None: the state is the server's."""
        return None

    def gone(self) -> str | None:
        """Why the server can answer nothing more (it never started, refused, completed no
        handshake, exited, or dropped the connection): the session then ends as
        `infra_error`. A hung tool is not gone: each call times out, a failure the agent may
        handle."""
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
        if url is not None:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ConfigError(
                    f"MCP domain {name!r}: url {url!r} is not an http(s) URL "
                    "(e.g. http://127.0.0.1:8000/mcp; a local server is started with `command`)"
                )
        if command is not None and not command:
            raise ConfigError(f"MCP domain {name!r}: `command` is empty")
        self.name = name
        self.command = command
        self.url = url
        self.env = dict(env or {})
        self.cwd = cwd
        self.policy = policy
        self.transfer_tools = transfer_tools
        self.timeout_s = timeout_s
        self.cached_specs: list[ToolSpec] | None = None
        self._noise_told = False

    def server(self) -> str:
        """How the server is named in messages: its command line, or its URL."""
        return " ".join(self.command) if self.command else str(self.url)

    def noted_noise(self, noise: Noise) -> None:
        """Warn once per domain that its server writes lines that are not JSON-RPC (they
        are dropped and counted; the first session's count is given)."""
        if noise.lines and not self._noise_told:
            self._noise_told = True
            _log.warning(
                "MCP domain %r: server %s wrote %s; such lines are dropped (warned once)",
                self.name,
                self.server(),
                noise.summary(),
            )

    def executable(self) -> str:
        """The command's program; `python` is the interpreter running sessionproof."""
        assert self.command is not None
        first = self.command[0]
        return sys.executable if first in ("python", "python3") else first

    def create(self) -> Domain[Any]:
        """A new domain with its own connection (its server starts on first use)."""
        return Domain(self.name, NoState(), McpTools(self), self.policy, self.transfer_tools)  # type: ignore[arg-type]

    def tools(self) -> list[ToolSpec]:
        """The server's tools: it is started once, listed, and stopped. A server that cannot
        be listed is a `ConfigError` of one line naming the domain, server, phase and limit."""
        if self.cached_specs is None:

            async def listing() -> list[ToolSpec]:
                tools = McpTools(self)
                try:
                    return await tools.listed()
                except Unusable as exc:
                    raise Unusable(f"{exc}{tools._stderr_tail()}") from None
                finally:
                    await tools.aclose()

            try:
                self.cached_specs = run_sync(listing())
            except Unusable as exc:
                raise ConfigError(f"MCP domain {self.name!r}: {exc}") from None
            except Exception as exc:
                raise ConfigError(
                    f"MCP domain {self.name!r}: cannot list the tools of {self.server()}: "
                    f"{describe(exc)}"
                ) from None
        return list(self.cached_specs or [])
