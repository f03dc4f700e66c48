"""Serving a model-boundary fault as the provider SDK itself would raise or return it.

The adapters send each request through `through_faults`, between the transport's retry loop
and the HTTP request: with no fault plan in force it only awaits the request. A fault is
served in the adapter's own SDK types, made the way the SDK makes them from a real answer —
a status error from an HTTP response with the provider's JSON error body
(`_make_status_error_from_response`, the same factory the fast path uses for real answers),
`APITimeoutError`, `APIConnectionError` caused by the transport's own "closed mid-body"
error — so the adapter's failure classification, its retries and their backoff run exactly
as against a provider that failed. A damaged reply is the real reply with one tool call's
arguments cut or made invalid JSON, handed to the adapter's parser.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import orjson

try:  # the SDKs' own HTTP library: httpx2 from openai 3, httpx before
    import httpx2 as _http
except ImportError:  # pragma: no cover - older SDKs
    import httpx as _http  # type: ignore[no-redef]

from .._draws import stable_pick, unit_draw
from ..records._internal import ProviderFaultKind
from ._model_faults import ModelCallFaults, current_model_call

T = TypeVar("T")

SERVER_ERRORS = (500, 502, 503)
"""The statuses a `5xx` fault answers (one per fault, by the seeded draw)."""


class _Sdk(Protocol):
    """The parts of a provider SDK module (openai, anthropic) a fault is made of."""

    APITimeoutError: Any
    APIConnectionError: Any


class SdkFaults:
    """Makes the errors of one adapter's SDK client for faults that never reach the provider
    (429, 5xx, timeout) or whose answer is lost (cut_stream)."""

    def __init__(self, client: Any, sdk: _Sdk, url: str) -> None:
        self._client = client
        self._sdk = sdk
        self._url = url

    def _request(self) -> Any:
        return _http.Request("POST", self._url)

    def status(self, status: int, message: str) -> Exception:
        """The SDK's typed error for an HTTP `status` answer with the provider's error body."""
        kind = "rate_limit_error" if status == 429 else "api_error"
        body = orjson.dumps({"type": "error", "error": {"type": kind, "message": message}})
        response = _http.Response(
            status,
            headers=[("content-type", "application/json")],
            content=body,
            request=self._request(),
        )
        made: Exception = self._client._make_status_error_from_response(response)
        return made

    def timeout(self) -> Exception:
        """The SDK's timeout error (a read that got no answer in time)."""
        made: Exception = self._sdk.APITimeoutError(request=self._request())
        return made

    def cut(self) -> Exception:
        """The SDK's connection error, caused by the transport's "closed mid-body" error."""
        made: Exception = self._sdk.APIConnectionError(request=self._request())
        made.__cause__ = _http.RemoteProtocolError(
            "peer closed connection without sending complete message body"
        )
        return made


Corrupt = Callable[[T, str, float], "tuple[T, str] | None"]
"""Damages a reply: given the reply, the variant (`truncated` or `invalid`) and where to cut
(a fraction in [0, 1)), the damaged reply and what was done, or None when the reply has no
tool call to damage."""


def damaged_arguments(text: str, variant: str, where: float) -> str:
    """`text` (a tool call's JSON arguments) cut short at fraction `where` (never whole), or
    made invalid JSON (keys and strings in single quotes): text no JSON parser accepts."""
    if variant == "invalid" and '"' in text:
        return text.replace('"', "'")
    if len(text) < 2:
        return "{"
    return text[: 1 + int(where * (len(text) - 1))]


async def through_faults(
    post: Callable[[], Awaitable[T]],
    errors: Callable[[], SdkFaults],
    corrupt: Corrupt[T],
) -> T:
    """`post()` — or the fault the current model call's plan serves on this attempt instead.

    `errors` makes the adapter's SDK errors (asked only when a fault is served); `corrupt`
    damages one of its replies for `bad_args`.
    """
    call = current_model_call()
    if call is None:
        return await post()
    attempt, kind = call.draw()
    if kind is None:
        return await post()
    key = _key(call, attempt)
    if kind is ProviderFaultKind.rate_limited:
        call.record(attempt, kind, "HTTP 429")
        raise errors().status(429, "Rate limit reached (injected by a model-fault plan).")
    if kind is ProviderFaultKind.server_error:
        status = stable_pick(SERVER_ERRORS, "model_fault_status", *key)
        call.record(attempt, kind, f"HTTP {status}")
        raise errors().status(status, "The server had an error (injected by a model-fault plan).")
    if kind is ProviderFaultKind.timeout:
        call.record(attempt, kind, "read timeout")
        raise errors().timeout()
    reply = await post()
    if kind is ProviderFaultKind.cut_stream:
        call.record(attempt, kind, "connection closed mid-body")
        raise errors().cut()
    variant = stable_pick(("truncated", "invalid"), "model_fault_args", *key)
    damaged = corrupt(reply, variant, unit_draw("model_fault_cut", *key))
    if damaged is None:  # no tool call in the reply: nothing to damage, nothing served
        return reply
    out, detail = damaged
    call.record(attempt, kind, detail)
    return out


def _key(call: ModelCallFaults, attempt: int) -> tuple[object, ...]:
    s = call.session
    return (s.seed, s.scenario_id, s.trial, call.index, attempt)


def corrupt_chat_completion(body: bytes, variant: str, where: float) -> tuple[bytes, str] | None:
    """A chat-completions body with its first tool call's arguments damaged (`variant`)."""
    try:
        data = orjson.loads(body)
        message = data["choices"][0]["message"]
        calls = message.get("tool_calls") or []
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError, AttributeError):
        return None
    for call in calls:
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict):
            continue
        args = fn.get("arguments")
        text = args if isinstance(args, str) else orjson.dumps(args or {}).decode()
        fn["arguments"] = damaged_arguments(text, variant, where)
        name = fn.get("name") or "?"
        return orjson.dumps(data), f"{variant} arguments of {name}"
    return None


def corrupt_anthropic_message(reply: Any, variant: str, where: float) -> tuple[Any, str] | None:
    """An Anthropic message with its first `tool_use` block's input damaged: the JSON text a
    client would have assembled from a cut or garbled `input_json_delta` stream."""
    content = list(getattr(reply, "content", None) or [])
    for i, block in enumerate(content):
        if getattr(block, "type", None) != "tool_use":
            continue
        text = orjson.dumps(block.input if block.input is not None else {}).decode()
        damaged = damaged_arguments(text, variant, where)
        content[i] = block.model_copy(update={"input": damaged})
        return reply.model_copy(update={"content": content}), f"{variant} arguments of {block.name}"
    return None
