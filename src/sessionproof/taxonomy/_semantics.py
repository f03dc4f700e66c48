"""The error taxonomy as code: what each `ErrorClass` means for whoever handles it.

Three questions decide what to do with a failed tool call, and each class answers them once,
here, for the fault injector, the guard and the recovery score alike:

- *Is it worth trying again?* (`retryable`) — a transient infrastructure failure is; a wrong
  argument, a missing record or a refusal is not: the same call would fail the same way.
- *Who acts next?* (`action`) — `retry` (the harness or the guard may re-send the call),
  `inform` (the agent must read the error and change course: fix the arguments, tell the user)
  or `escalate` (nothing the agent can do fixes it: a human or the user must step in).
- *Could the call already have taken effect?* (`outcome_unknown`) — a 429 or a 503 is refused
  before the operation runs, so even a payment may be re-sent; after a timeout or a 500 the
  write may well have landed, so re-sending a non-idempotent write could do it twice. This is
  the replay-safety rule, applied by `may_replay`.
"""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType

from pydantic import BaseModel, ConfigDict

from ..records import ErrorClass


class ErrorAction(StrEnum):
    """Who handles a failure of some class next."""

    retry = "retry"
    """Re-sending the same call may succeed (subject to replay safety)."""
    inform = "inform"
    """The agent must read the error and change course (fix the call, tell the user)."""
    escalate = "escalate"
    """Out of the agent's reach: tell the user or hand over to a human; never loop."""


class ClassSemantics(BaseModel):
    """How one error class is handled: retry, inform or escalate, and replay safety."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    error_class: ErrorClass
    retryable: bool
    """Re-sending the identical call has a fair chance of succeeding."""
    action: ErrorAction
    outcome_unknown: bool
    """The failed call may already have taken effect, so a non-idempotent write must not be
    re-sent blindly. False only when the failure is known to happen before any effect."""
    trips_breaker: bool
    """Counts as a sign the tool itself is unhealthy (feeds the guard's circuit breaker).
    Argument and business errors do not: the tool answered, the request was wrong."""
    default_retry_after_s: float | None = None
    """Wait the service asks for when it says nothing more precise (rate limits)."""
    message: str
    """What an injected fault of this class shows the agent. Placeholders: `{tool}`,
    `{retry_after}`. Worded like the real failure, and classifiable back to this class."""


def _sem(
    cls: ErrorClass,
    *,
    retryable: bool,
    action: ErrorAction,
    outcome_unknown: bool,
    trips_breaker: bool = False,
    retry_after: float | None = None,
    message: str,
) -> ClassSemantics:
    return ClassSemantics(
        error_class=cls,
        retryable=retryable,
        action=action,
        outcome_unknown=outcome_unknown,
        trips_breaker=trips_breaker,
        default_retry_after_s=retry_after,
        message=message,
    )


_R, _I, _E = ErrorAction.retry, ErrorAction.inform, ErrorAction.escalate

DEFAULT_RETRY_AFTER_S = 2.0
"""Retry-After an injected `rate_limited` fault announces: short enough that a guard honours
it, long enough that an agent hammering the tool right away is visibly wrong."""

_TABLE: dict[ErrorClass, ClassSemantics] = {
    s.error_class: s
    for s in (
        _sem(
            ErrorClass.timeout,
            retryable=True,
            action=_R,
            outcome_unknown=True,
            trips_breaker=True,
            message="request to {tool} timed out after 30 seconds; "
            "the operation may or may not have completed.",
        ),
        _sem(
            ErrorClass.rate_limited,
            retryable=True,
            action=_R,
            outcome_unknown=False,
            retry_after=DEFAULT_RETRY_AFTER_S,
            message="429 Too Many Requests: rate limit exceeded for {tool}. "
            "Retry after {retry_after} seconds.",
        ),
        _sem(
            ErrorClass.server_error,
            retryable=True,
            action=_R,
            outcome_unknown=True,
            trips_breaker=True,
            message="500 Internal Server Error: the {tool} backend failed to process the request.",
        ),
        _sem(
            ErrorClass.unavailable,
            retryable=True,
            action=_R,
            outcome_unknown=False,
            trips_breaker=True,
            message="503 Service Unavailable: {tool} is temporarily unavailable, "
            "please try again shortly.",
        ),
        _sem(
            ErrorClass.auth_expired,
            retryable=False,
            action=_E,
            outcome_unknown=False,
            message="401 Unauthorized: the access token used for {tool} has expired.",
        ),
        _sem(
            ErrorClass.not_found,
            retryable=False,
            action=_I,
            outcome_unknown=False,
            message="404 Not Found: {tool} found no record matching the request.",
        ),
        _sem(
            ErrorClass.validation_error,
            retryable=False,
            action=_I,
            outcome_unknown=False,
            message="422 Unprocessable Entity: {tool} rejected the request as invalid.",
        ),
        _sem(
            ErrorClass.malformed_output,
            retryable=True,
            action=_R,
            outcome_unknown=True,
            trips_breaker=True,
            message="malformed response from {tool}: could not parse the response body "
            "(invalid JSON at position 57).",
        ),
        _sem(
            ErrorClass.truncated_output,
            retryable=False,
            action=_I,
            outcome_unknown=True,
            message="the response from {tool} was truncated before it was complete; "
            "narrow the request to get a smaller answer.",
        ),
        _sem(
            ErrorClass.empty_result,
            retryable=False,
            action=_I,
            outcome_unknown=True,
            message="{tool} returned an empty response (no content).",
        ),
        _sem(
            ErrorClass.schema_mismatch,
            retryable=False,
            action=_I,
            outcome_unknown=True,
            message="the response from {tool} does not match its documented schema "
            "(unexpected shape).",
        ),
        _sem(
            ErrorClass.policy_refusal,
            retryable=False,
            action=_E,
            outcome_unknown=False,
            message="403 Forbidden: {tool} refused the request: it is not allowed by policy.",
        ),
        _sem(
            ErrorClass.unknown,
            retryable=False,
            action=_I,
            outcome_unknown=True,
            message="{tool} failed with an unexpected error.",
        ),
    )
}

TAXONOMY: MappingProxyType[ErrorClass, ClassSemantics] = MappingProxyType(_TABLE)
"""Every error class and its semantics (read-only)."""


def semantics(error_class: ErrorClass | str) -> ClassSemantics:
    """The semantics of one class; an unrecognised name is treated as `unknown`."""
    try:
        return _TABLE[ErrorClass(error_class)]
    except ValueError:
        return _TABLE[ErrorClass.unknown]


def may_replay(
    error_class: ErrorClass | str,
    *,
    write: bool,
    idempotent: bool = False,
    has_idempotency_key: bool = False,
) -> bool:
    """Whether a call that failed with `error_class` may be re-sent automatically.

    A read may always be re-sent. A write may be re-sent when it is idempotent, when the call
    carries an idempotency key (the service then de-duplicates), or when the failure is known
    to happen before any effect (`outcome_unknown` is False: 429, 503, 401...). Whether the
    class is worth retrying at all is a separate question (`retryable`).
    """
    if not write or idempotent or has_idempotency_key:
        return True
    return not semantics(error_class).outcome_unknown


def fault_message(
    error_class: ErrorClass | str, tool: str, retry_after_s: float | None = None
) -> str:
    """The realistic error text (without the "Error: " prefix) a fault of this class shows."""
    sem = semantics(error_class)
    wait = retry_after_s if retry_after_s is not None else sem.default_retry_after_s
    shown = "a few" if wait is None else f"{wait:g}"
    return sem.message.format(tool=tool, retry_after=shown)
