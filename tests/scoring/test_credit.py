"""Turn- and step-level credit (scoring/_credit.py) on sessions made for the edge cases: a run
cut off with work pending (the virtual end step), a judged session with no decision, a
partial reward, and a session nothing could judge."""

from __future__ import annotations

import math
from pathlib import Path

from sessionproof.records import EventKind, Message, Outcome, Session, TerminationReason
from sessionproof.records._internal import make_event
from sessionproof.runs import RunConfig, run
from sessionproof.scoring._internal import session_credit
from sessionproof.store import Store
from sessionproof.suites import load_suite


def _bare(outcome: Outcome | None, termination: TerminationReason) -> Session:
    """A session whose user spoke once and whose agent never decided anything."""
    user = make_event(
        EventKind.user_message,
        Message.user("hello"),
        run_id="r",
        session_id="s",
        seq=0,
        turn=0,
        step=0,
        t_wall=1.0,
        t_mono=0.0,
    )
    return Session(
        run_id="r",
        session_id="s",
        scenario_id="x",
        trial=0,
        events=[user],
        termination=termination,
        outcome=outcome,
    )


def test_a_judged_session_without_decisions_leaves_its_reward_unassigned() -> None:
    session = _bare(Outcome(success=False, reward=0.25), TerminationReason.max_steps)
    credit = session_credit(session, None, None)
    assert credit.basis == "outcome" and credit.reason == "scenario unavailable"
    assert credit.steps == [] and credit.unassigned == 0.25 and credit.reward == 0.25
    assert [(t.turn, t.credit, t.decisions) for t in credit.turns] == [(0, 0.0, 0)]


def test_a_session_nothing_judged_gets_no_credit_never_a_zero() -> None:
    unjudged = Outcome(success=False, reward=0.0, not_judged="no criterion applies")
    for session in (
        _bare(unjudged, TerminationReason.agent_stop),
        _bare(None, TerminationReason.infra_error),
    ):
        credit = session_credit(session, None, None)
        assert credit.basis == "none" and credit.reward is None and credit.unassigned is None
        assert all(t.credit is None for t in credit.turns)


def test_a_cut_off_session_charges_its_virtual_end_step(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    report = run(RunConfig(suite="demo", model="oracle", max_steps=1, limit=4, store=store))
    with Store.open_for_reading(store) as db:
        sessions = db.load_sessions(report.run_id)
    suite = load_suite("demo")
    scenarios = {s.id: s for s in suite.scenarios}
    for session in sessions:
        scenario = scenarios[session.scenario_id]
        credit = session_credit(session, scenario, suite.domain_for(scenario))
        assert session.termination is TerminationReason.max_steps and not session.success
        assert credit.basis == "divergence" and credit.divergence is not None
        end = credit.steps[-1]
        assert end.decision == "end" and end.diverged and end.call_id is None
        n = len(credit.steps)
        assert all(math.isclose(s.credit or 0.0, 1 / n) for s in credit.steps[:-1])
        assert math.isclose(end.credit or 0.0, 0.0 - (n - 1) / n)
        assert math.isclose(sum(s.credit or 0.0 for s in credit.steps), credit.reward or 0.0)
