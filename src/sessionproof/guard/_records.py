"""What the guard reports: its settings, each decision, escalations, and call results."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..records import ErrorClass

# A guard decision is also a trace event's payload, so its record lives in `records`;
# re-exported here, where the guard's users have always found it.
from ..records._internal import Decision as Decision
from ..records._internal import GuardDecision as GuardDecision
from ._hints import RepairHint


class Escalation(BaseModel):
    """What the escalation hook receives: a failure that needs a human or the user."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    error_class: ErrorClass
    message: str
    """The tool's error text."""
    call_id: str | None = None


class GuardResult(BaseModel):
    """The outcome of one guarded call: what to hand back to the model, and why."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    tool: str
    ok: bool
    output: str
    """The text for the model: the tool's answer, or an actionable error message."""
    value: Any = None
    """What the tool returned, on success."""
    error_class: ErrorClass | None = None
    decision: Decision
    """The final decision."""
    attempts: int = 0
    """How many times the tool was actually called (0: the guard answered alone)."""
    hints: list[RepairHint] = Field(default_factory=list)
    """Repair hints, when the arguments were rejected."""
    decisions: list[GuardDecision] = Field(default_factory=list)
    """Every decision taken for this call, retries included, in order."""


class GuardConfig(BaseModel):
    """Retry, backoff and breaker settings. Defaults suit a chat agent calling web APIs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_attempts: int = Field(default=4, ge=1)
    """Calls per request, the first included."""
    wait_initial_s: float = Field(default=0.5, ge=0)
    """Backoff before the first retry (before jitter)."""
    wait_exp_base: float = Field(default=2.0, ge=1)
    """Each further backoff is this many times longer."""
    wait_max_s: float = Field(default=10.0, ge=0)
    """No single backoff is longer (Retry-After excepted, see `max_retry_after_s`)."""
    wait_jitter_s: float = Field(default=0.5, ge=0)
    """Up to this much random time is added to each backoff, so clients spread out."""
    max_retry_after_s: float = Field(default=60.0, ge=0)
    """A Retry-After longer than this is not waited out: the agent is told instead."""
    max_total_wait_s: float = Field(default=90.0, ge=0)
    """Waiting stops once backoffs for one call would add up to more than this."""
    breaker_threshold: int = Field(default=5, ge=1)
    """Consecutive unhealthy outcomes that open a tool's circuit breaker."""
    breaker_cooldown_s: float = Field(default=30.0, ge=0)
    """How long an open breaker fails fast before letting one probe call through."""
    timeout_s: float | None = Field(default=30.0, gt=0)
    """How long one call of a wrapped tool may take before it counts as a `timeout`
    (retried for reads, never blindly re-sent for writes); None: no limit. The default
    applies to async tools; a sync tool is timed (on a worker thread) only when this is set
    explicitly or `Guard.wrap(timeout_s=...)` asks. Calls inside the harness
    (`guard_source`) are not timed: their time is virtual."""
    validate_arguments: bool = True
    """Check arguments against the tool's schema before calling."""
    validate_outputs: bool = True
    """Check answers against the tool's output schema, when it has one."""
