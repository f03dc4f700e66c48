"""Bounded HTTP responses: a byte cap on every body an httpx client reads.

A service that answers with an endless body, one never-ending SSE event or a gzip bomb must
cost one failed call, not the machine's memory. `CappedTransport` wraps httpx's transport
and counts the bytes of each response body as they arrive (before decoding); past the cap
the read fails with `ResponseTooLarge`. Callers that decode (gzip) count decoded bytes too
(`read_capped`), since a small compressed body can inflate a thousandfold.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx

MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""Largest response body read from a tool service or an MCP server (raw and decoded)."""


class ResponseTooLarge(httpx.ReadError):
    """A response body past the cap (an httpx read error, so clients treat it as one)."""


class _CappedStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, cap: int, request: httpx.Request) -> None:
        self._inner = inner
        self._cap = cap
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._cap:
                raise ResponseTooLarge(
                    f"the response body passed {self._cap} bytes", request=self._request
                )
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedTransport(httpx.AsyncBaseTransport):
    """httpx's own transport, each response body cut off (an error) past `cap` bytes."""

    def __init__(self, cap: int = MAX_RESPONSE_BYTES, **kwargs: Any) -> None:
        self._inner = httpx.AsyncHTTPTransport(**kwargs)
        self._cap = cap

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send `request`; the response's body stream is the capped one."""
        response = await self._inner.handle_async_request(request)
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = _CappedStream(response.stream, self._cap, request)
        return response

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self._inner.aclose()


async def read_capped(response: httpx.Response, cap: int = MAX_RESPONSE_BYTES) -> bytes:
    """The decoded body of a streamed `response`; `ResponseTooLarge` past `cap` bytes."""
    parts: list[bytes] = []
    seen = 0
    async for chunk in response.aiter_bytes():
        seen += len(chunk)
        if seen > cap:
            raise ResponseTooLarge(
                f"the decoded response body passed {cap} bytes", request=response.request
            )
        parts.append(chunk)
    return b"".join(parts)


def mcp_http_client(
    headers: dict[str, str] | None = None,
    timeout: httpx.Timeout | None = None,
    auth: httpx.Auth | None = None,
) -> httpx.AsyncClient:
    """An httpx client for the MCP SDK's streamable HTTP transport (its
    `httpx_client_factory`), every response body capped at `MAX_RESPONSE_BYTES`."""
    return httpx.AsyncClient(
        headers={"accept-encoding": "identity", **(headers or {})},
        timeout=timeout if timeout is not None else httpx.Timeout(30.0),
        auth=auth,
        transport=CappedTransport(),
    )
