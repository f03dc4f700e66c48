"""`import` summaries follow the not-judged rule and keep a multi-arm trace's arms apart."""

from __future__ import annotations

from pathlib import Path

from sessionproof.runs import RunConfig, export_traces, import_traces, run

ARMS = ["baseline", "faults=30%"]


def _trace(tmp_path: Path) -> Path:
    store = tmp_path / "run.duckdb"
    done = run(RunConfig(suite="demo", model="oracle", limit=2, trials=2, arms=ARMS, store=store))
    trace = tmp_path / "trace.json"
    export_traces(done.run_id, store=store, output=trace, content=True)
    return trace


def test_a_multi_arm_trace_is_imported_with_one_summary_per_arm(tmp_path: Path) -> None:
    found = import_traces(_trace(tmp_path), store=tmp_path / "i.duckdb")
    doc = found.to_json()
    assert list(doc["arms"]) == ARMS and "session_accuracy" not in doc
    assert [s.sessions for s in found.summary_by_arm.values()] == [4, 4]
    assert all(set(s.pass_hat_k) <= {"1", "2"} for s in found.summary_by_arm.values())
    assert found.summary == found.summary_by_arm["baseline"]


def test_an_unlabelled_import_has_no_accuracy_rather_than_zero(tmp_path: Path) -> None:
    found = import_traces(_trace(tmp_path), store=tmp_path / "i.duckdb", label_from="user.x")
    for summary in found.summary_by_arm.values():
        assert summary.session_accuracy is None and summary.judged == 0
        assert summary.not_judged_reasons == {"no outcome": 4}
    assert all(a["session_accuracy"] is None for a in found.to_json()["arms"].values())
