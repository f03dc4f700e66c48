"""The lean HTTP/1.1 client against a real socket server on loopback that answers with exact
bytes: ordinary, chunked and compressed bodies, keep-alive reuse, and every way a response
can go wrong (closed early, garbage, too slow, refused)."""

from __future__ import annotations

import asyncio
import gzip
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from sessionproof.agents._fastpath._http1 import Http1Error, Http1Pool
from sessionproof.agents._ratelimit import ProviderGate

Answer = Callable[[bytes], bytes | None]
"""Given one whole request, the bytes to send back (None: close without answering)."""


def _ok(body: bytes, extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}"
        f"\r\n{extra}\r\n"
    ).encode() + body


class Server:
    """Accepts connections, reads each request whole, answers with `answer`'s bytes."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.connections = 0
        self.requests: list[bytes] = []
        self.server: asyncio.Server | None = None
        self.close_after_reply = False

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                request = head + await reader.readexactly(length)
                self.requests.append(request)
                reply = self.answer(request)
                if reply is None:
                    break
                writer.write(reply)
                await writer.drain()
                if self.close_after_reply:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    @property
    def url(self) -> str:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1/chat/completions"


@pytest.fixture
async def serve() -> AsyncIterator[Callable[[Answer], asyncio.Future[Server]]]:
    started: list[Server] = []

    async def start(answer: Answer) -> Server:
        server = Server(answer)
        server.server = await asyncio.start_server(server._handle, "127.0.0.1", 0)
        started.append(server)
        return server

    yield start  # type: ignore[misc]
    for server in started:
        assert server.server is not None
        server.server.close()


async def _post(pool: Http1Pool, body: bytes = b'{"x": 1}') -> tuple[int, bytes]:
    status, _, data = await pool.post(pool.head({"Authorization": "Bearer k"}), body)
    return status, data


async def test_a_post_gets_status_and_body_and_reuses_its_connection(serve: Any) -> None:
    server = await serve(lambda request: _ok(b'{"ok": true}'))
    pool = Http1Pool(server.url, 5, 5)
    for _ in range(3):
        assert await _post(pool) == (200, b'{"ok": true}')
    assert server.connections == 1  # keep-alive: one connection for three requests
    first = server.requests[0]
    assert first.startswith(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"Authorization: Bearer k\r\n" in first and first.endswith(b'\r\n\r\n{"x": 1}')
    pool.close()


async def test_chunked_and_gzip_bodies_are_decoded(serve: Any) -> None:
    packed = gzip.compress(b'{"zipped": 1}')
    chunked = (
        b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n3\r\n 1}\r\n0\r\n\r\n'
    )
    zipped = _ok(packed, "Content-Encoding: gzip\r\n")
    answers = iter([chunked, zipped])
    server = await serve(lambda request: next(answers))
    pool = Http1Pool(server.url, 5, 5)
    assert await _post(pool) == (200, b'{"a": 1}')
    assert await _post(pool) == (200, b'{"zipped": 1}')


async def test_connection_close_is_not_reused_and_error_statuses_come_back(serve: Any) -> None:
    reply = _ok(b"{}", "Connection: close\r\n").replace(b"200 OK", b"429 Too Many Requests")
    server = await serve(lambda request: reply)
    server.close_after_reply = True
    pool = Http1Pool(server.url, 5, 5)
    status, headers, _ = await pool.post(pool.head({}), b"{}")
    assert status == 429 and (b"Connection", b"close") in headers
    await _post(pool)
    assert server.connections == 2  # the server said close: a new connection


async def test_a_response_cut_short_is_a_connection_error(serve: Any) -> None:
    server = await serve(lambda request: _ok(b"x" * 50)[:-10])  # 40 of 50 bytes, then gone
    server.close_after_reply = True
    pool = Http1Pool(server.url, 5, 5)
    with pytest.raises(Http1Error, match="closed the connection"):
        await _post(pool)
    assert not pool._busy and not pool._idle  # the dead connection is nowhere


async def test_closed_without_an_answer_and_garbage_are_connection_errors(serve: Any) -> None:
    silent = await serve(lambda request: None)
    with pytest.raises(Http1Error, match="closed the connection"):
        await _post(Http1Pool(silent.url, 5, 5))
    garbage = await serve(lambda request: b"SMTP ready\r\n\r\n")
    unreadable = Http1Pool(garbage.url, 5, 5)
    with pytest.raises(Http1Error, match="unreadable response"):
        await _post(unreadable)
    assert not unreadable._busy and not unreadable._idle
    bad_zip = await serve(lambda request: _ok(b"not gzip", "Content-Encoding: gzip\r\n"))
    with pytest.raises(Http1Error, match="compressed"):
        await _post(Http1Pool(bad_zip.url, 5, 5))


async def test_a_slow_answer_times_out_and_its_connection_is_dropped(serve: Any) -> None:
    answers: list[bytes | None] = []

    def answer(request: bytes) -> bytes | None:
        return answers.pop(0) if answers else b""  # b"": say nothing, keep the socket open

    server = await serve(answer)
    pool = Http1Pool(server.url, 5, 0.2)
    with pytest.raises(TimeoutError):
        await _post(pool)
    assert not pool._busy and not pool._idle
    answers.append(_ok(b"{}"))
    assert await _post(pool) == (200, b"{}")
    assert server.connections == 2  # the timed-out connection was not handed out again


async def test_a_refused_connection_raises_the_os_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ConnectionRefusedError):
        await _post(Http1Pool(f"http://127.0.0.1:{port}/v1", 5, 5))


@pytest.mark.parametrize("url", ["ftp://h/x", "not a url", "http:///path"])
def test_a_url_it_cannot_serve_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="not an http"):
        Http1Pool(url, 5, 5)


async def test_a_held_gate_slot_is_given_back_before_the_task_reads_the_reply(
    serve: Any,
) -> None:
    # One place in the gate, two requests: the second must leave as soon as the first
    # reply is whole, before the first task wakes to read it (and on the same connection,
    # which went back to the pool with the reply).
    order: list[str] = []

    def answer(request: bytes) -> bytes:
        order.append("request " + request.rsplit(b"\r\n\r\n", 1)[1].decode())
        return _ok(b"{}")

    server = await serve(answer)
    pool = Http1Pool(server.url, 5, 5)
    gate = ProviderGate(1)

    async def one(name: str) -> None:
        async with gate.slot():
            order.append("admitted " + name)
            await pool.post(pool.head({}), name.encode())
            order.append("read " + name)

    await asyncio.gather(one("a"), one("b"))
    assert order == ["admitted a", "request a", "admitted b", "read a", "request b", "read b"]
    assert server.connections == 1
    stats = gate.stats()
    assert stats.requests == 2 and stats.peak == 1  # given back once each, never twice
    assert gate.inflight == 0
    pool.close()


async def test_a_429_keeps_its_slot_until_it_is_counted(serve: Any) -> None:
    reply = _ok(b"{}").replace(b"200 OK", b"429 Too Many Requests")
    server = await serve(lambda request: reply)
    pool = Http1Pool(server.url, 5, 5)
    gate = ProviderGate(4)
    async with gate.slot() as slot:
        status, _, _ = await pool.post(pool.head({}), b"{}")
        assert status == 429 and gate.inflight == 1  # not given back by the transport
        slot.rate_limited()
    assert gate.inflight == 0 and gate.window == 2 and gate.stats().rate_limited == 1
    pool.close()


async def test_a_task_cancelled_after_its_reply_leaves_the_connection_to_the_next(
    serve: Any,
) -> None:
    server = await serve(lambda request: _ok(b'{"n": 1}'))
    pool = Http1Pool(server.url, 5, 5)
    gate = ProviderGate(1)
    arrived = asyncio.Event()

    async def first() -> None:
        async with gate.slot():
            # The slot's hook is set; the reply arrives, then this task is cancelled
            # before it reads it: the connection, already back in the pool, stays open.
            loop = asyncio.get_running_loop()
            task = asyncio.current_task()
            assert task is not None
            original = gate._release

            def release(slot: Any) -> None:
                original(slot)
                arrived.set()
                loop.call_soon(task.cancel)

            gate._release = release  # type: ignore[method-assign]
            await pool.post(pool.head({}), b"{}")
            await asyncio.sleep(1)

    with pytest.raises(asyncio.CancelledError):
        await first()
    assert arrived.is_set()
    assert await _post(pool) == (200, b'{"n": 1}')
    assert server.connections == 1
    pool.close()


async def test_an_error_status_gives_its_slot_back_without_counting_a_success(
    serve: Any,
) -> None:
    # As before the early hand-back: only a 2xx counts towards growing the window again.
    reply = _ok(b"{}").replace(b"200 OK", b"503 Service Unavailable")
    server = await serve(lambda request: reply)
    pool = Http1Pool(server.url, 5, 5)
    gate = ProviderGate(4)
    gate.window = 2  # shrunk by an earlier 429: successes would grow it back
    for _ in range(2):
        async with gate.slot():
            status, _, _ = await pool.post(pool.head({}), b"{}")
            assert status == 503 and gate.inflight == 0  # given back at the reply
    assert gate.window == 2 and gate._successes == 0
    pool.close()
