"""Survival by decision depth and first divergence: constructed demo sessions with known
answers, hand-computed curves, and the shared tau2 trajectories."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from agents_for_metrics import Outage, calls, demo, play, say

from sessionproof.agents import OracleAgent
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.domains import get_domain
from sessionproof.domains.demo._internal import load_scenarios
from sessionproof.importers import ImportedSession, import_file
from sessionproof.records import Outcome, Scenario, Session, TerminationReason, ToolCallEvent
from sessionproof.scoring._internal import (
    DivergenceClass,
    FirstDivergence,
    GoldReplays,
    SessionSurvival,
    session_survival,
    success_by_need,
    survival_curve,
    survival_report,
    survival_skip_reason,
)
from sessionproof.scoring.stats import wilson_interval

DEMO = get_domain("demo")
TAU = Path(__file__).resolve().parents[1] / "fixtures" / "tau"

ELENA = {"email": "elena.petrova@example.com"}
CANCEL_1055 = {"order_id": "1055", "reason": "ordered_by_mistake"}


def survive(session: Session, scenario_id: str) -> SessionSurvival:
    return session_survival(session, demo(scenario_id), DEMO)


def divergence(item: SessionSurvival) -> FirstDivergence:
    assert item.divergence is not None, item
    return item.divergence


@pytest.mark.parametrize("scenario", load_scenarios(), ids=lambda s: s.id)
async def test_oracle_never_diverges(scenario: Scenario) -> None:
    session = await play(scenario, OracleAgent())
    item = session_survival(session, scenario, DEMO)
    assert session.success
    assert item.divergence is None
    transfers = session.termination is TerminationReason.transfer
    # Every gold action is one call; a session that did not end by transfer adds its stop.
    assert item.decisions == len(scenario.criteria.gold_actions) + (0 if transfers else 1)
    assert item.survived == item.decisions
    assert item.gold_writes_done == item.gold_writes


async def test_wrong_argument_on_a_write() -> None:
    wrong = {**CANCEL_1055, "reason": "no_longer_needed"}
    agent = [calls(("find_customer_by_email", ELENA)), calls(("cancel_order", wrong)), say("ok")]
    session = await play(demo("cancel-pending-by-mistake"), agent)
    item = survive(session, "cancel-pending-by-mistake")
    d = divergence(item)
    assert not session.success
    assert (d.kind, d.index, d.decision, d.tool) == (
        DivergenceClass.wrong_argument,
        1,
        "call",
        "cancel_order",
    )
    assert item.survived == 1
    cancel = next(
        e
        for e in session.events
        if isinstance(e, ToolCallEvent) and e.payload.name == "cancel_order"
    )
    assert (d.step, d.turn) == (cancel.step, cancel.turn)


async def test_wrong_tool_while_a_write_is_pending() -> None:
    ticket = {"customer_id": "C10", "category": "other", "order_id": "1055"}
    agent = [calls(("find_customer_by_email", ELENA)), calls(("create_ticket", ticket)), say("ok")]
    session = await play(demo("cancel-pending-by-mistake"), agent)
    d = divergence(survive(session, "cancel-pending-by-mistake"))
    assert (d.kind, d.index) == (DivergenceClass.wrong_tool, 1)
    assert "cancel_order" in d.detail


async def test_extra_write_when_nothing_is_pending() -> None:
    ticket = {"customer_id": "C02", "category": "other", "order_id": "1043"}
    agent = [
        calls(("find_customer_by_email", {"email": "daniel.reyes@example.net"})),
        calls(("get_order", {"order_id": "1043"})),
        calls(("create_ticket", ticket)),
        say("UPS 1Z84V6120354417782"),
    ]
    session = await play(demo("order-status-shipped"), agent)
    d = divergence(survive(session, "order-status-shipped"))
    assert (d.kind, d.index) == (DivergenceClass.extra_write, 2)


async def test_missing_call_at_the_stop() -> None:
    agent = [calls(("find_customer_by_email", ELENA)), say("I will look into it. 38.40")]
    session = await play(demo("cancel-pending-by-mistake"), agent)
    item = survive(session, "cancel-pending-by-mistake")
    d = divergence(item)
    assert (d.kind, d.decision) == (DivergenceClass.missing_call, "stop")
    # One call, then the stop: the stop (decision 1) is where the path was left.
    assert (item.decisions, d.index, item.survived) == (2, 1, 1)
    assert "#1 cancel_order" in d.detail


async def test_information_task_answered_without_looking() -> None:
    lazy = await play(demo("order-status-shipped"), [say("It is on its way.")])
    d = divergence(survive(lazy, "order-status-shipped"))
    assert (d.kind, d.decision, d.index) == (DivergenceClass.missing_call, "stop", 0)
    assert "find_customer_by_email" in d.detail
    # Looking everything up but not saying it fails on path: no decision was wrong.
    scenario = demo("order-status-shipped")
    looks = [calls(*((a.tool, a.args) for a in scenario.criteria.gold_actions)), say("Shipped!")]
    mute = await play(scenario, looks)
    item = survive(mute, "order-status-shipped")
    assert not mute.success and item.divergence is None
    report = survival_report([item], {})
    assert report.divergence_classes == {"on_path_failure": 1}


async def test_cut_off_session_misses_after_its_last_decision() -> None:
    lookups = [calls(("get_order", {"order_id": "1055"}), prefix=f"r{i}") for i in range(5)]
    session = await play(demo("cancel-pending-by-mistake"), lookups, max_steps=3)
    assert session.termination is TerminationReason.max_steps
    item = survive(session, "cancel-pending-by-mistake")
    d = divergence(item)
    assert (d.kind, d.decision, d.index) == (DivergenceClass.missing_call, "end", item.decisions)


async def test_premature_transfer_with_scripted_turns_left() -> None:
    agent = [calls(("transfer_to_human_agents", {"summary": "customer wants a refund"}))]
    session = await play(demo("expired-return-then-transfer"), agent)
    assert session.termination is TerminationReason.transfer
    d = divergence(survive(session, "expired-return-then-transfer"))
    assert (d.kind, d.index) == (DivergenceClass.premature_stop, 0)


async def test_gold_call_failing_unrecovered_is_a_tool_error() -> None:
    scenario = demo("cancel-pending-by-mistake")
    hooks = hooks_for(parse_arm("faults=server_error:100%@cancel_order"), 1)
    session = await play(scenario, OracleAgent(), hooks=hooks)
    item = session_survival(session, scenario, DEMO)
    d = divergence(item)
    assert (d.kind, d.index, d.tool) == (DivergenceClass.unrecovered_tool_error, 1, "cancel_order")


async def test_backend_failure_is_not_replayed_as_done() -> None:
    # A natural 503 means the request never ran: replaying the recorded call would "succeed".
    scenario = demo("cancel-pending-by-mistake")
    session = await play(scenario, OracleAgent(), hooks=Outage("cancel_order"))
    item = session_survival(session, scenario, DEMO)
    d = divergence(item)
    assert (d.kind, d.index, item.gold_writes_done) == (
        DivergenceClass.unrecovered_tool_error,
        1,
        0,
    )
    assert "server_error" in d.detail


async def test_refused_non_gold_call_is_a_wrong_argument() -> None:
    agent = [
        calls(("find_customer_by_email", ELENA)),
        calls(("cancel_order", {**CANCEL_1055, "order_id": "9999"})),
        say("done"),
    ]
    session = await play(demo("cancel-pending-by-mistake"), agent)
    d = divergence(survive(session, "cancel-pending-by-mistake"))
    assert (d.kind, d.index) == (DivergenceClass.wrong_argument, 1)
    assert "not_found" in d.detail


async def test_committed_fault_counts_as_the_write() -> None:
    # A timeout commits the write before the agent sees the error: the effect is achieved.
    scenario = demo("cancel-pending-by-mistake")
    hooks = hooks_for(parse_arm("faults=timeout:100%@cancel_order"), 1)
    session = await play(scenario, OracleAgent(), hooks=hooks)
    item = session_survival(session, scenario, DEMO)
    assert session.success
    assert item.divergence is None
    assert item.gold_writes_done == 1


async def test_recovered_failure_is_neutral() -> None:
    agent = [
        calls(("find_customer_by_email", ELENA)),
        calls(("cancel_order", {**CANCEL_1055, "order_id": "1099"})),
        calls(("cancel_order", CANCEL_1055), prefix="d"),
        say("Cancelled; 38.40 refunded."),
    ]
    session = await play(demo("cancel-pending-by-mistake"), agent)
    item = survive(session, "cancel-pending-by-mistake")
    assert session.success
    assert item.divergence is None
    assert item.decisions == 4


async def test_independent_writes_in_another_order() -> None:
    def cancel(order: str) -> tuple[str, dict[str, str]]:
        return ("cancel_order", {"order_id": order, "reason": "no_longer_needed"})

    agent = [
        calls(("find_customer_by_email", {"email": "omar.siddiqui@example.com"})),
        calls(cancel("1054"), cancel("1052"), prefix="x"),
        say("Both cancelled: 66.90 and 64.75."),
    ]
    session = await play(demo("cancel-two-orders-parallel"), agent)
    item = survive(session, "cancel-two-orders-parallel")
    assert session.success and item.divergence is None
    assert item.gold_writes_done == 2


async def test_order_dependent_writes_out_of_order() -> None:
    scenario = demo("address-zip-correction")
    w1, w2 = (a.args for a in scenario.criteria.gold_actions[1:])
    agent = [
        calls(("find_customer_by_email", {"email": "priya.n@example.org"})),
        calls(("update_order_address", w2), prefix="a"),
        say("Updated."),
        calls(("update_order_address", w1), prefix="b"),
        say("Updated to 02116."),
    ]
    session = await play(scenario, agent)
    item = session_survival(session, scenario, DEMO)
    d = divergence(item)
    # Decisions: lookup (0), gold #2 alone (1, same state as replaying #2 alone), gold #1
    # after it (2): the old ZIP overwrites the corrected one, a state no gold prefix has.
    assert not session.success
    assert (d.kind, d.index) == (DivergenceClass.wrong_argument, 2)
    assert "same arguments as gold write #1" in d.detail


async def test_same_effect_with_other_spelling_is_correct() -> None:
    scenario = demo("ship-to-office-address")
    gold = dict(scenario.criteria.gold_actions[-1].args)
    spaced = {**gold, "line1": "  1 Civic  Center Plaza ", "state": "co"}
    agent = [
        calls(("find_customer_by_email", {"email": "fatima.haddad@example.net"})),
        calls(("get_order", {"order_id": "1039"})),
        calls(("update_order_address", spaced), prefix="u"),
        say("Now shipping to 1 Civic Center Plaza."),
    ]
    session = await play(scenario, agent)
    item = session_survival(session, scenario, DEMO)
    assert session.success and item.divergence is None


async def test_forbidden_call_diverges_even_when_harmless() -> None:
    scenario = demo("keep-address-cancel-instead")
    address = {"order_id": "1042", "line1": "1 Main St", "city": "Reno", "state": "NV"}
    agent = [
        calls(("find_customer_by_email", {"email": "maya.okafor@example.com"})),
        calls(("update_order_address", {**address, "zip_code": "bad"}), prefix="f"),
        say("ok"),
    ]
    session = await play(scenario, agent)
    d = divergence(session_survival(session, scenario, DEMO))
    assert d.index == 1 and "forbids" in d.detail


async def test_drifted_infra_and_unjudged_sessions_are_left_out() -> None:
    scenario = demo("cancel-pending-by-mistake")
    hooks = hooks_for(parse_arm("drift=rename_param"), 3, prefer_tools=["cancel_order"])
    drifted = await play(scenario, OracleAgent(), hooks=hooks)
    assert survival_skip_reason(drifted, scenario) is not None
    assert "drift" in str(survival_skip_reason(drifted, scenario))
    clean = await play(scenario, OracleAgent())
    assert survival_skip_reason(clean, scenario) is None
    assert survival_skip_reason(clean, None) == "scenario unavailable"
    infra = clean.model_copy(update={"termination": TerminationReason.infra_error})
    assert "infra" in str(survival_skip_reason(infra, scenario))
    unjudged = clean.model_copy(update={"outcome": None})
    assert survival_skip_reason(unjudged, scenario) == "no verdict"


# -- the curve ----------------------------------------------------------------------------------


def item(sid: str, decisions: int, success: bool, at: int | None) -> SessionSurvival:
    div = None
    if at is not None:
        div = FirstDivergence(
            index=at,
            step=at,
            turn=0,
            decision="end" if at == decisions else "call",
            kind=DivergenceClass.wrong_tool,
            detail="",
        )
    return SessionSurvival(
        session_id=sid,
        scenario_id=sid,
        trial=0,
        success=success,
        decisions=decisions,
        survived=at if at is not None else decisions,
        divergence=div,
        gold_writes=1,
        gold_writes_done=0,
        gold_actions=2,
    )


def test_curve_by_hand() -> None:
    # a: diverged at decision 1 of 3; b: succeeded after 2; c: failed on path after 1;
    # d: cut off after 2 with a write missing (virtual divergence at index 2).
    items = [item("a", 3, False, 1), item("b", 2, True, None), item("c", 1, False, None)]
    items.append(item("d", 2, False, 2))
    points = survival_curve(items)
    # d = 0: all on path. d = 1: a (1 <= 1), b, c (1 <= 1), d -> 4.
    # d = 2: b, d (2 <= 2) -> 2. d = 3: b only (succeeded) -> 1. d = 4: b -> 1.
    assert [p.survivors for p in points] == [4, 4, 2, 1, 1]
    assert [p.survival for p in points] == [1.0, 1.0, 0.5, 0.25, 0.25]
    assert [p.diverging for p in points] == [0, 1, 1, 0, 0]
    assert [p.ended_failed for p in points] == [0, 1, 0, 0, 0]
    # At risk after 1 decision: a (its decision 1), b, d; c had made its last decision.
    assert points[1].at_risk == 3
    surv = [p.survival for p in points]
    assert all(x >= y for x, y in itertools.pairwise(surv))


def test_report_counts_classes_and_diverged_successes() -> None:
    items = [item("a", 3, False, 1), item("b", 2, True, None), item("c", 1, False, None)]
    items.append(item("e", 2, True, 0))
    report = survival_report(items, {"x": "scenario unavailable"})
    assert report.divergence_classes == {"wrong_tool": 1, "on_path_failure": 1}
    assert report.diverged_successes == 1
    assert report.skipped == {"x": "scenario unavailable"}
    assert [b.needed for b in report.success_by_gold_writes] == [1]


def test_success_by_need_with_wilson_bounds() -> None:
    rows = [(0, True), (0, True), (1, True), (1, False), (2, False), (1, False)]
    buckets = success_by_need(rows)
    assert [(b.needed, b.sessions, b.successes) for b in buckets] == [
        (0, 2, 2),
        (1, 3, 1),
        (2, 1, 0),
    ]
    assert buckets[1].success_rate == pytest.approx(1 / 3)
    assert buckets[1].ci95 == wilson_interval(1, 3)
    assert survival_curve([]) == []


# -- the shared tau2 trajectories -------------------------------------------------------------


def _imported() -> list[tuple[str, ImportedSession]]:
    out = []
    for path in sorted(TAU.glob("*.json")):
        result = import_file(path, "tau2", run_id="t")
        assert result.domain is not None and not result.skipped
        for imported in result.sessions:
            reported = imported.reported
            assert reported is not None and reported.success is not None
            # The file's own verdict stands in for ours (scoring agrees with it: tests/suites/tau2).
            imported.session.outcome = Outcome(
                success=reported.success, reward=reported.reward or 0
            )
            out.append((result.domain, imported))
    return out


def test_tau2_trajectories_state_divergence_agrees_with_db_check() -> None:
    items = []
    for domain, imported in _imported():
        assert imported.scenario is not None and imported.reported is not None
        sv = session_survival(imported.session, imported.scenario, get_domain(domain))
        items.append(sv)
        db = imported.reported.db_match
        if db is False:
            # The final DB differs from gold: some decision must have left the path.
            assert sv.divergence is not None, sv.session_id
        if db is True and imported.reported.success:
            assert sv.divergence is None, sv
    assert len(items) == 110
    report = survival_report(items, {})
    surv = [p.survival for p in report.curve]
    assert surv[0] == 1.0
    assert all(x >= y for x, y in itertools.pairwise(surv))
    assert surv[-1] == pytest.approx(sum(s.success and s.divergence is None for s in items) / 110)
    assert surv[-1] < surv[len(surv) // 4] < 1.0
    # Same agents, more writes to get right: success falls.
    by_writes = {b.needed: b for b in report.success_by_gold_writes}
    few = by_writes[0]
    many = [b for n, b in by_writes.items() if n >= 2]
    many_rate = sum(b.successes for b in many) / sum(b.sessions for b in many)
    assert few.success_rate > many_rate


def test_shared_gold_replays_judge_like_one_replay_per_session() -> None:
    # Two models' trajectories of the same tasks, judged against one scenario object per
    # task: with one GoldReplays the second session of a task reuses the first one's
    # gold-state hashes; every verdict stays the same. Task ids repeat across domains.
    replays = GoldReplays()
    tasks: dict[tuple[str, str], Scenario] = {}
    reused = 0
    for domain, imported in _imported():
        assert imported.scenario is not None
        scenario = tasks.setdefault((domain, imported.scenario.id), imported.scenario)
        assert scenario.criteria == imported.scenario.criteria
        reused += scenario is not imported.scenario
        spec = get_domain(domain)
        alone = session_survival(imported.session, scenario, spec)
        shared = session_survival(imported.session, scenario, spec, replays)
        assert shared == alone, imported.session.session_id
    assert reused > 0
    assert len({d for d, _ in tasks}) == 2  # airline and retail, whose ids overlap
