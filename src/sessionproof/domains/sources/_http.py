"""OpenAPI against a live base URL: each call is a real HTTP request, its status classified.

2xx is the body (JSON when it parses, else the text); 404 `not_found`, 429 `rate_limited`,
401/403 `auth_expired`, other 4xx `validation_error`, 5xx `server_error`; a JSON content type
whose body does not parse `malformed_output`. Each call is bounded: `timeout_s` is its whole
wall-clock time (connect, headers and every byte of the body; past it `timeout`), and its
body is cut off at `MAX_RESPONSE_BYTES`, raw or decoded (past it `truncated_output`).

A service that cannot be reached at all (refused, no such host, a `base_url` that is not a
URL) is not a failure the agent can handle: the call is `unavailable` and the source is
`gone()`, so the engine ends the session as `infra_error` instead of judging it. One client
per session, closed when the session ends.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from ...errors import ConfigError, ToolError
from ...records import ErrorClass, ToolSpec
from .. import Domain, DomainSpec, SchemaTool, SchemaTools
from ._capped import MAX_RESPONSE_BYTES, CappedTransport, ResponseTooLarge, read_capped
from ._fixtures import NoState
from ._openapi import OpenAPITools, Operation

_STATUS = {
    404: ErrorClass.not_found,
    429: ErrorClass.rate_limited,
    401: ErrorClass.auth_expired,
    403: ErrorClass.auth_expired,
}


class HttpToolError(ToolError):
    """A request that did not succeed, with its class."""

    def __init__(self, message: str, error_class: ErrorClass) -> None:
        super().__init__(message)
        self.error_class = error_class.value


def status_class(status: int) -> ErrorClass:
    """The error class of a non-2xx HTTP status."""
    if status in _STATUS:
        return _STATUS[status]
    return ErrorClass.server_error if status >= 500 else ErrorClass.validation_error


def _request_parts(op: Operation, args: dict[str, Any]) -> dict[str, Any]:
    path = op.path
    for name in op.path_params:
        path = path.replace("{" + name + "}", quote(str(args.get(name, "")), safe=""))
    parts: dict[str, Any] = {"url": path}
    query = {k: args[k] for k in op.query_params if k in args}
    if query:
        parts["params"] = query
    headers = {k: str(args[k]) for k in op.header_params if k in args}
    if headers:
        parts["headers"] = headers
    if op.body_whole and "body" in args:
        parts["json"] = args["body"]
    elif op.body_params:
        parts["json"] = {k: args[k] for k in op.body_params if k in args}
    return parts


class HttpSession:
    """The client of one session (opened on first call, closed by `aclose`)."""

    def __init__(self, base_url: str, timeout_s: float, headers: dict[str, str]) -> None:
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.headers = headers
        self.unreachable: str | None = None
        """Why the service cannot be reached at all, once a call found that out."""
        self._client: httpx.AsyncClient | None = None

    def _cannot_reach(self, op: Operation, exc: Exception) -> HttpToolError:
        said = " ".join(str(exc).split()) or type(exc).__name__
        self.unreachable = f"the service at {self.base_url} cannot be reached: {said}"
        return HttpToolError(f"{op.method} {op.path}: {self.unreachable}", ErrorClass.unavailable)

    async def _exchange(self, op: Operation, args: dict[str, Any]) -> tuple[httpx.Response, bytes]:
        if self._client is None:
            self._client = httpx.AsyncClient(
                base_url=self.base_url,
                timeout=self.timeout_s,
                headers=self.headers,
                transport=CappedTransport(),
            )
        request = self._client.build_request(op.method, **_request_parts(op, args))
        response = await self._client.send(request, stream=True)
        try:
            return response, await read_capped(response)
        finally:
            await response.aclose()

    async def send(self, op: Operation, args: dict[str, Any]) -> Any:
        """Make the request; the decoded body, or raises `HttpToolError`."""
        if self.unreachable is not None:
            raise HttpToolError(
                f"{op.method} {op.path}: {self.unreachable}", ErrorClass.unavailable
            )
        try:
            async with asyncio.timeout(self.timeout_s):
                response, raw = await self._exchange(op, args)
        except (TimeoutError, httpx.TimeoutException):
            raise HttpToolError(
                f"{op.method} {op.path}: no complete answer within {self.timeout_s:g} s",
                ErrorClass.timeout,
            ) from None
        except ResponseTooLarge:
            raise HttpToolError(
                f"{op.method} {op.path}: the response body passed {MAX_RESPONSE_BYTES} bytes",
                ErrorClass.truncated_output,
            ) from None
        except (httpx.ConnectError, httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise self._cannot_reach(op, exc) from None
        except httpx.HTTPError as exc:
            raise HttpToolError(f"{op.method} {op.path}: {exc}", ErrorClass.unavailable) from None
        text = raw.decode(response.encoding or "utf-8", errors="replace")
        if not response.is_success:
            raise HttpToolError(
                f"HTTP {response.status_code}: {text[:500]}", status_class(response.status_code)
            )
        if not text:
            return ""
        try:
            return json.loads(text)
        except ValueError:
            if "json" in response.headers.get("content-type", ""):
                raise HttpToolError(
                    f"{op.method} {op.path}: the body is not valid JSON: {text[:200]}",
                    ErrorClass.malformed_output,
                ) from None
            return text

    async def aclose(self) -> None:
        """Close the client, if one was opened."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None


class HttpTools(SchemaTools):
    """The operations as `SchemaTools`, `gone()` once the service proved unreachable."""

    def __init__(self, tools: list[SchemaTool], http: HttpSession) -> None:
        super().__init__(tools, close=http.aclose)
        self.http = http

    def gone(self) -> str | None:
        """Why the service cannot be reached (refused, no such host), or None."""
        return self.http.unreachable


class HttpDomainSpec(DomainSpec):
    """A domain whose tools are an OpenAPI document's operations on a live service."""

    stateful = False
    """The state is the service's: no hash, no gold replay."""

    def __init__(
        self,
        name: str,
        document: OpenAPITools,
        base_url: str,
        policy: str = "",
        transfer_tools: frozenset[str] = frozenset(),
        timeout_s: float = 30.0,
        headers: dict[str, str] | None = None,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(
                f"OpenAPI domain {name!r}: base_url {base_url!r} is not an http(s) URL "
                "(e.g. http://127.0.0.1:8080)"
            )
        self.name = name
        self.document = document
        self.base_url = base_url
        self.policy = policy
        self.transfer_tools = transfer_tools
        self.timeout_s = timeout_s
        self.headers = dict(headers or {})

    def create(self) -> Domain[Any]:
        """A new domain with its own HTTP client."""
        http = HttpSession(self.base_url, self.timeout_s, self.headers)

        def serve(op: Operation) -> Any:
            async def call(**args: Any) -> Any:
                return await http.send(op, args)

            return call

        tools = HttpTools(
            [SchemaTool(s, serve(self.document.operations[s.name])) for s in self.document.specs],
            http,
        )
        return Domain(self.name, NoState(), tools, self.policy, self.transfer_tools)

    def tools(self) -> list[ToolSpec]:
        """The document's tools."""
        return list(self.document.specs)
