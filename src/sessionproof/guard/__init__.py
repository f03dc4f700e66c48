"""The production guard: validate, classify, retry, break and escalate around tool calls.

Wrapping your own production tools takes five lines::

    from sessionproof.guard import Guard

    guard = Guard(on_escalate=lambda e: print("page the on-call:", e.tool, e.error_class))
    guard.wrap(get_order, schema=GET_ORDER_SCHEMA, output_schema=ORDER_SCHEMA)
    guard.wrap(cancel_order, schema=CANCEL_SCHEMA, write=True, idempotency_key="request_id")
    result = await guard.call(tool_call.name, tool_call.arguments)  # JSON text or a dict

`result.output` is what goes back to the model as the tool message: the tool's answer, or an
actionable error — repair hints for arguments that break the schema (nothing is sent), the
error after retries of transient failures (Retry-After honoured, exponential backoff with
jitter otherwise), "check before retrying" for a write whose outcome is unknown, "tell the
user or transfer" for failures no retry fixes. `result.decisions` lists what the guard did
and why; pass `on_decision=` to log or trace every decision as it happens.

In the harness, `guard_source` wraps a tool source (`sessionproof.domains.ToolSource`) the
same way (sessionproof arms with `guard`); a `VirtualClock` makes every wait instant and
reproducible.
"""

from ._breaker import BreakerState, CircuitBreaker
from ._calls import unknown_tool_hint, unknown_tool_text
from ._clock import Clock, SystemClock, VirtualClock
from ._core import Guard, GuardedTool, ToolFn
from ._harness import GuardedSource, guard_source
from ._hints import RepairHint, SchemaCheck, hints_for, json_type
from ._records import Decision, Escalation, GuardConfig, GuardDecision, GuardResult

__all__ = [
    "BreakerState",
    "CircuitBreaker",
    "Clock",
    "Decision",
    "Escalation",
    "Guard",
    "GuardConfig",
    "GuardDecision",
    "GuardResult",
    "GuardedSource",
    "GuardedTool",
    "RepairHint",
    "SchemaCheck",
    "SystemClock",
    "ToolFn",
    "VirtualClock",
    "guard_source",
    "hints_for",
    "json_type",
    "unknown_tool_hint",
    "unknown_tool_text",
]
