"""Transport retries for provider requests: which failures to retry, how long to wait.

This is the transport layer only (a request that never produced a model reply). The SDKs'
own retry loops are switched off (`max_retries=0`) so that budgets never multiply; model
output problems are classified elsewhere and never retried here.

The policy knows no SDK: each provider adapter declares how its own exceptions read, as a
`ProviderFailure` (error class, retryable, the wait asked for), and the policy asks it. Classes
and waits come from the one classifier and the one Retry-After parser in `taxonomy`.
"""

from __future__ import annotations

import asyncio
import math
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from .._retrying import RetryDetails, on_retry
from .._secrets import redact_secrets
from ..errors import InfraError
from ..records import ErrorClass
from ..taxonomy import classify_exception, semantics
from ..taxonomy._internal import classify_status
from ..taxonomy._internal import retry_after_seconds as retry_after_seconds

if TYPE_CHECKING:
    from tenacity import RetryCallState

    from ._ratelimit import ProviderGate, Sleep

T = TypeVar("T")

_SECRET = re.compile(r"(sk-[A-Za-z0-9_\-*]{6,}|Bearer\s+\S+|key[-_][A-Za-z0-9_\-]{12,})")


@dataclass(frozen=True)
class RetryPolicy:
    """How provider requests are retried (exponential backoff with jitter, on tenacity)."""

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
    zero_wait_floor: float = 0.05
    """The first wait after a 429 that asks for none (Retry-After 0, negative or NaN),
    doubled for each further one up to `wait_max`: honoured almost at once, never a busy
    loop."""
    rate_limit_wait: float = 600.0
    """Total seconds one request may spend waiting out 429 answers (they do not count
    against `attempts`: a provider's 429 storm is waited out, not turned into failures);
    past it the request fails as rate limited. Counted as the waits asked for or the wall
    time since the first 429, whichever is more."""


@dataclass(frozen=True)
class ProviderFailure:
    """How a provider adapter reads one failed request: what the retry policy acts on."""

    kind: Literal["timeout", "connection", "status", "other"]
    """What went wrong, as far as the wording of the final error goes."""
    error_class: ErrorClass
    retryable: bool
    """Sending the same request again may succeed."""
    status: int | None = None
    """The HTTP status, for `status` failures."""
    retry_after_s: float | None = None
    """The wait the provider asked for (Retry-After), if any."""
    message: str = ""
    """The provider's own one-line message, or the cause's type for a connection failure."""
    model_output: bool = False
    """The server refused to return the model's reply because the reply itself was malformed
    (the model's failure, not the infrastructure's)."""

    @classmethod
    def timed_out(cls) -> ProviderFailure:
        """The request got no answer within the client timeout."""
        return cls(kind="timeout", error_class=ErrorClass.timeout, retryable=True)

    @classmethod
    def connection(cls, exc: BaseException, cause: BaseException | None = None) -> ProviderFailure:
        """The connection failed (refused, reset, TLS); its cause is what the SDK wrapped
        (or `cause`, when the adapter found the real one deeper)."""
        cause = cause or exc.__cause__ or exc
        # Always worth another try: the request never produced a reply. The class says
        # whether it is known not to have run (refused) or may have (dropped).
        return cls(
            kind="connection",
            error_class=classify_exception(cause),
            retryable=True,
            message=type(cause).__name__,
        )

    @classmethod
    def from_status(
        cls, status: int, headers: Mapping[str, str] | None, message: str
    ) -> ProviderFailure:
        """An HTTP error answer: classed by status, retryable as its class says.

        409 is retried as well: model APIs answer it for transient conflicts (a lock held by
        a concurrent request), and the providers' own SDKs retry it too.
        """
        error_class = classify_status(status) or ErrorClass.unknown
        return cls(
            kind="status",
            error_class=error_class,
            retryable=semantics(error_class).retryable or status == 409,
            status=status,
            retry_after_s=retry_after_seconds(headers),
            message=message,
        )

    @classmethod
    def model_output_rejected(cls, status: int, message: str) -> ProviderFailure:
        """The server refused the model's own malformed output; retrying gives the same."""
        return cls(
            kind="status",
            error_class=ErrorClass.malformed_output,
            retryable=False,
            status=status,
            message=message,
            model_output=True,
        )

    @classmethod
    def other(cls, exc: BaseException) -> ProviderFailure:
        """Any other SDK error (an unreadable response...): not retried."""
        return cls(
            kind="other",
            error_class=classify_exception(exc),
            retryable=False,
            message=f"{type(exc).__name__}: {exc}",
        )


FailureClassifier = Callable[[BaseException], ProviderFailure | None]
"""A provider adapter's reading of an exception; None when it is not one of its SDK's
failures (then it propagates unchanged: a bug is not retried)."""


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


def provider_message(body: Any, fallback: str) -> str:
    """The message inside an error body (`{"error": {"message": ...}}` and its variants)."""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return str(err["message"])
        if isinstance(err, str):
            return err
    return fallback


def _usable_hint(wait: float | None) -> float | None:
    """A Retry-After worth obeying: positive and finite. Zero, negative or NaN ask for no
    wait at all, which against a provider answering 429 to everything is a busy loop; such
    a hint is not obeyed as given (see `RetryPolicy.zero_wait_floor`)."""
    if wait is None or not math.isfinite(wait) or wait <= 0:
        return None
    return wait


class _Decider:
    """The retry loop's judge: whether a failure is retried, and after how long (the wait a
    provider asked for, else exponential backoff with jitter)."""

    def __init__(self, policy: RetryPolicy, classify: FailureClassifier) -> None:
        self.policy = policy
        self.classify = classify
        self.attempts = 0
        """Requests sent, the 429s waited out included."""
        self.gave_up = False
        """The 429 loop already waited all it may: no further attempt."""
        self._asked: float | None = None
        """The wait the last retried failure asked for (its Retry-After), if any."""

    def retry(self, state: RetryCallState) -> bool:
        """tenacity's `retry`: whether the attempt's failure is retried, noting the wait it
        asked for (a usable Retry-After up to `max_retry_after`; longer: no retry)."""
        exc = state.outcome.exception() if state.outcome is not None else None
        failure = self.classify(exc) if isinstance(exc, Exception) else None
        if self.gave_up or failure is None or not failure.retryable:
            return False
        wait = _usable_hint(failure.retry_after_s)
        if wait is not None and wait > self.policy.max_retry_after:
            return False
        self._asked = wait
        return True

    def wait(self, state: RetryCallState) -> float:
        """tenacity's `wait`: the asked-for wait, else `wait_initial` doubled per attempt plus
        up to `wait_jitter`, capped at `wait_max`."""
        if self._asked is not None:
            asked, self._asked = self._asked, None
            return asked  # the wait the provider asked for, exactly
        policy = self.policy
        jitter = random.uniform(0, policy.wait_jitter) if policy.wait_jitter else 0.0
        try:
            backoff = policy.wait_initial * 2.0 ** (state.attempt_number - 1) + jitter
            return min(policy.wait_max, backoff)
        except OverflowError:
            return policy.wait_max


def _report(state: RetryCallState) -> None:
    """tenacity's `before_sleep`: tell the retry hooks (`_retrying`) about this retry."""
    wait = float(state.upcoming_sleep)
    exc = state.outcome.exception() if state.outcome is not None else None
    assert exc is not None  # only a failure is retried
    on_retry(RetryDetails(state.attempt_number, wait, state.idle_for - wait, exc))


async def _sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


def _infra_error(
    failure: ProviderFailure, provider: str, attempts: int, policy: RetryPolicy
) -> Exception:
    """The named error for a request that failed for good (`ModelOutputRejected` or InfraError)."""
    tries = f"after {attempts} attempt{'s' if attempts != 1 else ''}"
    if failure.kind == "timeout":
        return InfraError(f"{provider}: request timed out {tries}")
    if failure.kind == "connection":
        return InfraError(f"{provider}: cannot connect ({failure.message}) {tries}")
    if failure.kind == "other":
        return InfraError(f"{provider}: {redact(failure.message)}"[:500])
    status = failure.status
    lines = redact(failure.message).strip().splitlines()
    first = lines[0] if lines else ""
    if status in (401, 403):
        return InfraError(
            f"{provider}: the API key was rejected (HTTP {status}); check the key's "
            "environment variable"
        )
    if failure.model_output:
        return ModelOutputRejected(first, attempts)
    wait = _usable_hint(failure.retry_after_s)
    if status == 429 and wait is not None and wait > policy.max_retry_after:
        return InfraError(
            f"{provider}: rate limited; the provider asks to wait {wait:.0f} s, more than "
            f"the {policy.max_retry_after:.0f} s allowed"
        )
    kind = "rate limited" if status == 429 else f"HTTP {status}"
    return InfraError(f"{provider}: {kind} {tries}: {first}"[:500])


class _Unlimited:
    """The slot of a request sent without a gate: nothing to wait for, nothing to tell."""

    async def __aenter__(self) -> _Unlimited:
        return self

    async def __aexit__(self, *exc: object) -> None:
        pass

    def ok(self) -> None:
        pass

    def rate_limited(self) -> None:
        pass


_UNLIMITED = _Unlimited()


def _rate_limit_wait(failure: ProviderFailure, backoff: float, policy: RetryPolicy) -> float:
    """The wait before resending after a 429: what the provider asked for (when positive and
    finite), else backoff."""
    asked = _usable_hint(failure.retry_after_s)
    if asked is not None:
        return asked
    return backoff + random.uniform(0, policy.wait_jitter)


async def _send(
    fn: Callable[[], Awaitable[T]],
    decider: _Decider,
    gate: ProviderGate | None,
    tokens: float,
    sleep: Sleep,
) -> T:
    """One transport attempt as the retry loop sees it: the request, through the provider's gate,
    with every 429 waited out here (Retry-After, else exponential backoff; a Retry-After
    asking for no wait gets `zero_wait_floor`, doubled each time) until the policy's
    total rate-limit wait is spent (the waits asked for, or the wall time since the first
    429 when that is more: a provider answering at once cannot stretch the budget; time
    queued at the gate behind the run's other requests is not counted)."""
    policy = decider.policy
    waited = 0.0
    first_429: float | None = None
    queued = 0.0  # time since the first 429 spent queued at the gate: the run's, not the 429s'
    backoff = policy.wait_initial
    floor = policy.zero_wait_floor
    while True:
        decider.attempts += 1
        entering = time.monotonic() if first_429 is not None else 0.0
        async with gate.slot(tokens) if gate is not None else _UNLIMITED as slot:
            if first_429 is not None:
                queued += time.monotonic() - entering
            try:
                result = await fn()
            except Exception as exc:
                failure = decider.classify(exc)
                if failure is None or failure.status != 429:
                    raise
                slot.rate_limited()
                now = time.monotonic()
                if first_429 is None:
                    first_429 = now
                spent = max(waited, now - first_429 - queued)
                asked = _usable_hint(failure.retry_after_s)
                if asked is None and failure.retry_after_s is not None:
                    wait, floor = floor, min(policy.wait_max, floor * 2)  # asked for no wait
                else:
                    wait = _rate_limit_wait(failure, backoff, policy)
                too_long = asked is not None and asked > policy.max_retry_after
                if too_long or spent + wait > policy.rate_limit_wait:
                    decider.gave_up = True
                    raise
            else:
                slot.ok()
                return result
        # Outside the slot: a request waiting out a 429 holds no place in the window.
        backoff = min(policy.wait_max, backoff * 2)
        waited += wait
        await sleep(wait)


async def call_with_retries(
    fn: Callable[[], Awaitable[T]],
    *,
    provider: str,
    policy: RetryPolicy,
    classify: FailureClassifier,
    secret: str | None = None,
    gate: ProviderGate | None = None,
    tokens: float = 0.0,
    sleep: Sleep = asyncio.sleep,
) -> tuple[T, int]:
    """Await `fn()` with transport retries; return its result and the number of attempts.

    `classify` is the provider adapter's reading of its own exceptions. Each request holds a
    slot of `gate` (the provider's shared rate-limit gate, `tokens` its estimated size) while
    in flight; 429 answers are waited out up to `policy.rate_limit_wait` in all and do not
    count against `policy.attempts` (`sleep` does the waiting: a fake clock in tests). Raises
    `InfraError` (one line, never the key) when the provider cannot answer, and
    `ModelOutputRejected` when the server refused the model's own malformed output. An
    exception `classify` does not recognise propagates unchanged.
    """
    decider = _Decider(policy, classify)
    # The first attempt goes out without the retry loop: setting up tenacity's costs ~0.2 ms
    # of CPU per request at hundreds in flight, and nearly every request succeeds at once.
    # A failure is handed to the loop as its own first attempt, so the retries, their waits
    # and the retry hooks are exactly what they would be had the loop sent it.
    try:
        return await _send(fn, decider, gate, tokens, sleep), decider.attempts
    except Exception as exc:
        if classify(exc) is None:
            raise
        first: Exception | None = exc
    # Imported here: only a request that failed needs the retry machinery.
    from tenacity import AsyncRetrying, stop_after_attempt

    failure: Exception | None = None
    try:
        async for attempt in AsyncRetrying(
            retry=decider.retry,
            stop=stop_after_attempt(policy.attempts),
            wait=decider.wait,
            sleep=_sleep,
            before_sleep=_report,
            reraise=True,
        ):
            with attempt:
                if first is not None:
                    replay, first = first, None
                    raise replay
                result = await _send(fn, decider, gate, tokens, sleep)
    except Exception as exc:
        read = classify(exc)
        if read is None:
            raise
        failure = _infra_error(read, provider, decider.attempts, policy)
        if secret and isinstance(failure, InfraError):
            failure = InfraError(redact(str(failure), secret))
    if failure is not None:
        # Raised outside the except block so the SDK error (whose text may echo part of the
        # key) is not even attached as context to what reaches logs and tracebacks.
        raise failure
    return result, decider.attempts
