"""Advice from motifs: ranked by failures covered, supported or candidate, and the guarded
arm's measured failure rate beside the mined arm's."""

from __future__ import annotations

from sessionproof.patterns import mine
from sessionproof.patterns._motif_advice import motif_advice
from sessionproof.patterns._motif_analysis import MotifAnalysis, MotifResult
from sessionproof.records import Session

from .motif_sessions import agent, call, session, user

ARM, GUARDED = "faults=5%", "faults=5% guard"


def _blind(verdict: bool, scenario: str, arm: str) -> Session:
    w = call("cancel_order", {"order_id": "#W01"})
    return session(user("cancel #W01"), w, verdict=verdict, scenario=scenario, arm=arm)


def _careful(verdict: bool, scenario: str, arm: str) -> Session:
    turns = [user("cancel #W01"), agent("Cancel #W01?"), user("yes please")]
    w = call("cancel_order", {"order_id": "#W01"})
    return session(*turns, w, verdict=verdict, scenario=scenario, arm=arm)


def test_a_supported_motif_leads_with_the_guarded_arm_measured() -> None:
    sessions = []
    for k in range(6):
        sessions += [_blind(False, f"t{k}", ARM) for _ in range(3)]
        sessions += [_careful(True, f"t{k}", ARM) for _ in range(3)]
        sessions += [_blind(True, f"t{k}", GUARDED), _blind(True, f"t{k}", GUARDED)]
        sessions += [_blind(False, f"t{k}", GUARDED), _careful(True, f"t{k}", GUARDED)]
    report = mine(sessions, arm=ARM)
    assert (
        report.motif_note == "significant at q < 0.05 (within-scenario): write_without_confirmation"
    )
    first = report.motif_advice[0]
    assert first.investment == "confirm before write" and first.supported
    assert first.motifs == ["write_without_confirmation"]
    assert first.failures == 18 and first.covers_failures == 1.0
    assert "q " in first.evidence and "within-scenario" in first.evidence
    assert first.guarded == [
        f"guarded arm {GUARDED!r}: write_without_confirmation 6/18 failed (here 18/18 failed)"
    ]


def _result(name: str, investment: str, q: float, ci: list[float], failed: int) -> MotifResult:
    return MotifResult(
        name=name,
        failed=failed,
        passed=1,
        failed_judged=10,
        passed_judged=10,
        odds_ratio=(ci[0] + ci[1]) / 2,
        ci=ci,
        p_value=q,
        q_value=q,
        control="task-signature",
        why="w",
        advice=f"do {investment}",
        investment=investment,
    )


def test_candidates_rank_after_supported_and_by_failures_covered() -> None:
    analysis = MotifAnalysis(
        control="task-signature",
        motifs=[
            _result("a", "A", 0.3, [0.8, 5.0], 6),
            _result("b", "B", 0.01, [1.5, 9.0], 2),
            _result("c", "C", 0.4, [0.5, 3.0], 4),
            _result("d", "A", 0.5, [0.7, 2.0], 3),
        ],
        failed_ids={"a": ["1", "2", "3"], "b": ["1"], "c": ["4", "5"], "d": ["3", "6"]},
    )
    advice = motif_advice(analysis, failures=10)
    assert [a.investment for a in advice] == ["B", "A", "C"]
    assert [a.failures for a in advice] == [1, 4, 2]  # A: sessions 1, 2, 3 and 6
    assert advice[0].supported and not advice[1].supported
    assert advice[1].evidence.startswith("candidate, not established")
    assert advice[1].motifs == ["a", "d"]
