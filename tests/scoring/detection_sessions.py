"""Sessions built event by event from `sessionproof.records`, carrying fault events, for the
detection and recovery tests."""

from __future__ import annotations

from typing import Any

from sessionproof.records import (
    CriterionResult,
    EventKind,
    Message,
    Outcome,
    Session,
    TerminationReason,
    ToolCall,
    ToolResult,
)
from sessionproof.records._internal import make_event

Step = tuple[EventKind, dict[str, Any]]


def call(cid: str, name: str, **arguments: Any) -> list[Step]:
    """A tool call and its (successful-looking) result."""
    c = ToolCall(id=cid, name=name, arguments=arguments)
    r = ToolResult(call_id=cid, name=name, output='{"status": "ok"}')
    return [
        (EventKind.assistant_message, Message.assistant(None, [c]).model_dump(mode="json")),
        (EventKind.tool_call, c.model_dump(mode="json")),
        (EventKind.tool_result, r.model_dump(mode="json")),
    ]


def implicit(cid: str, tool: str, fault: str, *, permanent: bool = False) -> list[Step]:
    """An `implicit_fault` event on call `cid`."""
    payload = {"call_id": cid, "tool": tool, "fault": fault, "permanent": permanent}
    return [(EventKind.implicit_fault, payload)]


def explicit(cid: str, tool: str, error_class: str = "timeout") -> list[Step]:
    """A `fault_injected` event on call `cid`."""
    payload = {"call_id": cid, "tool": tool, "error_class": error_class, "committed": False}
    return [(EventKind.fault_injected, payload)]


def faulted_call(cid: str, name: str, fault: list[Step], **arguments: Any) -> list[Step]:
    """A call whose fault event comes between the call and its result, as injectors emit."""
    steps = call(cid, name, **arguments)
    return steps[:2] + fault + steps[2:]


def say(text: str) -> list[Step]:
    """An assistant message with text."""
    return [(EventKind.assistant_message, Message.assistant(text).model_dump(mode="json"))]


def guard(cid: str, tool: str, decision: str) -> list[Step]:
    """A guard decision about call `cid`."""
    payload = {"call_id": cid, "tool": tool, "decision": decision}
    return [(EventKind.guard_decision, payload)]


def build(
    steps: list[Step],
    *,
    success: bool | None = True,
    termination: TerminationReason = TerminationReason.user_stop,
    scenario_id: str = "s1",
    trial: int = 0,
) -> Session:
    """A finished session of `steps`; `success` None: no verdict."""
    sid = f"{scenario_id}.t{trial}"
    raw = [(EventKind.user_message, Message.user("hello").model_dump(mode="json")), *steps]
    raw.append((EventKind.end, {"termination": termination.value, "detail": ""}))
    outcome = None
    if success is not None:
        outcome = Outcome(
            success=success,
            reward=float(success),
            criteria=[CriterionResult(name="db", passed=success, evidence="hash")],
        )
        raw.append((EventKind.verdict, outcome.model_dump(mode="json")))
    events = [
        make_event(
            kind,
            payload,
            run_id="r",
            session_id=sid,
            seq=i,
            turn=0,
            step=i,
            t_wall=1_764_000_000.0 + i,
            t_mono=1000.0 + i,
        )
        for i, (kind, payload) in enumerate(raw)
    ]
    return Session(
        run_id="r",
        session_id=sid,
        scenario_id=scenario_id,
        trial=trial,
        arm="a",
        model="m",
        events=events,
        termination=termination,
        termination_detail="",
        outcome=outcome,
        started_at=1_764_000_000.0,
        ended_at=1_764_000_000.0 + len(events),
    )
