"""One connection to an MCP server, held by its own task, failing with one clear sentence.

The SDK's transports and client session are anyio task groups: entered and left in one
task, they turn a transport failure (a refused connection, an HTTP 500, a server that exits)
into a cancellation of that task. Entered from a session's own task they would cancel the
session (a `CancelledError` traceback at load). So a holder task owns them: it connects,
performs the handshake, signals ready and waits for `close`; a caller waits for "ready" or
"the holder ended", within the start-up limit, and every failure becomes `Unusable` naming
the server, the phase (start-up, handshake, listing tools) and the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import IO, Any, TypeVar

import httpx
from mcp import ClientSession, McpError
from mcp.client.streamable_http import streamable_http_client

from ._capped import mcp_http_client
from ._stdio import EXIT_GRACE_S, Noise, stdio_server

T = TypeVar("T")


class _SdkClientNoise(logging.Filter):
    """Drops the SDK client's own error logs (a traceback per bad message or response):
    what they say reaches the session as one classified result or one `Unusable` line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno < logging.WARNING


for _name in ("mcp.client.streamable_http", "mcp.client.stdio", "mcp.shared.session"):
    logging.getLogger(_name).addFilter(_SdkClientNoise())


class Unusable(Exception):
    """The server could not be used at all (the message names server, phase and limit)."""


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def describe(exc: BaseException) -> str:
    """One line for what went wrong, from the first real failure inside any exception group
    (cancellations are how task groups stop, not what went wrong)."""
    leaves = _leaves(exc)
    real = [e for e in leaves if not isinstance(e, asyncio.CancelledError)] or leaves
    first = real[0]
    if isinstance(first, httpx.HTTPStatusError):
        text = f"HTTP {first.response.status_code}"
    elif isinstance(first, McpError):
        text = str(first.error.message)
    elif isinstance(first, FileNotFoundError):
        text = f"no such program: {first.filename or first}"
    else:
        said = str(first).strip()
        text = f"{type(first).__name__}: {said}" if said else type(first).__name__
    return " ".join(text.split())[:300]


class McpConnection:
    """A connection to one server (`argv` over stdio, or `url`), opened by `open`."""

    def __init__(
        self,
        server: str,
        *,
        argv: list[str] | None = None,
        url: str | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        errlog: Callable[[], IO[str]] | None = None,
        http_timeout_s: float = 30.0,
    ) -> None:
        self.server = server
        """How the server is named in messages: its command line or URL."""
        self.argv = argv
        self.url = url
        self.env = {**os.environ, **(env or {})}
        self.cwd = cwd
        self.errlog = errlog
        self.http_timeout_s = http_timeout_s
        self.noise = Noise()
        self.phase = "start-up"
        self.session: ClientSession | None = None
        self._failure: str | None = None
        self._ready = asyncio.Event()
        self._wire = asyncio.Event()
        self.wire_error: str | None = None
        """The first message from the server that was not JSON-RPC (HTTP: an HTML page)."""
        self._stop = asyncio.Event()
        self._holder: asyncio.Task[None] | None = None

    @property
    def was_ready(self) -> bool:
        """Whether the handshake ever completed."""
        return self._ready.is_set()

    @property
    def ended(self) -> str | None:
        """Why the holder ended (the server or connection is gone), or None while it holds."""
        if self._holder is not None and self._holder.done():
            return self._failure or "the connection ended"
        return None

    async def _hold(self) -> None:
        try:
            async with AsyncExitStack() as stack:
                if self.argv is not None:
                    assert self.errlog is not None
                    read, write = await stack.enter_async_context(
                        stdio_server(self.argv, self.env, self.cwd, self.errlog(), self.noise)
                    )
                else:
                    assert self.url is not None
                    client = await stack.enter_async_context(
                        mcp_http_client(timeout=httpx.Timeout(self.http_timeout_s, read=300.0))
                    )
                    read, write, _ = await stack.enter_async_context(
                        streamable_http_client(self.url, http_client=client)
                    )
                session = await stack.enter_async_context(
                    ClientSession(read, write, message_handler=self._incoming)
                )
                self.phase = "handshake"
                await session.initialize()
                self.session = session
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # the holder's end is reported, not raised
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            if self._failure is None:
                self._failure = describe(exc)
            if isinstance(exc, asyncio.CancelledError) and self._stop.is_set():
                return

    async def _incoming(self, message: Any) -> None:
        # The SDK hands the session what it could not read as an exception.
        if isinstance(message, Exception):
            if self.wire_error is None:
                self.wire_error = f"an answer that is not JSON-RPC ({describe(message)})"
            self._wire.set()

    def _say(self, phase: str, what: str) -> str:
        return f"MCP server {self.server}: {phase}: {what}"

    async def open(self, limit_s: float) -> ClientSession:
        """The connected session; raises `Unusable` when the server does not start, refuses,
        or completes no handshake within `limit_s` seconds."""
        if self.session is not None:
            return self.session
        if self._holder is not None and self._holder.done():
            raise Unusable(self._say(self.phase, self._failure or "the connection ended"))
        if self._holder is None:
            self._holder = asyncio.create_task(self._hold(), name=f"mcp {self.server}")
        ready = asyncio.create_task(self._ready.wait())
        wire = asyncio.create_task(self._wire.wait())
        try:
            await asyncio.wait(
                {self._holder, ready, wire}, timeout=limit_s, return_when="FIRST_COMPLETED"
            )
        finally:
            ready.cancel()
            wire.cancel()
        if self.session is not None and self._ready.is_set():
            return self.session
        if not self._holder.done():
            self._failure = self.wire_error or (
                f"no answer within the start-up limit of {limit_s:g} s"
            )
            await self._end_holder(graceful=False)
        noise = self.noise.summary()
        said = f"{self._failure or 'the connection ended'}" + (
            f"; it wrote {noise}" if noise else ""
        )
        raise Unusable(self._say(self.phase, said))

    async def race(self, work: Awaitable[T]) -> T:
        """Await `work` (a request on the session), or raise `Unusable` as soon as the
        connection ends first (a server that exits answers no pending request)."""
        task = asyncio.ensure_future(work)
        holder = self._holder
        if holder is None:
            return await task
        try:
            await asyncio.wait({task, holder}, return_when="FIRST_COMPLETED")
        except asyncio.CancelledError:
            task.cancel()
            raise
        if task.done():
            return task.result()
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        raise Unusable(self._say("call", self.ended or "the connection ended"))

    async def _end_holder(self, graceful: bool = True) -> None:
        holder = self._holder
        if holder is None or holder.done():
            return
        self._stop.set()
        if graceful:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(EXIT_GRACE_S + 3):
                    await asyncio.shield(holder)
                    return
        holder.cancel()
        with contextlib.suppress(BaseException):
            await holder

    async def close(self) -> None:
        """Close the session and stop the server (idempotent)."""
        self.session = None
        await self._end_holder()
