"""Transport retries for provider requests: which failures to retry, how long to wait.

This is the transport layer only (a request that never produced a model reply). The SDKs'
own retry loops are switched off (`max_retries=0`) so that budgets never multiply; model
output problems are classified elsewhere and never retried here.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import anthropic
import openai
import stamina

from .._secrets import redact_secrets
from ..errors import InfraError
from ..taxonomy import retry_after_seconds

T = TypeVar("T")

_RETRYABLE_STATUS = frozenset({408, 409, 429})
# llama.cpp answers HTTP 500 when the model's own output does not fit the tool-call format;
# retrying at temperature 0 gives the same output, and it is the model's failure, not infra.
_MODEL_OUTPUT_500 = re.compile(
    r"model produced output|does not match the expected|failed to parse tool call", re.I
)
_SECRET = re.compile(r"(sk-[A-Za-z0-9_\-*]{6,}|Bearer\s+\S+|key[-_][A-Za-z0-9_\-]{12,})")


@dataclass(frozen=True)
class RetryPolicy:
    """How provider requests are retried (exponential backoff with jitter, via stamina)."""

    attempts: int = 6
    """Total attempts per request, the first included."""
    wait_initial: float = 0.5
    """First backoff in seconds; doubled for each further retry."""
    wait_max: float = 30.0
    """Cap on one backoff, in seconds."""
    wait_jitter: float = 1.0
    """Random extra wait added to each exponential backoff, at most this many seconds."""
    max_retry_after: float = 120.0
    """A Retry-After longer than this is not waited for: the request fails at once."""


class ModelOutputRejected(Exception):
    """The server refused to return the model's reply because the reply itself was malformed."""

    def __init__(self, message: str, attempts: int = 1) -> None:
        super().__init__(message)
        self.attempts = attempts


def redact(text: str, *secrets: str | None) -> str:
    """`text` with the given secrets, every known secret value (environment keys, URL
    credentials, registered keys) and anything shaped like a key or bearer token removed."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return _SECRET.sub("[redacted]", redact_secrets(text))


_StatusError = openai.APIStatusError | anthropic.APIStatusError
_TimeoutError = openai.APITimeoutError | anthropic.APITimeoutError
_ConnectionError = openai.APIConnectionError | anthropic.APIConnectionError


def _provider_message(exc: _StatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return str(err["message"])
        if isinstance(err, str):
            return err
    return exc.message


class _Decider:
    """stamina's retry hook: True to retry, a float to retry after exactly that many seconds."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy

    def __call__(self, exc: Exception) -> bool | float:
        if isinstance(exc, _TimeoutError | _ConnectionError):
            return True
        if not isinstance(exc, _StatusError):
            return False
        status = exc.status_code
        if status == 500 and _MODEL_OUTPUT_500.search(_provider_message(exc)):
            return False
        if status not in _RETRYABLE_STATUS and status < 500:
            return False
        wait = retry_after_seconds(exc.response.headers)
        if wait is None:
            return True
        if wait > self.policy.max_retry_after:
            return False
        return wait


def _infra_error(exc: Exception, provider: str, attempts: int, policy: RetryPolicy) -> Exception:
    """The named error for a request that failed for good (`ModelOutputRejected` or InfraError)."""
    tries = f"after {attempts} attempt{'s' if attempts != 1 else ''}"
    if isinstance(exc, _TimeoutError):
        return InfraError(f"{provider}: request timed out {tries}")
    if isinstance(exc, _ConnectionError):
        cause = exc.__cause__ or exc
        return InfraError(f"{provider}: cannot connect ({type(cause).__name__}) {tries}")
    if isinstance(exc, _StatusError):
        status = exc.status_code
        message = redact(_provider_message(exc)).strip().splitlines()
        first = message[0] if message else ""
        if status in (401, 403):
            return InfraError(
                f"{provider}: the API key was rejected (HTTP {status}); check the key's "
                "environment variable"
            )
        if status == 500 and _MODEL_OUTPUT_500.search(first):
            return ModelOutputRejected(first, attempts)
        wait = retry_after_seconds(exc.response.headers)
        if status == 429 and wait is not None and wait > policy.max_retry_after:
            return InfraError(
                f"{provider}: rate limited; the provider asks to wait {wait:.0f} s, more than "
                f"the {policy.max_retry_after:.0f} s allowed"
            )
        kind = "rate limited" if status == 429 else f"HTTP {status}"
        return InfraError(f"{provider}: {kind} {tries}: {first}"[:500])
    return InfraError(f"{provider}: {type(exc).__name__}: {redact(str(exc))}"[:500])


async def call_with_retries(
    fn: Callable[[], Awaitable[T]],
    *,
    provider: str,
    policy: RetryPolicy,
    secret: str | None = None,
) -> tuple[T, int]:
    """Await `fn()` with transport retries; return its result and the number of attempts.

    Raises `InfraError` (one line, never the key) when the provider cannot answer, and
    `ModelOutputRejected` when the server refused the model's own malformed output.
    """
    attempts = 0
    failure: Exception | None = None
    try:
        async for attempt in stamina.retry_context(
            on=_Decider(policy),
            attempts=policy.attempts,
            timeout=None,
            wait_initial=policy.wait_initial,
            wait_max=policy.wait_max,
            wait_jitter=policy.wait_jitter,
        ):
            with attempt:
                attempts = attempt.num
                result = await fn()
    except (openai.APIError, anthropic.APIError) as exc:
        failure = _infra_error(exc, provider, attempts, policy)
        if secret and isinstance(failure, InfraError):
            failure = InfraError(redact(str(failure), secret))
    if failure is not None:
        # Raised outside the except block so the SDK error (whose text may echo part of the
        # key) is not even attached as context to what reaches logs and tracebacks.
        raise failure
    return result, attempts
