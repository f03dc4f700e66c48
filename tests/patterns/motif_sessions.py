"""Hand-built sessions for the motif tests: a tiny script of turns becomes a real `Session`."""

from __future__ import annotations

import itertools
from typing import Any

from sessionproof.records import (
    AssistantMessageEvent,
    ErrorClass,
    Message,
    Outcome,
    Session,
    TerminationReason,
    ToolCall,
    ToolCallEvent,
    ToolResult,
    ToolResultEvent,
    UserMessageEvent,
)
from sessionproof.records._internal import ImplicitFault, ImplicitFaultEvent, ImplicitFaultKind

_ids = itertools.count()


def user(text: str) -> tuple[str, Any]:
    """A user message."""
    return ("user", text)


def agent(text: str) -> tuple[str, Any]:
    """An agent text message."""
    return ("agent", text)


def call(
    name: str, args: dict[str, Any], output: str = "{}", error: ErrorClass | None = None
) -> tuple[str, Any]:
    """A tool call with its result."""
    return ("call", (name, args, output, error))


def implicit() -> tuple[str, Any]:
    """An implicit fault on the call just before."""
    return ("implicit", None)


def session(
    *turns: tuple[str, Any],
    verdict: bool | None = True,
    scenario: str = "s",
    arm: str = "baseline",
    termination: TerminationReason = TerminationReason.user_stop,
) -> Session:
    """A `Session` whose events are `turns`, in order."""
    sid = f"m{next(_ids)}"
    events: list[Any] = []
    last_call = ""

    def base(step: int) -> dict[str, Any]:
        return dict(
            run_id="r", session_id=sid, seq=len(events), turn=0, step=step, t_wall=0.0, t_mono=0.0
        )

    for step, (kind, value) in enumerate(turns):
        if kind == "user":
            events.append(
                UserMessageEvent(**base(step), payload=Message(role="user", content=value))
            )
        elif kind == "agent":
            events.append(
                AssistantMessageEvent(
                    **base(step), payload=Message(role="assistant", content=value)
                )
            )
        elif kind == "call":
            name, args, output, error = value
            last_call = f"c{len(events)}"
            tc = ToolCall(id=last_call, name=name, arguments=args)
            events.append(
                AssistantMessageEvent(
                    **base(step), payload=Message(role="assistant", content=None, tool_calls=[tc])
                )
            )
            events.append(ToolCallEvent(**base(step), payload=tc))
            result = ToolResult(
                call_id=last_call,
                name=name,
                output=output,
                error_class=error,
                error=None if error is None else output,
            )
            events.append(ToolResultEvent(**base(step), payload=result))
        elif kind == "implicit":
            fault = ImplicitFault(call_id=last_call, tool="t", fault=ImplicitFaultKind.stale_read)
            events.append(ImplicitFaultEvent(**base(step), payload=fault))
    outcome = None if verdict is None else Outcome(success=verdict, reward=float(verdict))
    return Session(
        run_id="r",
        session_id=sid,
        scenario_id=scenario,
        trial=0,
        arm=arm,
        events=events,
        termination=termination,
        outcome=outcome,
    )
