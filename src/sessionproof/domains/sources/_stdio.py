"""The stdio transport to an MCP server: one process group per server, noise counted.

The SDK's `mcp` client session reads `SessionMessage`s from one memory stream and writes
them to another; this module feeds those streams from a server process, with what a
harness running many servers needs on top of the SDK's own transport:

- the server leads its own process group and is ended whole (`_procs.end_group`), so a
  helper behind `sh -c` or `npx` dies with its session; it gets SIGTERM if we die;
- a stdout line that is not JSON-RPC (a greeting, a log line) is dropped and counted
  (`Noise`) — one warning per server at the end, not a traceback per line;
- a line longer than `MAX_LINE_BYTES` is dropped and counted too, never buffered whole.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import IO, Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCMessage
from pydantic import ValidationError

from ._procs import end_group, spawn_group

MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longest stdout line read from a server (a longer one is dropped as noise)."""
EXIT_GRACE_S = 2.0
"""Seconds a server may take to exit once its stdin is closed, before its group is ended."""


@dataclass
class Noise:
    """Stdout lines of one server that were not JSON-RPC messages."""

    lines: int = 0
    first: str = ""

    def add(self, text: str) -> None:
        """Count one line (the first is kept, cut, to show what it looked like)."""
        self.lines += 1
        if not self.first:
            self.first = text.strip()[:120]

    def summary(self) -> str:
        """`N stdout line(s) that were not JSON-RPC (the first: '...')`, or ''."""
        if not self.lines:
            return ""
        said = (
            "1 stdout line that was" if self.lines == 1 else f"{self.lines} stdout lines that were"
        )
        return f"{said} not JSON-RPC (the first: {self.first!r})"


Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]


async def _read(
    stdout: asyncio.StreamReader,
    sink: MemoryObjectSendStream[SessionMessage | Exception],
    noise: Noise,
) -> None:
    async with sink:
        while True:
            try:
                line = await stdout.readline()
            except ValueError:  # past the line limit: the reader dropped it
                noise.add(f"<a line longer than {MAX_LINE_BYTES} bytes>")
                continue
            except OSError:
                return
            if not line:
                return
            text = line.decode("utf-8", errors="replace").strip()
            if not text:
                continue
            try:
                message = JSONRPCMessage.model_validate_json(text)
            except ValidationError:
                noise.add(text)
                continue
            try:
                await sink.send(SessionMessage(message))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return


async def _write(
    stdin: asyncio.StreamWriter, source: MemoryObjectReceiveStream[SessionMessage]
) -> None:
    async with source:
        async for item in source:
            data = item.message.model_dump_json(by_alias=True, exclude_none=True)
            try:
                stdin.write(data.encode() + b"\n")
                await stdin.drain()
            except (OSError, RuntimeError):  # the server is gone: the reader sees EOF
                return


@asynccontextmanager
async def stdio_server(
    argv: list[str], env: Mapping[str, str], cwd: str | None, errlog: IO[Any], noise: Noise
) -> AsyncIterator[Streams]:
    """Start `argv` as an MCP stdio server; yields the (read, write) streams a
    `ClientSession` takes; on exit closes its stdin and ends its process group."""
    proc = await spawn_group(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=errlog,
        env=dict(env),
        cwd=cwd,
        limit=MAX_LINE_BYTES,
    )
    assert proc.stdin is not None and proc.stdout is not None
    to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_read, proc.stdout, to_session, noise)
            group.start_soon(_write, proc.stdin, from_session)
            try:
                yield read_stream, write_stream
            finally:
                group.cancel_scope.cancel()
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            proc.stdin.close()
        with anyio.CancelScope(shield=True):
            with anyio.move_on_after(EXIT_GRACE_S):
                await proc.wait()
            await end_group(proc)
            for stream in (read_stream, write_stream, to_session, from_session):
                await stream.aclose()
