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

Implicit faults (`ImplicitFaultKind`) answer other questions, in `IMPLICIT_TAXONOMY`: the call
looks fine and is wrong, so what each kind changes, on which calls (reads or writes), what a
repeat of the same call meets, and where it cannot apply and why.
"""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType

from pydantic import BaseModel, ConfigDict

from ..records import ErrorClass
from ..records._internal import ImplicitFaultKind


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


class CallNature(StrEnum):
    """Which calls an implicit fault kind applies to."""

    read = "read"
    """Calls of tools that do not change state (`ToolSpec.write` False in a listing that
    marks writes)."""
    write = "write"
    """Calls of tools that change state (`ToolSpec.write` True)."""
    any = "any"
    """Every call."""


class ImplicitSemantics(BaseModel):
    """What one implicit fault kind does: the agent sees a success, and it is wrong."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ImplicitFaultKind
    applies_to: CallNature
    changes: str
    """What the agent is served instead of the truth, and what happens to the state."""
    forwarded: bool
    """True when the call still reaches the tool source (a write then commits, unless the
    kind says otherwise)."""
    needs: str
    """What a call must offer for the kind to apply to it (a drawn fault that finds nothing
    to change leaves that call as it was, and no event is written)."""
    transient: str
    """What a repeat of the identical call meets when the fault is transient (the default)."""
    permanent: str
    """What every repeat meets when the fault is permanent (`KIND:permanent:RATE`)."""
    cannot_apply: str
    """The tool sources or tools where the kind cannot apply, and why."""


_TRANSIENT = "served correctly: the repeat reaches the source and gets the true answer"

_IMPLICIT: dict[ImplicitFaultKind, ImplicitSemantics] = {
    s.kind: s
    for s in (
        ImplicitSemantics(
            kind=ImplicitFaultKind.stale_read,
            applies_to=CallNature.read,
            changes="the read is answered with the output an identical read got before the "
            "session's last write to the same entity (a write sharing an argument value with "
            "the read; any write when the read has no arguments)",
            forwarded=True,
            needs="an earlier successful identical read, a successful write to the entity "
            "after it, and an output that differs from the fresh one",
            transient=_TRANSIENT,
            permanent="the same old output, as long as no newer read before a write exists",
            cannot_apply="fixtures: they answer the same whatever was written, so no read "
            "can be stale (an arm asking for it on a fixtures domain is refused at load)",
        ),
        ImplicitSemantics(
            kind=ImplicitFaultKind.wrong_entity,
            applies_to=CallNature.read,
            changes="the read is answered with another record of the same type: the output "
            "of the same tool for other arguments seen earlier in the session, else (typed "
            "toolkits and stateful schema tools) the tool's output for another key of the "
            "table that holds the requested id",
            forwarded=True,
            needs="another entity: an earlier call of the tool with other arguments, or a "
            "sibling key in the domain's tables",
            transient=_TRANSIENT,
            permanent="the same other entity again",
            cannot_apply="on black-box sources (MCP, OpenAPI, fixtures) only entities the "
            "session already read can be served: their tables cannot be listed",
        ),
        ImplicitSemantics(
            kind=ImplicitFaultKind.silent_noop,
            applies_to=CallNature.write,
            changes="the write reports success and commits nothing: where the domain's state "
            "can be snapshotted (a typed DB: typed toolkits, stateful schema tools) the call "
            "runs, its own success output is served and the state is restored; on a "
            "black-box source (MCP, OpenAPI, fixtures) the call is not forwarded and is "
            "answered with the output of the tool's last successful call in the session",
            forwarded=True,
            needs="a write that succeeds (a failing write is left as it is); on a black-box "
            "source, an earlier successful call of the same tool",
            transient="the repeat is forwarded and commits",
            permanent="every repeat reports success and commits nothing",
            cannot_apply="a source that marks no tool as a write (an MCP server, an OpenAI "
            "tools list) says nothing of which calls write: the plan must name the write "
            "tool with @TOOL, or the run stops at load with an error",
        ),
        ImplicitSemantics(
            kind=ImplicitFaultKind.partial_result,
            applies_to=CallNature.read,
            changes="the first list of two or more items in the JSON output is cut to a "
            "seeded shorter length (at least one item); the output stays valid JSON",
            forwarded=True,
            needs="a JSON output holding a list of at least two items",
            transient=_TRANSIENT,
            permanent="the same cut on every repeat",
            cannot_apply="outputs that are not JSON or hold no list (plain text, scalars)",
        ),
        ImplicitSemantics(
            kind=ImplicitFaultKind.corrupted_value,
            applies_to=CallNature.read,
            changes="one seeded field of the JSON output is perturbed within its type and "
            "range: an integer moved by a few units (never below zero if it was not), a "
            "decimal by 5-30% at its precision, a string of digits or an id one digit "
            "changed",
            forwarded=True,
            needs="a JSON output with a number or a string containing a digit",
            transient=_TRANSIENT,
            permanent="the same field, perturbed the same way, on every repeat",
            cannot_apply="outputs that are not JSON or hold no number or digit",
        ),
        ImplicitSemantics(
            kind=ImplicitFaultKind.error_in_body,
            applies_to=CallNature.any,
            changes="the call is not forwarded (a write does not commit) and is answered "
            'with a success-shaped body that says it failed, {"status": "error", '
            '"message": ...}, with no error class: only its content tells',
            forwarded=False,
            needs="nothing: any call of a listed tool with parsed arguments",
            transient=_TRANSIENT,
            permanent="every repeat gets the same failure body (and a write never commits)",
            cannot_apply="nowhere",
        ),
        ImplicitSemantics(
            kind=ImplicitFaultKind.duplicate_write,
            applies_to=CallNature.write,
            changes="a successful write is sent to the source a second time with the same "
            "arguments; the agent sees the first answer",
            forwarded=True,
            needs="a write that succeeds",
            transient="the repeat is forwarded once",
            permanent="every repeat is applied twice",
            cannot_apply="as silent_noop: a source that marks no tool as a write needs the "
            "write tool named with @TOOL",
        ),
    )
}

IMPLICIT_TAXONOMY: MappingProxyType[ImplicitFaultKind, ImplicitSemantics] = MappingProxyType(
    _IMPLICIT
)
"""Every implicit fault kind and its semantics (read-only)."""


def implicit_semantics(kind: ImplicitFaultKind | str) -> ImplicitSemantics:
    """The semantics of one implicit fault kind; raises ValueError for an unknown name."""
    return _IMPLICIT[ImplicitFaultKind(kind)]
