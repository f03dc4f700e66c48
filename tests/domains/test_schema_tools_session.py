"""A whole session through a JSON-Schema toolkit, under faults, drift and the guard."""

from __future__ import annotations

from sessionproof.agents import AgentRequest, ScriptedAgent
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.engine import SessionHooks, execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.records import (
    Action,
    Criteria,
    EventKind,
    Message,
    Scenario,
    ToolCall,
    ToolCallEvent,
    UserSpec,
)
from sessionproof.records._internal import DriftApplied, FaultInjectedEvent, GuardDecisionEvent
from sessionproof.suites import Suite

from .schema_world import CANCEL_ORDER, DOMAIN

ARM = "faults=rate_limited:30% drift=rename_param@1 guard"
SCENARIO = Scenario(
    id="cancel-1042",
    domain=DOMAIN,
    user=UserSpec(turns=["Please cancel order 1042, I ordered it by mistake."]),
    criteria=Criteria(
        gold_actions=[
            Action(tool="cancel_order", args={"order_id": "1042", "reason": "ordered_by_mistake"})
        ]
    ),
)


def _adaptive(request: AgentRequest) -> Message:
    """Looks the order up, then cancels it, naming arguments as the listed schema does now
    (a renamed parameter is mapped from the one that disappeared)."""
    made = [c.name for m in request.messages if m.role == "assistant" for c in m.tool_calls]
    if "get_order" not in made:
        call = ToolCall(id="look", name="get_order", arguments={"order_id": "1042"})
        return Message.assistant(None, [call])
    if "cancel_order" in made:
        return Message.assistant("Order 1042 is cancelled.")
    spec = next(t for t in request.tools if t.name == "cancel_order")
    wanted = {"order_id": "1042", "reason": "ordered_by_mistake"}
    shown = set(spec.parameters["properties"])
    gone = sorted(set(wanted) - shown)
    new = sorted(shown - set(wanted))
    for old, renamed in zip(gone, new, strict=True):
        wanted[renamed] = wanted.pop(old)
    return Message.assistant(None, [ToolCall(id="cancel", name="cancel_order", arguments=wanted)])


def _hooks(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
    return hooks_for(parse_arm(arm), seed, prefer_tools=["cancel_order"])


async def test_schema_toolkit_session_under_faults_drift_and_guard() -> None:
    sink = SessionList()
    plan = RunPlan(run_id="r", trials=6, arms=[ARM], seed=11, concurrency=2)
    await execute_run(
        Suite("schema", [SCENARIO]), ScriptedAgent(_adaptive), plan, sink, hooks_for=_hooks
    )
    assert len(sink.sessions) == 6
    faults = 0
    for session in sink.sessions:
        kinds = [e.kind for e in session.events]
        assert kinds[-1] is EventKind.verdict and session.outcome is not None
        [drift] = [e.payload for e in session.events if e.kind is EventKind.drift_applied]
        assert isinstance(drift, DriftApplied)
        assert drift.applied and drift.tool == "cancel_order"
        # The agent saw the drifted schema and spoke it; the domain got its own form back.
        cancel = next(
            e.payload
            for e in session.events
            if isinstance(e, ToolCallEvent) and e.payload.name == "cancel_order"
        )
        assert isinstance(cancel, ToolCall) and cancel.arguments is not None
        assert set(cancel.arguments) != set(CANCEL_ORDER.parameters["properties"])
        injected = [e.payload for e in session.events if isinstance(e, FaultInjectedEvent)]
        decisions = [e.payload for e in session.events if isinstance(e, GuardDecisionEvent)]
        assert {"rate_limited"} >= {f.error_class.value for f in injected}
        assert sum(d.decision.value == "retry" for d in decisions) == len(injected)
        faults += len(injected)
        assert session.success, session.outcome.criteria
    assert faults > 0  # the faults really met the calls, and the guard took them all back
