"""The end-of-run report reads the run's sessions from the store once, not once for its
metrics and again for its page (every session decoded twice after every run)."""

from __future__ import annotations

from pathlib import Path

import pytest

import sessionproof
from sessionproof.runs import RunConfig, _metrics, metrics, report, run
from sessionproof.runs._metrics import metrics_of
from sessionproof.store import Store
from sessionproof.suites import load_suite
from tests.runs.spy import spy


def test_the_report_loads_the_runs_sessions_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.duckdb"
    done = sessionproof.run_suite("demo", "oracle", limit=3, store=store)
    loads = spy(monkeypatch, Store, "load_sessions", lambda _db, run_id, *_, **__: run_id)
    path = report([done.run_id], tmp_path / "r.html", store)
    assert path.exists() and done.run_id in path.read_text(encoding="utf-8")
    assert loads == [done.run_id]


def test_metrics_of_loaded_sessions_equal_the_stored_metrics(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    done = sessionproof.run_suite("demo", "oracle", limit=3, store=store)
    with Store.open_for_reading(store) as db:
        manifest = db.get_run(done.run_id)
        sessions = db.load_sessions(done.run_id)
    assert metrics_of(manifest, sessions).to_json() == metrics(done.run_id, store).to_json()


def test_the_report_loads_the_runs_scenarios_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The metrics and the pattern mining both need the run's scenarios: one suite load.
    store = tmp_path / "s.duckdb"
    done = sessionproof.run_suite("demo", "oracle", limit=3, store=store)
    loads = spy(monkeypatch, _metrics, "load_suite", lambda name: name)
    report([done.run_id], tmp_path / "r.html", store)
    assert loads == ["demo"]


def test_a_run_reports_on_the_suite_it_ran_without_loading_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The run loads its suite once; its report uses those scenarios (no second load), and
    # they give the report the same metrics as scenarios loaded afresh.
    loads = spy(monkeypatch, _metrics, "load_suite", lambda name: name)
    store = tmp_path / "s.duckdb"
    done = run(RunConfig(suite="demo", model="oracle", limit=3, store=store), html=True)
    assert done.html_report is not None and Path(done.html_report).exists()
    assert loads == []
    with Store.open_for_reading(store) as db:
        manifest = db.get_run(done.run_id)
        sessions = db.load_sessions(done.run_id)
    suite = load_suite("demo").limited(3)
    held = _metrics.scenarios_for(manifest, sessions, suite)
    assert held[0] == {s.id: s for s in suite.scenarios} and held[2] == "suite demo"
    afresh = metrics_of(manifest, sessions)
    assert metrics_of(manifest, sessions, held).to_json() == afresh.to_json()
    assert loads == ["demo"]  # only the afresh computation loaded it
