"""How many times each traced call took effect, when implicit faults changed what the domain
did: a silent_noop or error_in_body write never, a duplicate_write twice."""

from __future__ import annotations

from detection_sessions import build, call, faulted_call, implicit

from sessionproof.records import EventKind
from sessionproof.scoring._trace import traced_calls


def _duplicate(cid: str, tool: str, second_ok: bool) -> list[tuple[EventKind, dict[str, object]]]:
    payload = {
        "call_id": cid,
        "tool": tool,
        "fault": "duplicate_write",
        "change": {"second_ok": second_ok},
    }
    return [(EventKind.implicit_fault, payload)]


def test_implicit_faults_set_how_many_times_a_write_took_effect() -> None:
    session = build(
        [
            *call("c1", "cancel_order", order_id="#1"),
            *faulted_call("c2", "cancel_order", implicit("c2", "cancel_order", "silent_noop")),
            *faulted_call("c3", "modify_order", implicit("c3", "modify_order", "error_in_body")),
            *faulted_call("c4", "return_items", _duplicate("c4", "return_items", True)),
            *faulted_call("c5", "return_items", _duplicate("c5", "return_items", False)),
            *faulted_call("c6", "get_order", implicit("c6", "get_order", "corrupted_value")),
        ]
    )
    runs = {t.call.id: t.executions for t in traced_calls(session)}
    assert runs == {"c1": 1, "c2": 0, "c3": 0, "c4": 2, "c5": 1, "c6": 1}
