"""Output validation, escalation, and the README example."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest
from pydantic import BaseModel

import sessionproof.guard as guard_module
from sessionproof.errors import ToolError
from sessionproof.guard import Guard, GuardConfig, VirtualClock
from sessionproof.guard._internal import Decision, Escalation
from sessionproof.records import ErrorClass

ORDER = {
    "type": "object",
    "properties": {"order_id": {"type": "string"}, "status": {"enum": ["pending", "shipped"]}},
    "required": ["order_id", "status"],
}


class Order(BaseModel):
    order_id: str
    status: str


@pytest.mark.parametrize(
    ("answer", "valid"),
    [
        ({"order_id": "1", "status": "pending"}, True),
        (Order(order_id="1", status="shipped"), True),
        ('{"order_id": "1", "status": "shipped"}', True),
        ({"order_id": "1", "status": "lost"}, False),
        ({"order_id": 1, "status": "pending"}, False),
        (Order(order_id="1", status="teleported"), False),
        ("the order is fine", False),  # text where an object is promised
        ([{"order_id": "1"}], False),
    ],
)
async def test_output_is_checked_against_the_output_schema(answer: Any, valid: bool) -> None:
    guard = Guard(clock=VirtualClock())
    tool = guard.wrap(lambda **_: answer, name="get_order", output_schema=ORDER)
    result = await tool()
    if valid:
        assert result.ok and result.decision is Decision.pass_ and result.value is answer
    else:
        assert not result.ok and result.decision is Decision.output_invalid
        assert result.error_class is ErrorClass.schema_mismatch
        assert "does not match its output schema" in result.output
        assert result.attempts == 1  # a wrong shape is not retried


async def test_output_validation_can_be_switched_off() -> None:
    guard = Guard(GuardConfig(validate_outputs=False), clock=VirtualClock())
    result = await guard.wrap(lambda: {"x": 1}, name="t", output_schema=ORDER)()
    assert result.ok


@pytest.mark.parametrize(
    ("failure", "cls"),
    [
        (ToolError("401 Unauthorized: token expired", "auth_expired"), ErrorClass.auth_expired),
        (PermissionError("refunds above $500 need a manager"), ErrorClass.policy_refusal),
        ({"error": {"code": 403, "message": "forbidden"}}, ErrorClass.policy_refusal),
    ],
)
async def test_escalation_hook_is_called_and_the_agent_told_to_stop(
    failure: Any, cls: ErrorClass
) -> None:
    escalations: list[Escalation] = []
    clock = VirtualClock()
    guard = Guard(clock=clock, on_escalate=escalations.append)
    calls = 0

    def refund(**_: Any) -> Any:
        nonlocal calls
        calls += 1
        if isinstance(failure, BaseException):
            raise failure
        return failure

    result = await guard.wrap(refund, write=True)({"amount": 900}, call_id="call-9")
    assert calls == 1 and clock.sleeps == []  # no loop
    assert result.decision is Decision.escalate and result.error_class is cls
    assert [(e.tool, e.error_class, e.call_id) for e in escalations] == [("refund", cls, "call-9")]
    assert "cannot be fixed by retrying" in result.output
    assert "tell the user" in result.output and "transfer to a human agent" in result.output


def _readme_example() -> str:
    doc = guard_module.__doc__ or ""
    block = doc.split("five lines::", 1)[1]
    lines = []
    for line in block.splitlines()[1:]:
        if line and not line.startswith("    "):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines))


async def test_readme_example_runs() -> None:
    code = _readme_example()
    assert len([line for line in code.splitlines() if line.strip()]) == 5
    ledger: dict[str, str] = {"1042": "pending"}

    def get_order(order_id: str) -> dict[str, str]:
        return {"order_id": order_id, "status": ledger[order_id]}

    def cancel_order(order_id: str, request_id: str) -> dict[str, str]:
        ledger[order_id] = "cancelled"
        return {"order_id": order_id, "status": "cancelled"}

    class ToolCallStub:
        name = "cancel_order"
        arguments = '{"order_id": "1042", "request_id": "r-77"}'

    namespace: dict[str, Any] = {
        "get_order": get_order,
        "cancel_order": cancel_order,
        "GET_ORDER_SCHEMA": {"type": "object", "required": ["order_id"]},
        "ORDER_SCHEMA": {"type": "object", "required": ["status"]},
        "CANCEL_SCHEMA": {"type": "object", "required": ["order_id", "request_id"]},
        "tool_call": ToolCallStub(),
    }
    body = textwrap.indent(code, "    ")
    exec(f"async def _example():\n{body}\n    return result, guard", namespace)
    result, guard = await namespace["_example"]()
    assert result.ok and ledger["1042"] == "cancelled"
    assert json.loads(result.output) == {"order_id": "1042", "status": "cancelled"}
    assert isinstance(guard, Guard)
