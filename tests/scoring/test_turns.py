"""Per-turn accuracy in both readings, from per-turn verdicts (no benchmark involved)."""

from __future__ import annotations

from sessionproof.records import Outcome, Session, TerminationReason
from sessionproof.records._internal import TurnResult
from sessionproof.scoring import run_metrics
from sessionproof.scoring._internal import TURN_DEFINITIONS, turn_report


def _session(sid: str, turns: list[TurnResult], success: bool, **kw: object) -> Session:
    return Session(
        run_id="r",
        session_id=sid,
        scenario_id=sid.split(".")[0],
        trial=0,
        arm="baseline",
        model="m",
        termination=kw.get("termination", TerminationReason.user_stop),  # type: ignore[arg-type]
        outcome=Outcome(success=success, reward=float(success), turns=turns),
    )


def _own(*passed: bool) -> list[TurnResult]:
    return [TurnResult(turn=i, passed=p) for i, p in enumerate(passed)]


def test_both_readings_and_session_accuracy() -> None:
    sessions = [
        _session("a.t0", _own(True, False, False), False),
        _session("b.t0", _own(True, True, True), True),
        _session("a@turn1.t0", [TurnResult(turn=1, passed=False, gold_prefix=True)], False),
        _session("a@turn2.t0", [TurnResult(turn=2, passed=True, gold_prefix=True)], True),
    ]
    report = turn_report(sessions)
    assert report is not None
    assert [(p.turn, p.passed, p.sessions) for p in report.own_history] == [
        (0, 2, 2),
        (1, 1, 2),
        (2, 1, 2),
    ]
    assert [(p.turn, p.accuracy) for p in report.gold_prefix] == [(1, 0.0), (2, 1.0)]
    assert report.session_accuracy == 0.5
    assert (report.own_history_sessions, report.gold_prefix_sessions) == (2, 2)


def test_no_per_turn_verdicts_no_report_and_infra_errors_left_out() -> None:
    assert turn_report([_session("a.t0", [], True)]) is None
    infra = _session("a.t0", _own(False), False, termination=TerminationReason.infra_error)
    assert turn_report([infra]) is None


def test_metrics_report_carries_the_turns_and_their_definitions() -> None:
    report = run_metrics([_session("a.t0", _own(True, False), False)], {}, lambda s: None)  # type: ignore[arg-type,return-value]
    assert report.turns is not None and report.turns.own_history[1].accuracy == 0.0
    for name in TURN_DEFINITIONS:
        assert name in report.definitions
