"""Known injected causes on tau2-airline: the miner names the injected tool and class, its
advice is the guard's remedy, and the run's guarded arm no longer holds the finding."""

from __future__ import annotations

from pathlib import Path

from sessionproof.patterns import PatternsReport
from sessionproof.runs import RunConfig, patterns, run
from sessionproof.suites import load_suite
from sessionproof.suites.tau2 import Tau2Suite

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
