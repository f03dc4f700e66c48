"""Synthetic sessions built straight from `sessionproof.records`, for the store's tests.

Also imported by the writer subprocess of the durability test, so it depends on nothing but
the package itself.
"""

from __future__ import annotations

from typing import Any

from sessionproof.records import (
    CriterionResult,
    ErrorClass,
    EventKind,
    Message,
    Outcome,
    Session,
    TerminationReason,
    ToolCall,
    ToolResult,
)
from sessionproof.records._internal import ModelCall, Usage, make_event
from sessionproof.store import RunManifest


def manifest(run_id: str, scenario_ids: list[str], trials: int = 1, **extra: Any) -> RunManifest:
    """A run manifest for `scenario_ids`."""
    return RunManifest(
        run_id=run_id,
        suite="demo",
        suite_hash="h" * 16,
        model="openai:gpt-4o-mini",
        scenario_ids=scenario_ids,
        trials=trials,
        **extra,
    )


def _turn_events(
    turn: int, call_no: int, fail: bool
) -> list[tuple[int, EventKind, dict[str, Any]]]:
    """(step, kind, payload) of one user turn: a lookup that may fail, a retry, a reply."""
    call = ToolCall(id=f"c{call_no}", name="get_order", arguments={"order_id": f"10{turn}"})
    usage = Usage(input_tokens=100 + turn, output_tokens=20 + turn, cached_tokens=turn)
    model_call = ModelCall(provider="openai", model="gpt-4o-mini", usage=usage, latency_s=0.25)
    ok = ToolResult(call_id=call.id, name=call.name, output='{"status": "delivered"}')
    out: list[tuple[int, EventKind, dict[str, Any]]] = [
        (
            0,
            EventKind.user_message,
            Message.user(f"where is order 10{turn}?").model_dump(mode="json"),
        ),
        (0, EventKind.model_call, model_call.model_dump(mode="json")),
        (0, EventKind.assistant_message, Message.assistant(None, [call]).model_dump(mode="json")),
        (0, EventKind.tool_call, call.model_dump(mode="json")),
    ]
    if fail:
        bad = ToolResult(
            call_id=call.id,
            name=call.name,
            output="timed out",
            error_class=ErrorClass.timeout,
            error="tool timed out after 5s",
            injected=True,
            latency_s=5.0,
        )
        own = ToolCall(id=f"u{call_no}", name="toggle_data", arguments={})
        out += [
            # The user's own tool (dual control), faulted on the user's side.
            (0, EventKind.user_tool_call, own.model_dump(mode="json")),
            (
                0,
                EventKind.fault_injected,
                {
                    "call_id": own.id,
                    "tool": own.name,
                    "error_class": "timeout",
                    "committed": False,
                    "side": "user",
                },
            ),
            (
                0,
                EventKind.user_tool_result,
                bad.model_copy(update={"call_id": own.id, "name": own.name}).model_dump(
                    mode="json"
                ),
            ),
            (
                0,
                EventKind.fault_injected,
                {
                    "call_id": call.id,
                    "tool": call.name,
                    "error_class": "timeout",
                    "committed": False,
                },
            ),
            (0, EventKind.tool_result, bad.model_dump(mode="json")),
            (
                0,
                EventKind.implicit_fault,
                {
                    "call_id": call.id,
                    "tool": call.name,
                    "fault": "stale_read",
                    "permanent": False,
                    "change": {"field": "status", "true": "delivered", "served": "pending"},
                },
            ),
            (
                0,
                EventKind.provider_fault,
                {
                    "model_call": 0,
                    "attempt": 1,
                    "fault": "5xx",
                    "absorbed": True,
                    "detail": "HTTP 503",
                },
            ),
            (
                0,
                EventKind.guard_decision,
                {
                    "call_id": call.id,
                    "tool": call.name,
                    "decision": "retry",
                    "error_class": "timeout",
                    "attempt": 1,
                    "wait_s": 0.5,
                    "detail": "",
                },
            ),
            (
                0,
                EventKind.recorded_divergence,
                {
                    "call_id": call.id,
                    "tool": call.name,
                    "arguments": call.arguments,
                    "reason": "arguments",
                    "detail": "the transcript never called it with these arguments",
                },
            ),
        ]
    out += [
        (1, EventKind.tool_result, ok.model_dump(mode="json")),
        (2, EventKind.model_call, model_call.model_dump(mode="json")),
        (
            2,
            EventKind.assistant_message,
            Message.assistant("It was delivered.").model_dump(mode="json"),
        ),
    ]
    return out


def session(
    run_id: str,
    scenario_id: str,
    trial: int = 0,
    arm: str = "baseline",
    *,
    turns: int = 2,
    success: bool | None = True,
    termination: TerminationReason = TerminationReason.user_stop,
    every_kind: bool = True,
    session_id: str | None = None,
) -> Session:
    """A finished session; with `every_kind` it carries every EventKind at least once.

    Two turns give ~20 events, about the size of an oracle demo session.
    """
    sid = session_id or f"{scenario_id}.t{trial}.{arm}"
    raw: list[tuple[int, int, EventKind, dict[str, Any]]] = []
    step_base = 0
    for turn in range(turns):
        for step, kind, payload in _turn_events(turn, turn, fail=turn == 0):
            raw.append((turn, step_base + step, kind, payload))
        step_base += 3
    last_turn, last_step = turns - 1, step_base - 1
    if every_kind:
        raw.append(
            (
                last_turn,
                last_step,
                EventKind.drift_applied,
                {
                    "kind": "rename_field",
                    "tool": "get_order",
                    "detail": "status→state",
                    "turn": last_turn,
                    "applied": True,
                },
            )
        )
        raw.append(
            (
                last_turn,
                last_step,
                EventKind.agent_error,
                {"error_class": "malformed_output", "message": "unterminated JSON"},
            )
        )
    outcome = None
    if success is not None:
        outcome = Outcome(
            success=success,
            reward=1.0 if success else 0.0,
            criteria=[CriterionResult(name="db", passed=success, evidence="state hash")],
        )
    raw.append(
        (last_turn, last_step, EventKind.end, {"termination": termination.value, "detail": ""})
    )
    if outcome is not None:
        raw.append((last_turn, last_step, EventKind.verdict, outcome.model_dump(mode="json")))
    t0 = 1_764_000_000.0 + trial
    events = [
        make_event(
            kind,
            payload,
            run_id=run_id,
            session_id=sid,
            seq=seq,
            turn=turn,
            step=step,
            t_wall=t0 + seq * 0.125,
            t_mono=1000.0 + seq * 0.125,
        )
        for seq, (turn, step, kind, payload) in enumerate(raw)
    ]
    usage = Usage()
    for e in events:
        if e.kind is EventKind.model_call:
            usage = usage + ModelCall.model_validate(e.payload).usage
    return Session(
        run_id=run_id,
        session_id=sid,
        scenario_id=scenario_id,
        trial=trial,
        arm=arm,
        model="openai:gpt-4o-mini",
        events=events,
        termination=termination,
        termination_detail="",
        outcome=outcome,
        usage=usage,
        started_at=t0,
        ended_at=t0 + len(events) * 0.125,
        metadata={"seed": 7, "tags": ["demo"]},
    )
