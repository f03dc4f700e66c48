"""Per-task verdicts of the wild suite, on hand-built traces of one session."""

from __future__ import annotations

from typing import Any

from sessionproof.records import (
    ErrorClass,
    EventKind,
    Message,
    Session,
    TerminationReason,
    ToolCall,
    ToolResult,
)
from sessionproof.records._internal import make_event
from sessionproof.suites.wild._internal import judge_tasks, wild_meta, wild_scenarios

WRITES = frozenset({"cancel_order", "return_items", "create_ticket", "update_order_address"})
FIRST = next(s for s in wild_scenarios() if s.id == "wild-01")
# wild-01: hello_status 1042 | cancel_it | chat | first_product
Call = tuple[str, dict[str, Any], bool]


class Trace:
    """Builds a session event by event."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.turn = 0

    def _emit(self, kind: EventKind, payload: Any) -> None:
        self.events.append(
            make_event(
                kind,
                payload,
                run_id="r",
                session_id="s",
                seq=len(self.events),
                turn=self.turn,
                step=0,
                t_wall=0.0,
                t_mono=0.0,
            )
        )

    def user(self, turn: int) -> None:
        self.turn = turn
        self._emit(EventKind.user_message, Message.user((FIRST.user.turns or [])[turn]))

    def calls(self, *calls: Call) -> None:
        made = [
            ToolCall(id=f"c{len(self.events)}-{i}", name=n, arguments=a)
            for i, (n, a, _) in enumerate(calls)
        ]
        self._emit(EventKind.assistant_message, Message.assistant(None, made))
        for call, (_, _, ok) in zip(made, calls, strict=True):
            self._emit(EventKind.tool_call, call)
            result = ToolResult(call_id=call.id, name=call.name, output="{}")
            if not ok:
                result = ToolResult(
                    call_id=call.id,
                    name=call.name,
                    output="boom",
                    error="boom",
                    error_class=ErrorClass.server_error,
                )
            self._emit(EventKind.tool_result, result)

    def say(self, text: str = "") -> None:
        facts = "; ".join(FIRST.criteria.communicate)
        self._emit(EventKind.assistant_message, Message.assistant(text or f"Done. {facts}."))

    def verdicts(self) -> dict[str, bool | None]:
        meta = wild_meta(FIRST)
        assert meta is not None
        session = Session(
            run_id="r",
            session_id="s",
            scenario_id=FIRST.id,
            trial=0,
            events=self.events,
            termination=TerminationReason.user_stop,
        )
        return {c.name: c.passed for c in judge_tasks(FIRST, meta, session, WRITES)}


def _session(
    cancel: list[tuple[str, dict[str, Any], bool]], first_task_reads: bool = True
) -> Trace:
    trace = Trace()
    trace.user(0)
    find = ("find_customer_by_email", {"email": "maya.okafor@example.com"}, True)
    order = ("get_order", {"order_id": "1042"}, True)
    trace.calls(find, order) if first_task_reads else trace.calls(find)
    trace.say()
    trace.user(1)
    for call in cancel:
        trace.calls(call)
    trace.say()
    trace.user(2)
    trace.say()
    trace.user(3)
    trace.calls(
        ("get_product", {"product_id": "P03"}, True), ("get_product", {"product_id": "P09"}, True)
    )
    trace.say()
    return trace


GOLD_CANCEL = ("cancel_order", {"order_id": "1042", "reason": "ordered_by_mistake"})


def test_a_failed_attempt_at_the_gold_write_then_a_retry_passes() -> None:
    verdicts = _session([(*GOLD_CANCEL, False), (*GOLD_CANCEL, True)]).verdicts()
    assert verdicts == {"task:1": True, "task:2": True, "task:3": True, "task:4": True}


def test_a_gold_write_that_only_failed_fails_its_task_alone() -> None:
    verdicts = _session([(*GOLD_CANCEL, False)]).verdicts()
    assert verdicts == {"task:1": True, "task:2": False, "task:3": True, "task:4": True}


def test_a_write_nobody_asked_for_fails_its_task() -> None:
    wrong = ("cancel_order", {"order_id": "1031", "reason": "ordered_by_mistake"}, False)
    verdicts = _session([wrong, (*GOLD_CANCEL, True)]).verdicts()
    assert verdicts["task:2"] is False and verdicts["task:1"] is True


def test_a_missing_read_fails_the_task_that_needed_it() -> None:
    verdicts = _session([(*GOLD_CANCEL, True)], first_task_reads=False).verdicts()
    assert verdicts["task:1"] is False and verdicts["task:2"] is True
