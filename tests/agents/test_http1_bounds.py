"""The provider client against servers whose answers never end or inflate without bound: the
request fails early with a clear class, memory stays bounded, nothing is retried (41.19)."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from sessionproof.agents import AgentRequest
from sessionproof.agents._fastpath._http1 import MAX_RESPONSE_BYTES, Http1Pool, ResponseTooLarge
from sessionproof.errors import InfraError
from sessionproof.records import Message

from .conftest import compat_agent

Script = Callable[[socket.socket, threading.Event], None]


class RawServer:
    """A loopback TCP server running `script` on each connection after reading a request
    head; counts requests and the bytes it managed to send."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests = 0
        self.sent = 0
        self.stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self.port = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                got = conn.recv(65536)
                if not got:
                    return
                data += got
            self.requests += 1
            with contextlib.suppress(OSError):  # the client hung up: what these tests want
                self.script(conn, self.stop)

    def send(self, conn: socket.socket, data: bytes) -> None:
        conn.sendall(data)
        self.sent += len(data)

    def close(self) -> None:
        self.stop.set()
        self._thread.join(timeout=5)
        self._listener.close()


@pytest.fixture
def serve() -> Iterator[Callable[[Callable[[RawServer], Script]], RawServer]]:
    servers: list[RawServer] = []

    def make(build: Callable[[RawServer], Script]) -> RawServer:
        holder: list[RawServer] = []
        server = RawServer(lambda conn, stop: build(holder[0])(conn, stop))
        holder.append(server)
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.close()


def endless_chunks(server: RawServer) -> Script:
    def script(conn: socket.socket, stop: threading.Event) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        server.send(conn, head + b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n" % 65536 + b"a" * 65536 + b"\r\n"
        deadline = time.monotonic() + 30
        while not stop.is_set() and time.monotonic() < deadline:
            server.send(conn, chunk)

    return script


def endless_headers(server: RawServer) -> Script:
    def script(conn: socket.socket, stop: threading.Event) -> None:
        server.send(conn, b"HTTP/1.1 200 OK\r\n")
        line = b"X-Padding: " + b"p" * 4000 + b"\r\n"
        deadline = time.monotonic() + 30
        while not stop.is_set() and time.monotonic() < deadline:
            server.send(conn, line)

    return script


BOMB = gzip.compress(b"\0" * (64 * 1024 * 1024), compresslevel=9)
"""64 MiB of zeros in ~64 KB: four times the cap once inflated."""


def gzip_bomb(server: RawServer) -> Script:
    def script(conn: socket.socket, stop: threading.Event) -> None:
        head = (
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
            b"Content-Length: %d\r\n\r\n" % len(BOMB)
        )
        server.send(conn, head + BOMB)
        stop.wait(5)

    return script


def dripping(server: RawServer) -> Script:
    def script(conn: socket.socket, stop: threading.Event) -> None:
        server.send(conn, b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
        while not stop.wait(0.1):
            server.send(conn, b"x")

    return script


async def _post(pool: Http1Pool) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    try:
        head = pool.head({"Content-Type": "application/json"})
        return await asyncio.wait_for(pool.post(head, b"{}"), timeout=60)
    finally:
        pool.close()


@pytest.mark.parametrize(
    ("build", "what"),
    [(endless_chunks, "response body"), (endless_headers, "headers"), (gzip_bomb, "decoded")],
)
async def test_an_unbounded_response_fails_at_the_cap(
    serve: Callable[[Callable[[RawServer], Script]], RawServer],
    build: Callable[[RawServer], Script],
    what: str,
) -> None:
    server = serve(build)
    pool = Http1Pool(server.url, connect_timeout=5, read_timeout=60, max_bytes=4 * 1024 * 1024)
    start = time.monotonic()
    with pytest.raises(ResponseTooLarge, match=what):
        await _post(pool)
    assert time.monotonic() - start < 10  # before: read until the 60 s deadline
    # The client stopped reading near the cap (the kernel's socket buffers hold the rest).
    assert server.sent < 4 * 1024 * 1024 + 16 * 1024 * 1024


async def test_a_body_within_the_cap_is_still_read(
    serve: Callable[[Callable[[RawServer], Script]], RawServer],
) -> None:
    server = serve(gzip_bomb)
    pool = Http1Pool(server.url, connect_timeout=5, read_timeout=60, max_bytes=64 * 1024 * 1024)
    status, _, body = await _post(pool)
    assert status == 200 and len(body) == 64 * 1024 * 1024


@pytest.mark.slow
async def test_a_dripping_response_times_out_on_the_wall_clock(
    serve: Callable[[Callable[[RawServer], Script]], RawServer],
) -> None:
    server = serve(dripping)
    pool = Http1Pool(server.url, connect_timeout=5, read_timeout=1.0)
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        await _post(pool)
    assert time.monotonic() - start < 4


async def test_the_adapter_gives_up_at_once_as_infra_error(
    serve: Callable[[Callable[[RawServer], Script]], RawServer],
) -> None:
    server = serve(endless_chunks)
    agent = compat_agent(server, timeout_s=60.0)  # type: ignore[arg-type]
    start = time.monotonic()
    try:
        with pytest.raises(InfraError, match="too large"):
            await agent.respond(AgentRequest(messages=[Message.user("hi")], tools=[]))
    finally:
        await agent.aclose()
    assert time.monotonic() - start < 20
    assert server.requests == 1  # not retried: the same request gets the same flood
    assert server.sent < MAX_RESPONSE_BYTES + 16 * 1024 * 1024
