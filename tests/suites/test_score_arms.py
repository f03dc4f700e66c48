"""`score` of a file holding several arms gives each arm's accuracy and no pooled one."""

from __future__ import annotations

from pathlib import Path

import sessionproof
from sessionproof.runs import export_traces, score
from sessionproof.store import Store


def _stored_rates(store: Path, run_id: str) -> dict[str, float]:
    with Store.open_for_reading(store) as db:
        sessions = [s for s in db.load_sessions(run_id) if s.judged]
    rates = {}
    for arm in sorted({s.arm for s in sessions}):
        verdicts = [bool(s.verdict) for s in sessions if s.arm == arm]
        rates[arm] = sum(verdicts) / len(verdicts)
    return rates


def test_two_arms_are_scored_apart_never_pooled(tmp_path: Path) -> None:
    store = tmp_path / "runs.duckdb"
    ran = sessionproof.run_suite(
        "demo", "oracle", limit=4, trials=2, arms=["baseline", "faults=60%"], seed=3, store=store
    )
    trace = tmp_path / "trace.json"
    export_traces(ran.run_id, store=store, output=trace, content=True)

    report = score(trace, store=tmp_path / "scored.duckdb")
    assert report.sessions == 16
    assert report.session_accuracy is None  # two arms: no single figure
    assert set(report.arms) == {"baseline", "faults=60%"}
    assert {a: v.graded for a, v in report.arms.items()} == {"baseline": 8, "faults=60%": 8}
    rates = _stored_rates(tmp_path / "scored.duckdb", report.run_id)
    assert {a: v.session_accuracy for a, v in report.arms.items()} == rates
    assert rates["baseline"] != rates["faults=60%"]  # pooling them would hide the gap
    summary = report.summary()
    assert summary["session_accuracy"] is None
    assert summary["arms"]["baseline"] == {"graded": 8, "session_accuracy": rates["baseline"]}


def test_one_arm_keeps_its_single_accuracy(tmp_path: Path) -> None:
    store = tmp_path / "runs.duckdb"
    ran = sessionproof.run_suite("demo", "oracle", limit=3, store=store)
    trace = tmp_path / "trace.json"
    export_traces(ran.run_id, store=store, output=trace, content=True)
    report = score(trace, store=None)
    assert report.session_accuracy == 1.0 and report.arms == {}
    assert "arms" not in report.summary()
