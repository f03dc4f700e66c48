"""The tool boundary: where a tool call meets the domain, and where faults, drift and the
guard plug in (as wrappers around the base executor)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..domains import Domain, ToolSpec, render_output
from ..errors import ToolError
from ..records import ErrorClass, EventKind, EventPayload, ToolCall, ToolResult
from ..taxonomy import classify_text

MAX_TOOL_OUTPUT_CHARS = 200_000
"""Tool output beyond this is cut and classified `truncated_output` (a 5 MB blob would drown
the context and the store)."""

Emit = Callable[[EventKind, EventPayload], None]
"""Appends one event: its kind and its typed payload (the kind's payload model)."""


@dataclass
class CallContext:
    """Where a tool call happens; wrappers use it for seeding and for emitting events."""

    run_id: str
    session_id: str
    scenario_id: str
    trial: int
    arm: str
    turn: int
    step: int
    seed: int
    domain: Domain[Any]
    emit: Emit = field(repr=False)
    """Append an event (fault_injected, drift_applied, guard_decision...) to the trace."""


ToolBoundary = Callable[[ToolCall, CallContext], Awaitable[ToolResult]]
"""Executes one call. The base executor talks to the domain; wrappers add behaviour."""


class SessionHooks(Protocol):
    """Per-session condition behaviour: what the agent sees, and how calls are executed."""

    def tools(self, tools: list[ToolSpec], turn: int, emit: Emit) -> list[ToolSpec]:
        """The tool list the agent sees at `turn` (schema drift changes it)."""
        ...

    def wrap(self, boundary: ToolBoundary) -> ToolBoundary:
        """Wrap the executor (faults inside, guard outside)."""
        ...


class NoHooks:
    """The baseline condition: tools as defined, calls executed directly."""

    def tools(self, tools: list[ToolSpec], turn: int, emit: Emit) -> list[ToolSpec]:
        """Tools unchanged."""
        return tools

    def wrap(self, boundary: ToolBoundary) -> ToolBoundary:
        """Executor unchanged."""
        return boundary


def _error_result(call: ToolCall, cls: ErrorClass, text: str, start: float) -> ToolResult:
    return ToolResult(
        call_id=call.id,
        name=call.name,
        output=f"Error: {text}",
        error_class=cls,
        error=text,
        latency_s=time.perf_counter() - start,
    )


async def execute_on_domain(call: ToolCall, ctx: CallContext) -> ToolResult:
    """Run one call on the domain; every failure becomes a classified result, never a crash."""
    start = time.perf_counter()
    if call.arguments is None:
        why = call.parse_error or "arguments are not a JSON object"
        return _error_result(
            call, ErrorClass.validation_error, f"could not parse arguments: {why}", start
        )
    try:
        value = ctx.domain.call(call.name, call.arguments)
    except ToolError as exc:
        try:
            cls = ErrorClass(exc.error_class)
        except ValueError:
            cls = ErrorClass.unknown
        return _error_result(call, cls, str(exc), start)
    except Exception as exc:  # a tool that raises must not end the run
        msg = str(exc) or type(exc).__name__
        return _error_result(call, classify_text(msg, ErrorClass.validation_error), msg, start)
    try:
        output = render_output(value)
    except (TypeError, ValueError) as exc:
        return _error_result(
            call, ErrorClass.malformed_output, f"unserialisable result: {exc}", start
        )
    if len(output) > MAX_TOOL_OUTPUT_CHARS:
        size = len(output)
        return ToolResult(
            call_id=call.id,
            name=call.name,
            output=output[:MAX_TOOL_OUTPUT_CHARS] + f"\n[truncated: {size} characters]",
            error_class=ErrorClass.truncated_output,
            error=f"tool output of {size} characters cut to {MAX_TOOL_OUTPUT_CHARS}",
            latency_s=time.perf_counter() - start,
        )
    return ToolResult(
        call_id=call.id, name=call.name, output=output, latency_s=time.perf_counter() - start
    )
