"""Known injected causes on tau2-airline: the miner names the injected tool and class, its
advice is the guard's remedy, and the run's guarded arm no longer holds the finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionproof.errors import ConfigError
from sessionproof.faults import DriftKind, DriftPlan
from sessionproof.patterns import PatternsReport
from sessionproof.runs import RunConfig, patterns, run
from sessionproof.suites import load_suite
from sessionproof.suites.tau2._internal import Tau2Suite

AIRLINE_WRITE = "update_reservation_flights"
"""The airline write tool the gold actions use most (13 of 50 tasks)."""


def _mined(tmp_path: Path, arm: str, tool: str, trials: int, seed: int) -> PatternsReport:
    # Only the tasks whose gold actions use the tool: the others cannot meet the cause and
    # would only slow the test (they pass in both arms).
    full = load_suite("tau2-airline")
    scenarios = [s for s in full.scenarios if tool in {a.tool for a in s.criteria.gold_actions}]
    store = tmp_path / "s.duckdb"
    config = RunConfig(
        suite=Tau2Suite("tau2-airline", scenarios),
        model="oracle",
        trials=trials,
        seed=seed,
        arms=[arm, f"{arm} guard"],
        store=store,
    )
    report = patterns(run(config).run_id, store=store).report
    assert report.arm == arm
    return report


@pytest.mark.slow
def test_airline_rate_limited_write_is_the_top_finding_and_the_guard_removes_it(
    tmp_path: Path,
) -> None:
    arm = f"faults=rate_limited:25%@{AIRLINE_WRITE}"
    report = _mined(tmp_path, arm, AIRLINE_WRITE, trials=4, seed=5)
    assert report.findings, report.note
    top = report.findings[0]
    assert AIRLINE_WRITE in top.pattern and "rate_limited" in top.pattern
    assert top.q_value < 0.05 and top.stratified
    assert "guard: retry" in top.advice and "Retry-After" in top.advice
    guarded = top.guarded_arm
    assert guarded is not None and guarded["arm"] == f"{arm} guard"
    assert guarded["still_a_finding"] is False
    assert isinstance(guarded["failed_with_pattern"], int)
    assert guarded["failed_with_pattern"] < top.fail_support
    there = report.arms[f"{arm} guard"]
    assert there.failures < report.failures
    assert not any(AIRLINE_WRITE in f and "rate_limited" in f for f in there.findings)


def test_drift_spec_targets_one_tool_and_a_share_of_sessions() -> None:
    plan = DriftPlan.parse(f"rename_param:50%@1@{AIRLINE_WRITE}")
    assert (plan.kind, plan.at_turn, plan.tool, plan.share) == (
        DriftKind.rename_param,
        1,
        AIRLINE_WRITE,
        0.5,
    )
    drawn = [plan.drifts(seed) for seed in range(400)]
    assert 150 < sum(drawn) < 250 and drawn == [plan.drifts(s) for s in range(400)]
    assert all(DriftPlan.parse("rename_param@2").drifts(s) for s in range(50))
    for bad in ("rename_param:0%", "rename_param:150%@1@x", "rename_param@x"):
        with pytest.raises(ConfigError):
            DriftPlan.parse(bad)


@pytest.mark.slow
def test_drift_on_one_tool_is_the_top_finding_and_the_guarded_arm_is_measured(
    tmp_path: Path,
) -> None:
    arm = f"drift=rename_param:50%@1@{AIRLINE_WRITE}"
    report = _mined(tmp_path, arm, AIRLINE_WRITE, trials=4, seed=5)
    assert report.findings, report.note
    top = report.findings[0]
    assert f"drift:rename_param:{AIRLINE_WRITE}" in top.tokens
    assert top.q_value < 0.05 and top.stratified
    assert "re-read tool schemas" in top.advice and "guard: repair" in top.advice
    # Only the targeted tool drifted, in about half the sessions.
    drifted = {t for f in report.findings for t in f.tokens if t.startswith("drift:")}
    assert drifted == {f"drift:rename_param:{AIRLINE_WRITE}"}
    guarded = top.guarded_arm
    assert guarded is not None and guarded["arm"] == f"{arm} guard"
    assert f"guarded arm {arm + ' guard'!r} measured" in top.advice
    held, failed = guarded["sessions_with_pattern"], guarded["failed_with_pattern"]
    assert isinstance(held, int) and isinstance(failed, int) and held > 0
    assert f"{failed}/{held} sessions with it failed" in top.advice
    # Whether the pattern still precedes failure there is its own within-scenario test, not
    # only membership in that arm's (redundancy-filtered) findings.
    p_there = guarded["p_value"]
    assert isinstance(p_there, float)
    assert guarded["still_precedes_failure"] is (bool(guarded["still_a_finding"]) or p_there < 0.05)
