"""Failure source: agent, simulated user, environment or infra, each with its evidence."""

from __future__ import annotations

from pathlib import Path

from agents_for_metrics import Outage, calls, demo, play, say

from sessionproof.agents import AgentRequest, OracleAgent, ScriptedAgent
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.domains import get_domain
from sessionproof.errors import InfraError
from sessionproof.importers import import_file
from sessionproof.records import ErrorClass, Message, Outcome, Scenario, Session, UserSpec
from sessionproof.scoring._attribution import confirmation_request, facts_in
from sessionproof.scoring._internal import (
    Attribution,
    FailureSource,
    attribute_failure,
    attribute_failures,
    invented_facts,
    session_survival,
)
from sessionproof.users import ScriptedUser

DEMO = get_domain("demo")
TAU = Path(__file__).resolve().parents[1] / "fixtures" / "tau"
CANCEL = "cancel-pending-by-mistake"
ELENA = {"email": "elena.petrova@example.com"}
CANCEL_1055 = {"order_id": "1055", "reason": "ordered_by_mistake"}


def judge(session: Session, scenario: Scenario) -> Attribution | None:
    return attribute_failure(session, scenario, session_survival(session, scenario, DEMO))


def simulated(scenario: Scenario) -> Scenario:
    """The scenario with a simulated user told what its scripted one says."""
    text = " ".join(scenario.user.turns or [])
    return scenario.model_copy(update={"user": UserSpec(instructions=text, persona="brief")})


def source(found: Attribution | None) -> tuple[FailureSource | None, str]:
    assert found is not None
    return found.source, found.rule


async def test_infra_error() -> None:
    def broken(request: AgentRequest) -> Message:
        raise InfraError("provider down after 5 retries")

    session = await play(demo(CANCEL), ScriptedAgent(broken))
    found = judge(session, demo(CANCEL))
    assert source(found) == (FailureSource.infra, "infra_error")
    assert found is not None and "provider down" in found.evidence


async def test_natural_backend_failure_is_the_environment() -> None:
    session = await play(demo(CANCEL), OracleAgent(), hooks=Outage("cancel_order"))
    assert not session.success
    found = judge(session, demo(CANCEL))
    assert source(found) == (FailureSource.environment, "natural_tool_error")
    assert found is not None and "server_error on cancel_order" in found.evidence


async def test_natural_argument_error_stays_with_the_agent() -> None:
    hooks = Outage("cancel_order", ErrorClass.not_found)
    session = await play(demo(CANCEL), OracleAgent(), hooks=hooks)
    assert source(judge(session, demo(CANCEL))) == (FailureSource.agent, "agent")


async def test_injected_escalate_class_cannot_be_survived() -> None:
    hooks = hooks_for(parse_arm("faults=auth_expired:100%@cancel_order"), 1)
    session = await play(demo(CANCEL), OracleAgent(), hooks=hooks)
    found = judge(session, demo(CANCEL))
    assert source(found) == (FailureSource.environment, "unsurvivable_fault")
    assert found is not None and "escalate" in found.evidence


async def test_injected_fault_tried_twice_is_the_environment() -> None:
    hooks = hooks_for(parse_arm("faults=server_error:100%@cancel_order"), 1)
    agent = [
        calls(("find_customer_by_email", ELENA)),
        calls(("cancel_order", CANCEL_1055)),
        calls(("cancel_order", CANCEL_1055), prefix="again"),
        say("The system is failing; please try later."),
    ]
    session = await play(demo(CANCEL), agent, hooks=hooks)
    found = judge(session, demo(CANCEL))
    assert source(found) == (FailureSource.environment, "unsurvivable_fault")
    assert found is not None and "2 attempts" in found.evidence


async def test_injected_fault_tried_once_is_the_agents_to_survive() -> None:
    hooks = hooks_for(parse_arm("faults=server_error:100%@cancel_order"), 1)
    session = await play(demo(CANCEL), OracleAgent(), hooks=hooks)
    found = judge(session, demo(CANCEL))
    assert source(found) == (FailureSource.agent, "agent")
    assert found is not None and "unrecovered_tool_error" in found.evidence


async def test_environment_not_blamed_after_the_agents_own_wrong_write() -> None:
    wrong = {**CANCEL_1055, "reason": "no_longer_needed"}
    agent = [
        calls(("cancel_order", wrong)),
        calls(("get_order", {"order_id": "1055"}), prefix="g"),
        say("done"),
    ]
    session = await play(demo(CANCEL), agent, hooks=Outage("get_order"))
    found = judge(session, demo(CANCEL))
    assert source(found) == (FailureSource.agent, "agent")
    assert found is not None and "wrong_argument" in found.evidence


async def test_simulated_user_stopping_at_a_confirmation() -> None:
    scenario = simulated(demo(CANCEL))
    user = ScriptedUser(["I'm elena.petrova@example.com, cancel order 1055 please."])
    asks = [calls(("find_customer_by_email", ELENA)), say("Shall I cancel order 1055 now?")]
    session = await play(scenario, asks, user=user)
    found = judge(session, scenario)
    assert source(found) == (FailureSource.user, "user_stopped_before_write")
    assert found is not None and "Shall I cancel order 1055 now?" in found.evidence
    # The same agent waiting on a scripted user is the agent's failure: the script is the task.
    scripted = await play(demo(CANCEL), asks, user=user)
    assert source(judge(scripted, demo(CANCEL))) == (FailureSource.agent, "agent")
    # An agent that stops asking nothing was not waiting for the user.
    idle = [calls(("find_customer_by_email", ELENA)), say("Anything else I can help with?")]
    session = await play(scenario, idle, user=user)
    assert source(judge(session, scenario)) == (FailureSource.agent, "agent")


async def test_simulated_user_inventing_an_order_number() -> None:
    scenario = simulated(demo(CANCEL))
    user = ScriptedUser(["I'm elena.petrova@example.com. Please cancel order 1077."])
    agent = [
        calls(("find_customer_by_email", ELENA)),
        calls(("cancel_order", {**CANCEL_1055, "order_id": "1077"})),
        say("That order does not exist."),
    ]
    session = await play(scenario, agent, user=user)
    assert invented_facts(session, scenario) == [(0, "1077")]
    found = judge(session, scenario)
    assert source(found) == (FailureSource.user, "user_invented_fact")
    assert found is not None and "'1077'" in found.evidence
    # A number the agent said first is not invented; nor is one from the instructions.
    told = scenario.model_copy(
        update={"user": UserSpec(instructions=f"{scenario.user.instructions} Mention 1077.")}
    )
    assert invented_facts(session, told) == []
    assert invented_facts(session, demo(CANCEL)) == []  # scripted users invent nothing


def test_facts_and_confirmations() -> None:
    text = (
        "Order #W2378156 to Jane.Doe@Example.com, ZIP 80202, total $1,286.50 on 2024-05-01; 2 bags."
    )
    assert facts_in(text) == {"w2378156", "jane.doe@example.com", "80202", "1286.50", "2024-05-01"}
    assert confirmation_request("Here is the plan. Do you confirm I should proceed?")
    assert confirmation_request("Cancelled. Is there anything else I can help you with?") is None
    assert confirmation_request("Would you like me to go ahead? Anything else?") is None
    assert confirmation_request("No question here.") is None


async def test_unjudged_successful_and_unscenarioed_sessions() -> None:
    good = await play(demo(CANCEL), OracleAgent())
    assert attribute_failure(good, demo(CANCEL)) is None
    assert attribute_failure(good.model_copy(update={"outcome": None}), demo(CANCEL)) is None
    bad = await play(demo(CANCEL), [say("Sorry, I cannot help.")])
    found = attribute_failure(bad, None)
    assert source(found) == (None, "undetermined")
    report = attribute_failures([good, bad], {}, {})
    assert (report.failed, report.undetermined) == (1, 1)
    assert report.by_source == {"agent": 0, "user": 0, "environment": 0, "infra": 0}


def test_tau2_trajectories() -> None:
    paths = sorted(TAU.glob("*.json"))
    # The three recorded tau2 runs of tests/fixtures/tau: a missing file must not pass unseen.
    assert len(paths) == 3, paths
    checked_task_23 = False
    for path in paths:
        result = import_file(path, "tau2", run_id="t")
        assert result.domain is not None
        assert result.sessions, f"{path.name} imported no session"
        spec = get_domain(result.domain)
        sessions, scenarios, survivals = [], {}, {}
        for imported in result.sessions:
            assert imported.scenario is not None and imported.reported is not None
            session = imported.session
            session.outcome = Outcome(success=bool(imported.reported.success), reward=0.0)
            sessions.append(session)
            scenarios[imported.scenario.id] = imported.scenario
            survivals[session.session_id] = session_survival(session, imported.scenario, spec)
        report = attribute_failures(sessions, scenarios, survivals)
        failed = sum(not s.success for s in sessions)
        assert report.failed == failed == sum(report.by_source.values())
        # Recorded tau2 runs carry no infra errors nor natural backend failures.
        assert report.by_source["infra"] == report.by_source["environment"] == 0
        if path.name.startswith("claude-sonnet-4-5_airline"):
            # Task 23: the agent asked "Do you confirm ...?" and the simulated user answered
            # "Yes, I confirm. Please go ahead ...###STOP###", ending the session instead.
            by_task = {a.scenario_id: a for a in report.sessions}
            assert source(by_task["23"]) == (FailureSource.user, "user_stopped_before_write")
            assert "I confirm" in by_task["23"].evidence
            checked_task_23 = True
    assert checked_task_23, "the claude-sonnet-4-5 airline run was not among the fixtures"
