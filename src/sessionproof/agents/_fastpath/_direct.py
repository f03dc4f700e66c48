"""A ready JSON body POSTed straight on `Http1Pool` (or aiohttp), with the SDK's headers and
error classes.

Even with the body already serialised (`_payload`), the openai SDK's `client.post` still
builds request options, an httpx request, an auth flow, and an httpx response around the
aiohttp transport it sits on: ~2 ms of CPU per call in a profile of 256 sessions in flight,
more than everything else a model call costs. For a chat-completions server with a static
key (`openai-compat`) none of that does anything per call, so this sends the bytes itself.
What the SDK is good at stays the SDK's: the headers are the ones its client builds (auth,
user agent, timeouts), and a failed request raises the SDK's own error types —
`APIStatusError` subclasses made by the client from the status and body, `APITimeoutError`,
`APIConnectionError` with the transport's error as its cause — so the adapter's failure
classification reads them exactly as on the SDK's path.

The bytes go out on `Http1Pool` (asyncio protocols and httptools: ~0.1 ms of CPU per
request against aiohttp's ~0.4 ms) unless the environment names a proxy for the server,
which stays aiohttp's job.

The three SDK parts this borrows (the client's header builder, URL joiner and error
factory, `_fastpath.SDK_PARTS`) are private to it; `_fastpath.direct_post` makes a
`DirectPost` only when all of them are there, and the agent uses the SDK's `client.post`
otherwise.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import openai

from ._http1 import MAX_RESPONSE_BYTES, Http1Pool, ResponseTooLarge

try:  # the SDK's own HTTP library: httpx2 from openai 3, httpx before
    import httpx2 as _http
except ImportError:  # pragma: no cover - older openai SDKs
    import httpx as _http  # type: ignore[no-redef]


def endpoint_url(client: openai.AsyncOpenAI, path: str) -> str:
    """`path` under the client's base URL, joined by the SDK (`_prepare_url`)."""
    return str(client._prepare_url(path))


def sdk_headers(client: openai.AsyncOpenAI, url: str) -> dict[str, str]:
    """The headers the SDK's client sends with a bearer-authenticated POST (auth, its user
    agent and platform headers, the caller's own), built by the SDK (`_build_headers`)."""
    from openai._models import FinalRequestOptions

    options = FinalRequestOptions.construct(method="post", url=url, security={"bearer_auth": True})
    return {key: value for key, value in client._build_headers(options).items()}


def status_error(client: openai.AsyncOpenAI, response: _http.Response) -> openai.APIStatusError:
    """The SDK's typed error for a non-2xx `response` (an httpx response), made by the SDK
    (`_make_status_error_from_response`)."""
    made: openai.APIStatusError = client._make_status_error_from_response(response)
    return made


def _env_proxy(url: str) -> tuple[Any, aiohttp.BasicAuth | None]:
    """The proxy the environment (HTTP_PROXY, NO_PROXY...) names for `url`, if any."""
    from aiohttp.helpers import get_env_proxy_for_url
    from yarl import URL

    try:
        return get_env_proxy_for_url(URL(url))
    except LookupError:
        return None, None


class DirectPost:
    """POSTs bodies to one endpoint of `client`'s server and returns the reply's bytes.

    The aiohttp session is opened on first use, in the running event loop (and again if a
    later call runs in another loop); it keeps every connection it opens (no pool limit),
    and honours proxy settings from the environment, as the SDK's aiohttp client does —
    read once, not per request: aiohttp's `trust_env` looks up ~/.netrc in a worker thread
    and re-reads the proxy variables for every request (~2 ms of CPU per call at 256 in
    flight; the Authorization header makes netrc moot anyway).
    """

    def __init__(self, client: openai.AsyncOpenAI, path: str, timeout_s: float) -> None:
        self._client = client
        self._url = endpoint_url(client, path)
        # `total` too: a server dripping a byte per read must not stretch a call forever.
        self._timeout = aiohttp.ClientTimeout(
            total=timeout_s, sock_connect=timeout_s, sock_read=timeout_s
        )
        self._headers: dict[str, str] | None = None
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._proxy, self._proxy_auth = _env_proxy(self._url)
        self._pool: Http1Pool | None = None
        if self._proxy is None:
            self._pool = Http1Pool(self._url, connect_timeout=timeout_s, read_timeout=timeout_s)
        self._head: bytes | None = None

    def _request_headers(self) -> dict[str, str]:
        # Built once, inside the loop (the SDK names the async library it runs on).
        if self._headers is None:
            self._headers = sdk_headers(self._client, self._url)
        return self._headers

    def _open(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._loop is not loop or self._session.closed:
            connector = aiohttp.TCPConnector(limit=0)
            self._session = aiohttp.ClientSession(connector=connector)
            self._loop = loop
        return self._session

    def _request(self) -> Any:
        return _http.Request("POST", self._url)

    async def post(self, body: bytes) -> bytes:
        """The reply's body for a 2xx answer; the SDK's error types for anything else."""
        if self._pool is not None:
            return await self._post_lean(self._pool, body)
        session = self._open()
        headers = self._request_headers()
        try:
            async with session.post(
                self._url,
                data=body,
                headers=headers,
                timeout=self._timeout,
                allow_redirects=False,
                proxy=self._proxy,
                proxy_auth=self._proxy_auth,
            ) as resp:
                data = await _read_capped(resp)
                status = resp.status
                raw_headers = resp.raw_headers
        except ResponseTooLarge as exc:
            raise self._too_large(exc) from exc
        except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
            raise openai.APITimeoutError(request=self._request()) from exc
        except aiohttp.ClientError as exc:
            raise openai.APIConnectionError(request=self._request()) from exc
        if 200 <= status < 300:
            return data
        response = _http.Response(
            status, headers=list(raw_headers), content=data, request=self._request()
        )
        raise status_error(self._client, response)

    async def _post_lean(self, pool: Http1Pool, body: bytes) -> bytes:
        if self._head is None:
            headers = dict(self._request_headers())
            if not any(k.lower() == "content-type" for k in headers):
                headers["Content-Type"] = "application/json"
            self._head = pool.head(headers)
        try:
            status, raw_headers, data = await pool.post(self._head, body)
        except TimeoutError as exc:
            raise openai.APITimeoutError(request=self._request()) from exc
        except ResponseTooLarge as exc:
            raise self._too_large(exc) from exc
        except OSError as exc:  # refused, reset, dropped (Http1Error), TLS
            raise openai.APIConnectionError(request=self._request()) from exc
        if 200 <= status < 300:
            return data
        response = _http.Response(
            status, headers=raw_headers, content=data, request=self._request()
        )
        raise status_error(self._client, response)

    def _too_large(self, exc: ResponseTooLarge) -> openai.APIError:
        # An SDK error that is neither a status nor a connection failure: the retry policy
        # reads it as not worth another try (the same request gets the same flood).
        return openai.APIError(f"response too large: {exc}", self._request(), body=None)

    async def aclose(self) -> None:
        """Close the connections (aiohttp's and the pool's)."""
        if self._pool is not None:
            self._pool.close()
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None


async def _read_capped(resp: aiohttp.ClientResponse) -> bytes:
    """The (decoded) body of `resp`, refused past `MAX_RESPONSE_BYTES`."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in resp.content.iter_chunked(1 << 16):
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise ResponseTooLarge(f"the response body passed {MAX_RESPONSE_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
