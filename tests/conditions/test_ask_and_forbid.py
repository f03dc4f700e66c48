"""The two criteria pieces imperfect instructions need: the oracle asks for a withheld value
(`Action.ask_first`), and a forbidden call can be limited to one user turn."""

from __future__ import annotations

import asyncio

from sessionproof import runs
from sessionproof.agents import AgentRequest, OracleAgent
from sessionproof.records import Action, ForbiddenAction, Message, Scenario, ToolCall
from sessionproof.suites import Suite, load_suite


def _scenario() -> Scenario:
    return next(s for s in load_suite("demo").scenarios if s.id == "cancel-pending-by-mistake")


def _reply(scenario: Scenario, turn: int) -> str:
    # The oracle has made this turn's calls already: what it says next.
    acted = Message.assistant(None, [ToolCall(id="c", name="get_order", arguments={})])
    request = AgentRequest(
        messages=[Message.user("hi"), acted],
        tools=[],
        turn=turn,
        step=1,
        seed=0,
        scenario=scenario,
    )
    response = asyncio.run(OracleAgent().respond(request))
    assert not response.message.tool_calls
    return response.message.content or ""


def test_the_oracle_asks_for_a_value_the_next_turn_needs_and_no_more() -> None:
    scenario = _scenario()
    assert "?" not in _reply(scenario, 0)
    withheld = scenario.model_copy(deep=True)
    withheld.criteria.gold_actions = [
        Action(
            tool="cancel_order",
            args={"order_id": "1055", "reason": "ordered_by_mistake"},
            turn=1,
            ask_first=["order_id"],
        ),
    ]
    assert _reply(withheld, 0).endswith("Could you tell me the order id?")
    assert "?" not in _reply(withheld, 1)  # nothing left to ask for


def _accuracy(forbidden: ForbiddenAction) -> float | None:
    scenario = _scenario()
    scenario.criteria.forbidden = [forbidden]
    report = runs.run(runs.RunConfig(suite=Suite("one", [scenario]), model="oracle"))
    return report.summary.session_accuracy


def test_a_forbidden_call_limited_to_a_turn_matches_only_that_turn() -> None:
    # The oracle authenticates in turn 0.
    assert _accuracy(ForbiddenAction(tool="find_customer_by_email", turn=0)) == 0.0
    assert _accuracy(ForbiddenAction(tool="find_customer_by_email", turn=1)) == 1.0
    assert _accuracy(ForbiddenAction(tool="find_customer_by_email")) == 0.0


def test_the_new_fields_stay_out_of_dumps_while_unset() -> None:
    # Stored suites are resumed by content hash: a scenario without them dumps as before.
    dumped = _scenario().model_dump(mode="json")
    assert all("ask_first" not in a for a in dumped["criteria"]["gold_actions"])
    assert "turn" not in ForbiddenAction(tool="x").model_dump()
