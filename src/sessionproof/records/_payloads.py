"""Event payloads that are not conversation records: what the harness itself did.

Each model's JSON form is exactly the object the store has always held for its kind, so
stores written before these models existed read back unchanged.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._errors import ErrorClass, TerminationReason

Side = Literal["agent", "user"]
"""Whose tools a fault or a drift met: the agent's (the default) or the user's own."""


def _agent_side(value: Any) -> bool:
    # Left out of dumps on the agent's side, so every payload written before the user side
    # had tools dumps (and hashes) as it did, and old stores read as the agent's.
    return bool(value == "agent")


class AgentError(BaseModel):
    """Payload of `agent_error`: the model's reply itself was unusable (or never came)."""

    model_config = ConfigDict(extra="forbid")

    error_class: ErrorClass
    message: str
    """What was wrong, for a human reader."""


class FaultInjected(BaseModel):
    """Payload of `fault_injected`: a fault plan answered one attempt of a call with an error."""

    model_config = ConfigDict(extra="forbid")

    call_id: str
    """Id of the `ToolCall` the fault answered."""
    tool: str
    error_class: ErrorClass
    committed: bool
    """True when the call still ran on the domain before the error was returned (a write
    that happened although the agent was told it failed)."""
    retry_after_s: float | None = None
    """The Retry-After the fault's message announced, when its class carries one."""
    occurrence: int = 0
    """0-based count of earlier calls of this tool in the session (the seeded draw's key)."""
    attempt: int = 0
    """0-based attempt of this call id (a guard retry re-sends the same id)."""
    side: Side = Field(default="agent", exclude_if=_agent_side)
    """Whose tool the fault met: the agent's, or the user's own (`user_faults=`)."""


class ImplicitFaultKind(StrEnum):
    """A fault the agent cannot see as an error: the call answers normally and is wrong.

    The semantics of each kind (what it changes, where it applies) live in
    `sessionproof.taxonomy`; here is only the shared name.
    """

    stale_read = "stale_read"
    wrong_entity = "wrong_entity"
    silent_noop = "silent_noop"
    partial_result = "partial_result"
    corrupted_value = "corrupted_value"
    error_in_body = "error_in_body"
    duplicate_write = "duplicate_write"


UNCOMMITTED_KINDS: frozenset[ImplicitFaultKind] = frozenset(
    {ImplicitFaultKind.silent_noop, ImplicitFaultKind.error_in_body}
)
"""Implicit faults under which a write took no effect (it answered with a success, or a
success-shaped failure, and the domain kept its state); a `duplicate_write` whose `change`
says `second_ok` took effect twice."""


class ImplicitFault(BaseModel):
    """Payload of `implicit_fault`: a fault plan changed a call's effect or its success-shaped
    output without an error. Kept out of the agent's view: it sees only the tool result."""

    model_config = ConfigDict(extra="forbid")

    call_id: str
    """Id of the `ToolCall` the fault changed."""
    tool: str
    fault: ImplicitFaultKind
    side: Side = Field(default="agent", exclude_if=_agent_side)
    """Whose tool the fault changed: the agent's, or the user's own (`user_faults=`)."""
    permanent: bool = False
    """True when a repeated call meets the same fault; False when a repeat clears it."""
    change: dict[str, Any] = Field(default_factory=dict)
    """What was changed, for a human reader and for scoring (e.g. the field, its true and its
    served value; the entity served instead; how many list items were cut)."""
    occurrence: int = 0
    """0-based count of earlier calls of this tool in the session (the seeded draw's key)."""


class ProviderFaultKind(StrEnum):
    """A fault injected at the model boundary: between the agent's adapter and its provider.

    The values are the names a model-fault spec uses (`--model-faults 429:5%,bad_args:2%`).
    """

    rate_limited = "429"
    """The provider answered HTTP 429 (the request was not run)."""
    server_error = "5xx"
    """The provider answered HTTP 500, 502 or 503 (the request was not run)."""
    timeout = "timeout"
    """No answer within the client's timeout (the request was not run)."""
    cut_stream = "cut_stream"
    """The answer was produced and cut mid-body: the connection closed before its end."""
    bad_args = "bad_args"
    """The answer arrived whole, but a tool call's arguments are truncated or invalid JSON:
    the model's own malformed output."""


class ProviderFault(BaseModel):
    """Payload of `provider_fault`: one fault injected into the agent's own provider requests.
    Counted apart from tool faults; the agent sees only what its adapter makes of it."""

    model_config = ConfigDict(extra="forbid")

    model_call: int
    """0-based index of the agent's model call (decision) in the session."""
    attempt: int
    """0-based attempt of that call (each transport retry, 429 waits included, is one)."""
    fault: ProviderFaultKind
    absorbed: bool
    """True when the transport's retries absorbed the fault (the call still got its reply);
    False when it surfaced: retries ran out (the session ends as infra_error) or, for
    `bad_args`, the malformed reply reached the agent."""
    detail: str = ""
    """What exactly was served (e.g. `HTTP 503`, `truncated`), for a human reader."""


class DriftApplied(BaseModel):
    """Payload of `drift_applied`: the tool list the agent sees changed from this turn on."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    """The drift kind (`rename_param`, `rename_tool`, ...), as the arm names it."""
    tool: str | None
    """The tool that changed; None when the kind applied to no tool."""
    detail: str
    turn: int
    """0-based user turn the drift starts at."""
    applied: bool
    """False when no tool qualified, so nothing changed."""
    new_tool: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """The tool's new name, only when the drift renamed it (absent from the JSON otherwise,
    as it always was)."""
    side: Side = Field(default="agent", exclude_if=_agent_side)
    """Whose tool list drifted: the agent's, or the user's own (`user_drift=`)."""


class Decision(StrEnum):
    """What the guard did with one call (or one attempt of it)."""

    pass_ = "pass"
    """Handed the tool's answer (a success, or an error the agent must read) through."""
    retry = "retry"
    """Re-sends the call after `wait_s` (a transient failure, safe to replay)."""
    repair = "repair"
    """Did not send the call: the arguments break the schema; answered with repair hints."""
    escalate = "escalate"
    """A failure retrying cannot fix (expired credentials, a refusal): told the agent to
    inform the user or hand over, and called the escalation hook."""
    breaker_open = "breaker_open"
    """Did not send the call: the tool's circuit breaker is open."""
    no_retry_write = "no_retry_write"
    """Did not re-send a write whose outcome is unknown; told the agent to check first."""
    output_invalid = "output_invalid"
    """The tool answered, but not in the shape its output schema promises (or it broke a
    declared output invariant)."""
    verify_failed = "verify_failed"
    """A write reported success, and the configured read-back showed it did not take
    effect; the agent was told (the write is re-sent only when declared idempotent)."""
    precondition_failed = "precondition_failed"
    """Did not send a write: its configured precondition read did not hold."""
    duplicate_blocked = "duplicate_blocked"
    """Did not apply a write a second time: the same idempotency key (or the same
    arguments) was already applied in this session; the earlier result was handed back."""


class GuardDecision(BaseModel):
    """One guard decision, as reported to `on_decision` and as a `guard_decision` payload."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    decision: Decision
    call_id: str | None = None
    error_class: ErrorClass | None = None
    """The class of the failure the decision is about (None for a clean pass)."""
    attempt: int = 1
    """1-based attempt the decision follows (0: decided before any attempt)."""
    wait_s: float = 0.0
    """Backoff before the next attempt (retry decisions only)."""
    detail: str = ""
    injected: bool = False
    """The failure decided on was injected by a fault plan (harness only)."""


class RecordedDivergence(BaseModel):
    """Payload of `recorded_divergence`: a call to recorded responses that no recorded call
    matches (same tool, arguments equal after normalisation), so it got no recorded answer."""

    model_config = ConfigDict(extra="forbid")

    call_id: str
    tool: str
    arguments: dict[str, Any] | None
    """The call's parsed arguments (None when they did not parse)."""
    reason: str
    """`unknown_tool` (the transcript never called it), `arguments` (it did, never with these
    arguments) or `unparsed` (the arguments are not a JSON object)."""
    detail: str = ""


class Termination(BaseModel):
    """Payload of `end`: why the session ended."""

    model_config = ConfigDict(extra="forbid")

    termination: TerminationReason
    detail: str = ""
