"""The OpenAI-compatible adapter: OpenAI itself, and any chat-completions server (llama.cpp,
vLLM, ...), with native or prompted tool calling."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx
import openai

try:  # the SDK's own HTTP library: httpx2 from openai 3, httpx before
    import httpx2 as _http
except ImportError:  # pragma: no cover - older openai SDKs
    import httpx as _http  # type: ignore[no-redef]

from .._secrets import register_secret
from ..records import ErrorClass, Message, ToolCall
from ..records._internal import ModelCall, Usage
from . import _prompted as prompted
from ._completion import Completion, read_completion
from ._fastpath import direct_post
from ._model_faults_sdk import SdkFaults, corrupt_chat_completion, through_faults
from ._parse import CallIds, finish_reply, history_arguments, make_tool_call
from ._payload import BYTES_PER_TOKEN, ToolPayloads, with_fields
from ._protocol import AgentRequest, AgentResponse, OutputIssue
from ._ratelimit import RateLimiter, gate_key
from ._registry import ToolMode
from ._retry import (
    ModelOutputRejected,
    ProviderFailure,
    RetryPolicy,
    call_with_retries,
    provider_message,
)
from ._spec import NO_KEY

# The SDK keeps at most 100 idle connections: past 100 sessions in flight, every request
# would open (and the server accept) a new TCP connection. Keep as many as are in use.
_LIMITS = _http.Limits(max_connections=None, max_keepalive_connections=None)
# aiohttp reads "no limit" as its default of 100 connections (at most 100 requests in
# flight, whatever the concurrency); its own spelling of "no limit" is 0. httpx reads 0 as
# a pool of no connections at all, so each transport gets its own spelling.
_AIOHTTP_LIMITS = _http.Limits(max_connections=0, max_keepalive_connections=None)


def _aiohttp_ok(base_url: str | None) -> bool:
    """Whether requests to `base_url` can go on aiohttp (installed, no credentials in the URL)."""
    parts = urlsplit(base_url or "")
    try:
        import aiohttp  # noqa: F401  (only whether it is there)
    except ImportError:  # pragma: no cover - aiohttp is a dependency; kept for safety
        return False
    return parts.username is None and parts.password is None


def _http_client(timeout_s: float, base_url: str | None) -> Any:
    """The SDK's HTTP client on aiohttp when it is installed, else on httpx, keeping every
    connection it opens.

    At hundreds of requests in flight the httpx connection pool rescans every connection
    for every request; the SDK's aiohttp transport measured ~2.5x less CPU per call at 256
    in flight (benchmarks/throughput.py). Both honour proxy settings from the environment.
    A URL with credentials in it stays on httpx: aiohttp refuses to send them along with
    the SDK's Authorization header.
    """
    if not _aiohttp_ok(base_url):
        return openai.DefaultAsyncHttpxClient(timeout=timeout_s, limits=_LIMITS)
    return openai.DefaultAioHttpClient(timeout=timeout_s, limits=_AIOHTTP_LIMITS)


ToolChoice = Literal["auto", "required"]
"""`required` forces a tool call (tests, forced first steps); `auto` lets the model choose."""

LOCAL_KEY = "sessionproof-local"
"""The key sent to the embedded llama.cpp server (which checks none)."""
_PLACEHOLDER_KEYS = frozenset({NO_KEY, LOCAL_KEY})

# llama.cpp answers HTTP 500 when the model's own output does not fit the tool-call format;
# retrying at temperature 0 gives the same output, and it is the model's failure, not infra.
_MODEL_OUTPUT_500 = re.compile(
    r"model produced output|does not match the expected|failed to parse tool call", re.I
)


def _refused(exc: BaseException) -> BaseException | None:
    """The connection error at the root of a "timeout", if that is what it really is.

    The SDK's aiohttp transport maps every aiohttp connection error, a refused connection
    included, to a connect *timeout*; the original error is still the chain's root.
    """
    root = exc
    while root.__cause__ is not None:
        root = root.__cause__
    if isinstance(root, OSError) and not isinstance(root, TimeoutError):
        return root
    return None


def classify_openai_failure(exc: BaseException) -> ProviderFailure | None:
    """How an openai SDK exception reads for the retry policy; None for anything else."""
    if isinstance(exc, openai.APITimeoutError):  # a subclass of APIConnectionError: first
        refused = _refused(exc)
        if refused is not None:
            return ProviderFailure.connection(exc, refused)
        return ProviderFailure.timed_out()
    if isinstance(exc, openai.APIConnectionError):
        return ProviderFailure.connection(exc)
    if isinstance(exc, openai.APIStatusError):
        message = provider_message(exc.body, exc.message)
        if exc.status_code == 500 and _MODEL_OUTPUT_500.search(message):
            return ProviderFailure.model_output_rejected(500, message)
        return ProviderFailure.from_status(exc.status_code, exc.response.headers, message)
    if isinstance(exc, openai.APIError):
        return ProviderFailure.other(exc)
    return None


def to_openai_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Chat-completions messages for `messages` (tool calls carry JSON-string arguments)."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        if msg.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": msg.content}
            if msg.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": history_arguments(call)},
                    }
                    for call in msg.tool_calls
                ]
            elif msg.content is None:
                entry["content"] = ""
            out.append(entry)
        elif msg.role == "tool":
            call_id = msg.tool_call_id or ""
            out.append({"role": "tool", "tool_call_id": call_id, "content": msg.content or ""})
        else:
            out.append({"role": msg.role, "content": msg.content or ""})
    return out


def server_root(base_url: str) -> str:
    """The server's root URL: `base_url` without a trailing `/v1`."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


async def detect_tool_mode(
    base_url: str, timeout_s: float = 5.0, api_key: str | None = None
) -> Literal["native", "prompted"]:
    """`native` unless the server is llama.cpp and its chat template cannot call tools.

    llama.cpp publishes its template's abilities at `GET /props` (on the server root, not
    under `/v1`) as `chat_template_caps.supports_tool_calls`; other servers have no such
    endpoint and are assumed to support the `tools` field.
    """
    try:
        # A llama.cpp server started with an API key wants it for /props too.
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        async with httpx.AsyncClient(timeout=timeout_s, headers=headers) as client:
            resp = await client.get(f"{server_root(base_url)}/props")
        if resp.status_code != 200:
            return "native"
        caps = resp.json().get("chat_template_caps")
    except (httpx.HTTPError, ValueError, AttributeError):
        return "native"
    if isinstance(caps, dict) and "supports_tool_calls" in caps:
        return "native" if caps["supports_tool_calls"] else "prompted"
    return "native"


class OpenAICompatAgent:
    """An agent backed by a chat-completions endpoint (openai SDK, any `base_url`).

    Every reply keeps all tool calls in emission order (parallel calls and unknown tool names
    included); broken replies come back classified in `AgentResponse.issues`. Transport
    failures are retried by `RetryPolicy`; when retries run out, `InfraError` is raised.
    `api_key` is registered as a secret, so it is redacted wherever it turns up. Requests go
    through `limiter`'s gate for this provider/model when given (rate limits, adaptive
    concurrency); the request body is built as JSON bytes and sent as is (`_payload`).
    """

    plays_users = True
    """A language model: it can also play the simulated user."""
    serves_model_faults = True
    """Its provider requests meet a model-fault plan (`_model_faults_sdk`)."""
    request_readonly = True
    replies_fresh = True
    """Its replies are fresh records built from the provider's parsed answer."""
    """It never edits a request and never reads its scenario: the engine need not copy."""

    def __init__(
        self,
        *,
        name: str,
        model: str,
        api_key: str,
        base_url: str | None = None,
        provider: str = "openai-compat",
        tool_mode: ToolMode = "auto",
        probe_server: bool = True,
        temperature: float | None = 0.0,
        seed: int | None = None,
        max_tokens: int | None = None,
        max_tokens_field: str = "max_tokens",
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        extra_body: dict[str, Any] | None = None,
        tool_choice: ToolChoice | None = None,
        limiter: RateLimiter | None = None,
    ) -> None:
        if api_key not in _PLACEHOLDER_KEYS:
            # Before anything can fail or print; not only make_agent's keys are secrets.
            register_secret(api_key)
        self.name = name
        self.model = model
        self.provider = provider
        self.base_url = base_url
        self.tool_mode: ToolMode = tool_mode
        self.temperature = temperature
        self.seed = seed
        self.max_tokens = max_tokens
        self.tool_choice = tool_choice
        self._max_tokens_field = max_tokens_field
        self._probe = probe_server and base_url is not None
        self._retry = retry or RetryPolicy()
        self._extra_body = dict(extra_body or {})
        self._secret = api_key
        self._timeout_s = timeout_s
        self._ids = CallIds()
        self._tool_payloads = ToolPayloads(lambda spec: spec.openai())
        self._mode_lock = asyncio.Lock()
        self._client = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout_s,
            max_retries=0,
            http_client=_http_client(timeout_s, base_url),
        )
        # openai-compat servers take a static key: the ready body goes out on the fast path
        # (`_fastpath`: our HTTP/1.1 client, the SDK's headers and error types), skipping the
        # SDK's request machinery; None: the SDK's public `client.post` (see `_fastpath`).
        self._direct = (
            direct_post(self._client, "/chat/completions", timeout_s)
            if provider == "openai-compat" and _aiohttp_ok(base_url)
            else None
        )
        # Shared with every agent of the run on this provider/model (the simulated user too).
        self._gate = None if limiter is None else limiter.gate(gate_key(provider, model, base_url))

    async def resolved_tool_mode(self) -> Literal["native", "prompted"]:
        """The tool mode in use: `auto` is resolved once, on first use, by asking the server."""
        if self.tool_mode != "auto":  # resolved: no lock to take on every request
            return "prompted" if self.tool_mode == "prompted" else "native"
        async with self._mode_lock:
            if self.tool_mode == "auto":
                if self._probe and self.base_url is not None:
                    self.tool_mode = await detect_tool_mode(
                        self.base_url, min(self._timeout_s, 10.0), self._secret
                    )
                else:
                    self.tool_mode = "native"
            mode: Literal["native", "prompted"] = (
                "prompted" if self.tool_mode == "prompted" else "native"
            )
            return mode

    def _request_body(self, request: AgentRequest, mode: Literal["native", "prompted"]) -> bytes:
        """The chat-completions request as JSON bytes, the tool schemas spliced in cached.

        Equal, as JSON, to what `chat.completions.create` would send for the same arguments
        (a test holds it to the SDK's own transformation), without its per-call re-walk.
        """
        body: dict[str, Any] = {"model": self.model}
        fields: list[tuple[str, bytes]] = []
        if mode == "prompted":
            body["messages"] = prompted.to_chat_messages(request.messages, request.tools)
            body["response_format"] = prompted.response_format(
                request.tools,
                require_tool=self.tool_choice == "required",
                max_message_chars=prompted.message_chars_for(self.max_tokens),
            )
        else:
            body["messages"] = to_openai_messages(request.messages)
            if request.tools:
                if "tools" not in self._extra_body:
                    fields.append(("tools", self._tool_payloads(request.tools)))
                if self.tool_choice is not None:
                    body["tool_choice"] = self.tool_choice
        if self.temperature is not None:
            body["temperature"] = self.temperature
        seed = request.seed if request.seed is not None else self.seed
        if seed is not None:
            body["seed"] = seed
        if self.max_tokens is not None:
            body[self._max_tokens_field] = self.max_tokens
        # extra_body wins over every field, as the SDK merges it.
        body.update(self._extra_body)
        return with_fields(body, fields)

    async def _post(self, body: bytes) -> bytes:
        """POST the ready body through the SDK (its auth, headers, timeout and typed errors);
        the reply's bytes, read by `read_completion` rather than the SDK's typed models.
        An openai-compat server gets it on the fast path (same headers, same error types)."""
        if self._direct is not None:
            return await self._direct.post(body)
        return await self._client.post(
            "/chat/completions",
            cast_to=bytes,
            content=body,
            options={"security": {"bearer_auth": True}},
        )

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """Send the conversation; return the model's message, what it cost, and its issues."""
        mode = await self.resolved_tool_mode() if request.tools else "native"
        body = self._request_body(request, mode)
        start = time.perf_counter()
        try:
            raw, attempts = await call_with_retries(
                lambda: through_faults(
                    lambda: self._post(body), self._fault_errors, corrupt_chat_completion
                ),
                provider=self.provider,
                policy=self._retry,
                classify=self.classify_failure,
                secret=self._secret,
                gate=self._gate,
                tokens=len(body) / BYTES_PER_TOKEN,
            )
        except ModelOutputRejected as exc:
            # The server already decided the model's output was unusable: classify it as the
            # model's failure so the session goes on (the engine decides what happens next).
            call = ModelCall(
                provider=self.provider,
                model=self.model,
                latency_s=time.perf_counter() - start,
                finish_reason="error",
                attempts=exc.attempts,
            )
            issue = OutputIssue(
                error_class=ErrorClass.malformed_output,
                message=f"the server rejected the model's output: {exc}",
            )
            empty = Message.assistant(None)
            return AgentResponse(message=empty, model_calls=[call], issues=[issue])
        latency = time.perf_counter() - start
        completion = read_completion(raw, self.provider)
        return self._to_response(completion, request.step, mode, latency, attempts)

    def _fault_errors(self) -> SdkFaults:
        """This client's SDK errors, for a model-fault plan's faults (`_model_faults_sdk`)."""
        return SdkFaults(
            self._client, openai, f"{str(self._client.base_url).rstrip('/')}/chat/completions"
        )

    def classify_failure(self, exc: BaseException) -> ProviderFailure | None:
        """How this adapter's SDK errors read for the retry policy (`classify_openai_failure`)."""
        return classify_openai_failure(exc)

    def _to_response(
        self,
        completion: Completion,
        step: int,
        mode: Literal["native", "prompted"],
        latency: float,
        attempts: int,
    ) -> AgentResponse:
        finish = completion.finish_reason
        text = completion.content
        calls = self._native_calls(completion, step)
        issues: list[OutputIssue] = []
        if mode == "prompted":
            text, prompted_calls, issues = prompted.parse_reply(
                text, ids=self._ids, step=step, truncated=finish == "length"
            )
            calls = calls + prompted_calls
        message, found = finish_reply(text, calls, finish_reason=finish, issues=issues)
        record = ModelCall(
            provider=self.provider,
            model=self.model,
            usage=Usage(
                input_tokens=completion.input_tokens,
                output_tokens=completion.output_tokens,
                cached_tokens=completion.cached_tokens,
            ),
            latency_s=latency,
            finish_reason=finish,
            response_id=completion.id,
            attempts=attempts,
        )
        return AgentResponse(message=message, model_calls=[record], issues=found)

    def _native_calls(self, completion: Completion, step: int) -> list[ToolCall]:
        calls: list[ToolCall] = []
        seen: set[str] = set()
        for raw in completion.calls:
            calls.append(make_tool_call(self._ids.fix(raw.id, step, seen), raw.name, raw.arguments))
        legacy = completion.legacy_call
        if legacy is not None:
            calls.append(make_tool_call(self._ids.next(step), legacy.name, legacy.arguments))
        return calls

    async def aclose(self) -> None:
        """Close the HTTP clients."""
        if self._direct is not None:
            await self._direct.aclose()
        await self._client.close()
