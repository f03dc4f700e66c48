"""A lean HTTP/1.1 keep-alive POST client: asyncio protocols, responses parsed by httptools.

At hundreds of requests in flight the client's own CPU per request sets the run's pace.
aiohttp spends ~0.4 ms per POST here (cookie jar, header merging, tracing hooks, URL
handling, timeouts, its stream reader), most of which a chat-completions call with a fixed
URL and fixed headers does not need; this client spends ~0.1 ms. It does one thing: POST a
ready body to one origin over pooled keep-alive connections (TLS for https), and return
status, headers and body. The HTTP parsing is llhttp's, through httptools (Content-Length
and chunked bodies, keep-alive rules); a gzip or deflate body is decoded. Proxies, redirects,
cookies and HTTP/2 are not its job: `DirectPost` keeps aiohttp for a proxied origin.

A response is bounded: its header section by `MAX_HEAD_BYTES`, its body by `max_bytes` both
as received and once decoded (an endless chunked body or a gzip bomb fails the request with
`ResponseTooLarge` as soon as it passes the cap, instead of growing memory until the
deadline), and its whole exchange by the read timeout, counted from when the request is
sent (a server dripping bytes cannot stretch it).
"""

from __future__ import annotations

import asyncio
import ssl
import zlib
from urllib.parse import urlsplit

import httptools

from .._ratelimit import AnswerHook, answer_hook

_Response = tuple[int, list[tuple[bytes, bytes]], bytes]
"""(status, raw headers, body)."""

MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""The largest response body read (after decoding), as the MCP agent's line cap: a chat
completion is kilobytes; sixteen megabytes is no reply but a broken or hostile server."""

MAX_HEAD_BYTES = 256 * 1024
"""The largest header section read."""


class Http1Error(ConnectionError):
    """The connection failed before a whole response arrived (the request may have run)."""


class ResponseTooLarge(Http1Error):
    """The response passed the size cap (its headers, its body, or its decoded body). Not
    worth retrying: the same request gets the same answer."""


class _Overflow(Exception):
    """Raised inside a parser callback to stop reading a response past its cap."""


class _Connection(asyncio.Protocol):
    """One keep-alive connection: one request at a time. The request's state lives here and
    is cleared by the parser's callbacks, not by the waiting task: the connection goes back
    to its pool the moment a response is complete, and may carry the next request before
    the task that sent the first has woken."""

    def __init__(self, pool: Http1Pool) -> None:
        self._pool = pool
        self._parser = httptools.HttpResponseParser(self)
        self._transport: asyncio.Transport | None = None
        self._waiter: asyncio.Future[_Response] | None = None
        self._headers: list[tuple[bytes, bytes]] = []
        self._body: list[bytes] = []
        self._head_size = 0
        self._body_size = 0
        self._overflow: str | None = None
        self.reusable = True
        self._answered: AnswerHook | None = None
        self.deadline: float | None = None
        """When the request under way times out (loop time); None: no request, or none."""

    # -- asyncio.Protocol ---------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            if self._overflow is not None:
                self._fail(ResponseTooLarge(self._overflow))
            else:
                self._fail(Http1Error(f"unreadable response: {exc}"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.reusable = False
        self._pool._busy.discard(self)
        # A body only the connection's end delimits (no length, not chunked) is not read:
        # chat-completions servers always send one or the other.
        self._fail(Http1Error("the server closed the connection"))

    # -- httptools callbacks ------------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_size += len(name) + len(value) + 4
        if self._head_size > MAX_HEAD_BYTES:
            self._overflow = f"the response's headers passed {MAX_HEAD_BYTES} bytes"
            raise _Overflow
        self._headers.append((name, value))

    def on_body(self, body: bytes) -> None:
        self._body_size += len(body)
        cap = self._pool.max_bytes
        if self._body_size > cap:
            self._overflow = f"the response body passed {cap} bytes"
            raise _Overflow
        self._body.append(body)

    def on_message_complete(self) -> None:
        answered = self._answered
        waiter = self._end_request()
        if not self._parser.should_keep_alive():
            self.reusable = False
        status = self._parser.get_status_code()
        headers, self._headers = self._headers, []
        body, self._body = b"".join(self._body), []
        self._head_size = self._body_size = 0
        if waiter is None or waiter.done():
            self.close()  # an answer nobody asked for: this connection cannot be trusted
            return
        self._pool._check_in(self)
        if answered is None:
            waiter.set_result((status, headers, body))
            return
        # The place in the gate first, then the reply: the request that takes the place is
        # sent before the tasks of a burst of replies each build their next request.
        answered(status)
        waiter.get_loop().call_soon(_settle, waiter, (status, headers, body))

    # -- use ----------------------------------------------------------------------------

    def _end_request(self) -> asyncio.Future[_Response] | None:
        """Forget the request under way; its waiter, if there was one."""
        waiter, self._waiter = self._waiter, None
        self._answered = None
        self.deadline = None
        return waiter

    def _fail(self, exc: Exception) -> None:
        waiter = self._end_request()
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)

    @property
    def open(self) -> bool:
        """Can carry another request."""
        transport = self._transport
        return self.reusable and transport is not None and not transport.is_closing()

    async def request(
        self, data: bytes, deadline: float | None, answered: AnswerHook | None = None
    ) -> _Response:
        """Send one whole request; (status, raw headers, body) of its response. Past
        `deadline` (loop time) the pool's sweeper fails it with `TimeoutError`. `answered`
        is told the status from the parser's callback, before this task wakes."""
        assert self._transport is not None
        waiter: asyncio.Future[_Response] = asyncio.get_running_loop().create_future()
        self._waiter = waiter
        self._answered = answered
        self.deadline = deadline
        self._transport.write(data)
        try:
            return await waiter
        except BaseException:
            if self._waiter is waiter:
                # Cancelled before the whole response: a half-read response must not meet
                # the next request. (Once the response is whole the connection is no longer
                # this task's: it may already carry another task's request.)
                self._end_request()
                self.close()
            raise

    def expire(self, now: float) -> None:
        """Fail the request under way if its deadline has passed."""
        if self.deadline is not None and now >= self.deadline:
            self._fail(TimeoutError())
            self.close()

    def close(self) -> None:
        """Close the connection."""
        self.reusable = False
        self._pool._busy.discard(self)
        if self._transport is not None:
            self._transport.close()


def _settle(waiter: asyncio.Future[_Response], response: _Response) -> None:
    if not waiter.done():
        waiter.set_result(response)


class Http1Pool:
    """Keep-alive connections to the origin of `url`, for POSTs to its path."""

    def __init__(
        self,
        url: str,
        connect_timeout: float | None,
        read_timeout: float | None,
        *,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ):
        self.max_bytes = max_bytes
        """The largest response body read, as received and once decoded."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self._host = parts.hostname
        self._tls = parts.scheme == "https"
        self._port = parts.port or (443 if self._tls else 80)
        default = 443 if self._tls else 80
        host = f"[{self._host}]" if ":" in self._host else self._host
        authority = host if self._port == default else f"{host}:{self._port}"
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._line = f"POST {path} HTTP/1.1\r\nHost: {authority}\r\n".encode("latin-1")
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._ssl: ssl.SSLContext | None = ssl.create_default_context() if self._tls else None
        self._idle: list[_Connection] = []
        self._busy: set[_Connection] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sweeper: asyncio.Task[None] | None = None

    def head(self, headers: dict[str, str]) -> bytes:
        """The request line and `headers` (no Content-Length), ready to prefix bodies."""
        lines = "".join(f"{k}: {v}\r\n" for k, v in headers.items() if k.lower() != "host")
        return self._line + lines.encode("latin-1")

    async def _connection(self) -> _Connection:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # connections belong to the loop that opened them
            self._idle.clear()
            self._busy.clear()
            self._loop = loop
            self._sweeper = None
        if self._sweeper is None and self._read_timeout is not None:
            self._sweeper = loop.create_task(self._sweep(self._read_timeout))
        while self._idle:
            conn = self._idle.pop()
            if conn.open:
                return conn
        async with asyncio.timeout(self._connect_timeout):
            _, conn = await loop.create_connection(
                lambda: _Connection(self),
                self._host,
                self._port,
                ssl=self._ssl,
                server_hostname=self._host if self._tls else None,
            )
        return conn

    async def post(self, head: bytes, body: bytes) -> _Response:
        """POST `body` after `head` (from `head()`); (status, raw headers, decoded body).

        Raises the `OSError` of a connection that cannot be made (`ConnectionRefusedError`:
        the request never left), `Http1Error` when one fails before the whole response
        arrived (`ResponseTooLarge` past the size cap), and `TimeoutError` past a timeout
        (the read timeout bounds the whole response, not each read). A gate slot this task holds
        (`answer_hook`) is given back the moment the response is complete.
        """
        conn = await self._connection()
        data = head + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        loop = asyncio.get_running_loop()
        timeout = self._read_timeout
        deadline = None if timeout is None else loop.time() + timeout
        self._busy.add(conn)  # the connection leaves it when the request ends, either way
        status, headers, raw = await conn.request(data, deadline, answer_hook())
        try:
            return status, headers, _decoded(headers, raw, self.max_bytes)
        except zlib.error as exc:
            raise Http1Error(f"unreadable compressed body: {exc}") from exc

    def _check_in(self, conn: _Connection) -> None:
        """`conn` finished its request: idle again if it can carry another."""
        self._busy.discard(conn)
        if conn.open:
            self._idle.append(conn)

    async def _sweep(self, timeout: float) -> None:
        """Time out requests past their deadline. One task per pool checking a few times
        per timeout, instead of a timer per request: at hundreds of requests a second,
        arming and cancelling `asyncio.timeout` cost a twentieth of a model call's CPU."""
        loop = asyncio.get_running_loop()
        period = min(1.0, timeout / 10)
        while True:
            await asyncio.sleep(period)
            now = loop.time()
            for conn in list(self._busy):
                conn.expire(now)

    def close(self) -> None:
        """Close every idle connection (and stop timing requests out)."""
        for conn in self._idle:
            conn.close()
        self._idle.clear()
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None


def _inflate(body: bytes, wbits: int, cap: int) -> bytes:
    """`body` decompressed, never to more than `cap` bytes (`ResponseTooLarge` beyond)."""
    inflater = zlib.decompressobj(wbits)
    out = inflater.decompress(body, cap + 1)
    if len(out) > cap or inflater.unconsumed_tail:
        raise ResponseTooLarge(f"the decoded response body passed {cap} bytes")
    rest = inflater.flush()
    if len(out) + len(rest) > cap:
        raise ResponseTooLarge(f"the decoded response body passed {cap} bytes")
    return out + rest


def _decoded(headers: list[tuple[bytes, bytes]], body: bytes, cap: int) -> bytes:
    """`body` with its Content-Encoding (gzip, deflate) undone, at most `cap` bytes."""
    for name, value in headers:
        if name.lower() == b"content-encoding":
            coding = value.strip().lower()
            if coding in (b"gzip", b"x-gzip"):
                return _inflate(body, 16 + zlib.MAX_WBITS, cap)
            if coding == b"deflate":
                return _inflate(body, zlib.MAX_WBITS, cap)
    return body
