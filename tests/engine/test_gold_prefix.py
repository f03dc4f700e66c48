"""A session started at turn i from the gold prefix (any domain, any suite)."""

from __future__ import annotations

from typing import Any

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.domains import Domain
from sessionproof.engine import run_session
from sessionproof.engine._internal import SessionPlan
from sessionproof.records import Action, Criteria, Message, Scenario, Session, UserSpec
from sessionproof.suites import Suite
from sessionproof.suites._internal import GoldPrefixSuite
from sessionproof.users import ScriptedUser

from . import world  # noqa: F401  (registers the counter domain)


def _scenario() -> Scenario:
    return Scenario(
        id="s",
        domain="counter",
        user=UserSpec(turns=["add 2 to a", "add 3 to b", "add 1 to a"]),
        criteria=Criteria(
            per_turn=True,
            gold_actions=[
                Action(tool="add", args={"name": "a", "by": 2}, turn=0),
                Action(tool="add", args={"name": "b", "by": 3}, turn=1),
                Action(tool="add", args={"name": "a", "by": 1}, turn=2),
            ],
        ),
    )


class _Recording(OracleAgent):
    def __init__(self) -> None:
        self.requests: list[AgentRequest] = []

    async def respond(self, request: AgentRequest) -> AgentResponse:
        self.requests.append(request)
        return await super().respond(request)


class _Keep(Suite):
    final: dict[str, Domain[Any]]

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Any:
        self.final = {scenario.id: final_domain}
        return super().evaluate(scenario, session, final_domain)


async def test_the_agent_starts_at_turn_i_after_the_gold_history() -> None:
    split = GoldPrefixSuite(_Keep("t", [_scenario()]))
    third = split.scenarios[2]
    assert (third.id, third.start_turn) == ("s@turn2", 2)
    agent = _Recording()
    plan = SessionPlan(run_id="r", session_id=third.id, scenario=third, trial=0)
    session = await run_session(plan, split, agent, ScriptedUser(third.user.turns or []))
    first = agent.requests[0]
    assert first.turn == 2
    roles = [m.role for m in first.messages]
    # system, then per earlier turn: user, gold calls, their results, a closing reply; now turn 2.
    assert roles == ["system", *(["user", "assistant", "tool", "assistant"] * 2), "user"]
    assert first.messages[-1] == Message.user("add 1 to a")
    # The gold state of the earlier turns was in place: a=2, b=3, then the agent's own +1.
    base = split.base
    assert isinstance(base, _Keep)
    db = base.final[third.id].db
    assert db.counters == {"a": 3, "b": 3}
    # Only the agent's own turn is in the trace (the end and verdict come after it).
    assert min(e.turn for e in session.events) == 2
    assert [c.name for c in session.tool_calls()] == ["add"]


def test_scenarios_without_per_turn_criteria_are_kept_whole() -> None:
    plain = _scenario().model_copy(update={"criteria": Criteria()})
    assert GoldPrefixSuite(Suite("t", [plain])).scenarios == [plain]
