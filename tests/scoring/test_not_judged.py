"""One rule for sessions that were not judged, in every summary: in memory and from the store,
in arm comparisons, failure sources and progress lines."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from tests.store.factory import manifest, session

from sessionproof.cli._progress import RunProgress
from sessionproof.patterns._internal import tokenize
from sessionproof.records import CriterionResult, Outcome, Session, TerminationReason
from sessionproof.scoring import compare_arms, summarize, verdict_of
from sessionproof.scoring._internal import attribute_failures, summaries_by_arm
from sessionproof.store import Store

UNJUDGED = "no criterion can be checked on this domain"


def _with(s: Session, outcome: Outcome | None) -> Session:
    return s.model_copy(update={"outcome": outcome})


def _judged(scenario: str, trial: int, ok: bool, arm: str = "baseline") -> Session:
    passed = CriterionResult(name="db", passed=ok)
    return _with(
        session("r1", scenario, trial, arm),
        Outcome(success=ok, reward=float(ok), criteria=[passed]),
    )


def _mixed() -> list[Session]:
    """One pass, one fail, and three sessions nothing judged, each for its own reason."""
    return [
        _judged("a", 0, True),
        _judged("a", 1, False),
        _with(
            session("r1", "b", 0),
            Outcome(success=False, reward=0.0, criteria=[], not_judged=UNJUDGED),
        ),
        _with(session("r1", "b", 1), None),
        session("r1", "c", 0, success=None, termination=TerminationReason.infra_error),
    ]


def _stored(tmp_path: Path, sessions: list[Session]) -> Store:
    db = Store.open(tmp_path / "s.duckdb")
    db.create_run(manifest("r1", sorted({s.scenario_id for s in sessions}), trials=2))
    db.write_sessions(sessions)
    return db


def test_sessions_nothing_judged_are_counted_apart_by_reason_in_memory_and_from_the_store(
    tmp_path: Path,
) -> None:
    sessions = _mixed()
    with _stored(tmp_path, sessions) as db:
        rows = db.session_rows("r1")
    for summary in (summarize(sessions), summarize(rows)):
        assert (summary.sessions, summary.judged, summary.successes) == (5, 2, 1)
        assert summary.session_accuracy == 0.5
        assert summary.not_judged == 3 and summary.infra_errors == 1
        assert summary.not_judged_reasons == {"infra_error": 1, "no outcome": 1, UNJUDGED: 1}
        # Scenario b has no judged trial: pass^1 is a's alone (1 of 2), never b's 0.
        assert summary.pass_hat_k == {"1": 0.5, "2": 0.0}
    assert [verdict_of(r) for r in rows] == [True, False, None, None, None]


def test_accuracy_over_zero_judged_sessions_is_none_never_zero(tmp_path: Path) -> None:
    sessions = _mixed()[2:]
    with _stored(tmp_path, sessions) as db:
        rows = db.session_rows("r1")
    for summary in (summarize(sessions), summarize(rows)):
        assert summary.judged == 0 and summary.not_judged == 3
        assert summary.session_accuracy is None and summary.ci95 is None
        assert summary.pass_hat_k == {} and summary.evaluated_accuracy is None


def test_a_failure_only_on_an_unevaluated_criterion_shows_the_accuracy_over_evaluated_ones(
    tmp_path: Path,
) -> None:
    criteria = [
        CriterionResult(name="db", passed=True),
        CriterionResult(name="nl_assertion", passed=None),
    ]
    open_ended = _with(session("r1", "b", 0), Outcome(success=False, reward=0.0, criteria=criteria))
    sessions = [_judged("a", 0, True), _judged("a", 1, False), open_ended]
    with _stored(tmp_path, sessions) as db:
        rows = db.session_rows("r1")
    for summary in (summarize(sessions), summarize(rows)):
        assert summary.session_accuracy == 1 / 3
        assert summary.unevaluated_sessions == 1
        assert summary.evaluated_successes == 2 and summary.evaluated_accuracy == 2 / 3
    assert [r.unevaluated for r in rows] == [0, 0, 1]


def test_arms_are_summarized_apart_and_pass_k_never_exceeds_one_arms_trials() -> None:
    sessions = [
        _judged(sid, trial, ok, arm)
        for arm, ok in (("baseline", True), ("faults=30%", False))
        for sid in ("a", "b")
        for trial in (0, 1)
    ]
    by_arm = summaries_by_arm(sessions, ["baseline", "faults=30%"])
    assert list(by_arm) == ["baseline", "faults=30%"]
    assert by_arm["baseline"].session_accuracy == 1.0
    assert by_arm["faults=30%"].session_accuracy == 0.0
    assert all(set(s.pass_hat_k) == {"1", "2"} for s in by_arm.values())


def test_arm_comparisons_leave_pairs_nothing_judged_out() -> None:
    base = [_judged("a", 0, True), _judged("b", 0, True)]
    other = [
        _judged("a", 0, False, "faults=30%"),
        _with(session("r1", "b", 0, "faults=30%"), None),
    ]
    report = compare_arms(
        {"baseline": base, "faults=30%": other}, {"baseline": base, "faults=30%": other}
    )
    paired = report.paired[0]
    assert paired.pairs == 1 and paired.rate_b == 0.0
    assert report.arms["faults=30%"].summary.not_judged == 1


def test_a_session_not_judged_is_no_failure_to_attribute() -> None:
    unjudged = _with(session("r1", "b", 0), Outcome(success=False, reward=0.0, not_judged=UNJUDGED))
    found = attribute_failures([unjudged, _judged("a", 0, False)], {}, {})
    assert [a.session_id for a in found.sessions] == ["a.t0.baseline"] and found.failed == 1


def test_progress_lines_say_not_judged_with_the_reason() -> None:
    out = io.StringIO()
    console = Console(file=out, width=20)
    crashed = session("r1", "c", 0, success=None, termination=TerminationReason.infra_error)
    crashed = crashed.model_copy(update={"termination_detail": "provider HTTP 503\nretry later"})
    with RunProgress(console, "run") as progress:
        progress.start(3, 0)
        for s in (_mixed()[2], _mixed()[3], crashed):
            progress.advance(s)
    assert out.getvalue().splitlines() == [
        f"[1/3] b.t0.baseline not judged (user_stop; {UNJUDGED}); running accuracy –",
        "[2/3] b.t1.baseline not judged (user_stop; no outcome); running accuracy –",
        "[3/3] c.t0.baseline not judged (infra_error: provider HTTP 503); running accuracy –",
    ]


def test_the_running_accuracy_of_a_multi_arm_run_is_its_arms_own() -> None:
    out = io.StringIO()
    with RunProgress(Console(file=out, width=20), "run") as progress:
        progress.start(4, 0)
        for s in (_judged("a", 0, True), _judged("a", 0, False, "faults=30%")):
            progress.advance(s)
        progress.advance(_judged("b", 0, True))
    assert out.getvalue().splitlines() == [
        "[1/4] a.t0.baseline pass (user_stop); running accuracy 100%",
        "[2/4] a.t0.faults=30% fail (user_stop); running accuracy 0% (arm faults=30%)",
        "[3/4] b.t0.baseline pass (user_stop); running accuracy 100% (arm baseline)",
    ]


def test_pattern_mining_does_not_take_a_session_nothing_judged_for_a_failure() -> None:
    unjudged, no_outcome = _mixed()[2:4]
    assert tokenize(unjudged).success is None and tokenize(no_outcome).success is None
    assert tokenize(_judged("a", 0, False)).success is False


def test_on_a_terminal_an_infra_error_is_said_above_the_bar_with_its_reason() -> None:
    out = io.StringIO()
    console = Console(file=out, width=120, force_terminal=True, color_system=None)
    crashed = session("r1", "c", 0, success=None, termination=TerminationReason.infra_error)
    crashed = crashed.model_copy(update={"termination_detail": "provider HTTP 503"})
    with RunProgress(console, "run") as progress:
        progress.start(2, 0)
        progress.advance(_judged("a", 0, True))
        progress.advance(crashed)
    assert "c.t0.baseline not judged (infra_error: provider HTTP 503)" in out.getvalue()


def test_the_run_list_counts_no_session_without_a_verdict_as_a_failure(tmp_path: Path) -> None:
    with _stored(tmp_path, _mixed()) as db:
        (listed,) = db.list_runs()
    assert (listed.sessions_done, listed.successes, listed.infra_errors) == (5, 1, 1)
    assert listed.accuracy == 0.5  # 1 of the 2 judged; not 1 of 4
