"""The Anthropic adapter (Messages API through the anthropic SDK)."""

from __future__ import annotations

import time
from typing import Any

import anthropic
from anthropic.types import Message as AnthropicMessage

from .._secrets import register_secret
from ..errors import InfraError
from ..records import Message, ToolCall
from ..records._internal import ModelCall, Usage
from ._model_faults_sdk import SdkFaults, corrupt_anthropic_message, through_faults
from ._parse import CallIds, finish_reply, make_tool_call, safe_call_id
from ._payload import BYTES_PER_TOKEN, ToolPayloads, with_fields
from ._protocol import AgentRequest, AgentResponse
from ._ratelimit import RateLimiter, gate_key
from ._retry import (
    ProviderFailure,
    RetryPolicy,
    call_with_retries,
    provider_message,
)

DEFAULT_MAX_TOKENS = 4096
"""The Messages API requires a cap on output tokens; this one is used when none is given."""


def to_anthropic(messages: list[Message]) -> tuple[str | None, list[dict[str, Any]]]:
    """`(system, messages)` for the Messages API.

    System text goes apart; tool calls become `tool_use` blocks and tool results `tool_result`
    blocks in a user turn. Consecutive turns of one role are merged (so several tool results
    travel in one user message, results first), because the API wants roles to alternate.
    """
    system_parts = [m.content for m in messages if m.role == "system" and m.content]
    out: list[dict[str, Any]] = []
    for msg in messages:
        blocks: list[dict[str, Any]]
        if msg.role == "system":
            continue
        if msg.role == "assistant":
            role = "assistant"
            blocks = [{"type": "text", "text": msg.content}] if msg.content else []
            blocks += [
                {
                    "type": "tool_use",
                    "id": safe_call_id(call.id),
                    "name": call.name,
                    "input": call.arguments if call.arguments is not None else {},
                }
                for call in msg.tool_calls
            ]
            if not blocks:
                # The API rejects empty assistant turns; the model did say nothing, so show that.
                blocks = [{"type": "text", "text": "(no reply)"}]
        elif msg.role == "tool":
            role = "user"
            blocks = [
                {
                    "type": "tool_result",
                    "tool_use_id": safe_call_id(msg.tool_call_id or ""),
                    "content": msg.content or "",
                }
            ]
        else:
            role = "user"
            blocks = [{"type": "text", "text": msg.content or "(empty message)"}]
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return ("\n\n".join(system_parts) or None), out


def classify_anthropic_failure(exc: BaseException) -> ProviderFailure | None:
    """How an anthropic SDK exception reads for the retry policy; None for anything else."""
    if isinstance(exc, anthropic.APITimeoutError):  # a subclass of APIConnectionError: first
        return ProviderFailure.timed_out()
    if isinstance(exc, anthropic.APIConnectionError):
        return ProviderFailure.connection(exc)
    if isinstance(exc, anthropic.APIStatusError):
        message = provider_message(exc.body, exc.message)
        return ProviderFailure.from_status(exc.status_code, exc.response.headers, message)
    if isinstance(exc, anthropic.APIError):
        return ProviderFailure.other(exc)
    return None


class AnthropicAgent:
    """An agent backed by Anthropic's Messages API, with the same retry policy and records as
    the OpenAI-compatible adapter.

    `temperature` is sent only when given: current Claude models reject sampling parameters.
    `api_key` is registered as a secret, so it is redacted wherever it turns up.
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
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        limiter: RateLimiter | None = None,
    ) -> None:
        # Before anything can fail or print; not only make_agent's keys are secrets.
        register_secret(api_key)
        self.name = name
        self.model = model
        self.provider = "anthropic"
        self.temperature = temperature
        self.max_tokens = max_tokens or DEFAULT_MAX_TOKENS
        self._retry = retry or RetryPolicy()
        self._secret = api_key
        self._ids = CallIds("toolu")
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0
        )
        self._gate = (
            None if limiter is None else limiter.gate(gate_key("anthropic", model, base_url))
        )
        self._tool_payloads = ToolPayloads(
            lambda t: {"name": t.name, "description": t.description, "input_schema": t.parameters}
        )

    def _request_body(self, request: AgentRequest) -> bytes:
        """The Messages API request as JSON bytes, the tool schemas spliced in cached."""
        system, messages = to_anthropic(request.messages)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "max_tokens": self.max_tokens,
        }
        if system:
            body["system"] = system
        if self.temperature is not None:
            # Current Claude models reject sampling parameters: sent only when asked for.
            body["temperature"] = self.temperature
        fields = [("tools", self._tool_payloads(request.tools))] if request.tools else []
        return with_fields(body, fields)

    async def _post(self, body: bytes) -> AnthropicMessage:
        """POST the ready body through the SDK: its auth, headers, timeout and typed errors."""
        return await self._client.post("/v1/messages", cast_to=AnthropicMessage, content=body)

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """Send the conversation; return the model's message, what it cost, and its issues."""
        body = self._request_body(request)
        start = time.perf_counter()
        # This adapter never reads a failure as rejected model output (that is llama.cpp's
        # answer, behind the OpenAI-compatible adapter), so no ModelOutputRejected to catch.
        reply, attempts = await call_with_retries(
            lambda: through_faults(
                lambda: self._post(body), self._fault_errors, corrupt_anthropic_message
            ),
            provider=self.provider,
            policy=self._retry,
            classify=self.classify_failure,
            secret=self._secret,
            gate=self._gate,
            tokens=len(body) / BYTES_PER_TOKEN,
        )
        latency = time.perf_counter() - start
        if not isinstance(reply, AnthropicMessage):
            raise InfraError(f"{self.provider}: the response is not a message")
        return self._to_response(reply, request.step, latency, attempts)

    def _fault_errors(self) -> SdkFaults:
        """This client's SDK errors, for a model-fault plan's faults (`_model_faults_sdk`)."""
        return SdkFaults(
            self._client, anthropic, f"{str(self._client.base_url).rstrip('/')}/v1/messages"
        )

    def classify_failure(self, exc: BaseException) -> ProviderFailure | None:
        """How this adapter's SDK errors read for the retry policy
        (`classify_anthropic_failure`)."""
        return classify_anthropic_failure(exc)

    def _to_response(
        self, reply: AnthropicMessage, step: int, latency: float, attempts: int
    ) -> AgentResponse:
        texts: list[str] = []
        calls: list[ToolCall] = []
        seen: set[str] = set()
        for block in reply.content:
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":
                raw = block.input if isinstance(block.input, dict) else str(block.input)
                call_id = self._ids.fix(block.id, step, seen)
                calls.append(make_tool_call(call_id, block.name, raw))
        text = "".join(texts) if texts else None
        message, issues = finish_reply(text, calls, finish_reason=reply.stop_reason)
        usage = reply.usage
        cache_read = usage.cache_read_input_tokens or 0
        cache_write = usage.cache_creation_input_tokens or 0
        record = ModelCall(
            provider=self.provider,
            model=self.model,
            # Anthropic counts cached input apart; the total keeps Usage comparable with OpenAI.
            usage=Usage(
                input_tokens=usage.input_tokens + cache_read + cache_write,
                output_tokens=usage.output_tokens,
                cached_tokens=cache_read,
            ),
            latency_s=latency,
            finish_reason=reply.stop_reason,
            response_id=reply.id or None,
            attempts=attempts,
        )
        return AgentResponse(message=message, model_calls=[record], issues=issues)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.close()
