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

Opt-in verification (`VerifyConfig`, applied by `VerifiedGuard` around a `Guard` or by
`verify_source` around a tool source, the `verify=PATH` arm part): read a write back to
confirm it committed, check a precondition before a write, check declared output invariants,
and never apply the same idempotency key twice.
"""

from ._breaker import CircuitBreaker
from ._clock import VirtualClock
from ._core import Guard
from ._harness import guard_source
from ._records import GuardConfig, GuardDecision, GuardResult
from ._verify import VerifyConfig
from ._verify_source import VerifiedGuard, verify_source

__all__ = [
    "CircuitBreaker",
    "Guard",
    "GuardConfig",
    "GuardDecision",
    "GuardResult",
    "VerifiedGuard",
    "VerifyConfig",
    "VirtualClock",
    "guard_source",
    "verify_source",
]
