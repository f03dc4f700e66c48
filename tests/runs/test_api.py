"""The Python API goes through the same service as the CLI: it resumes, runs arms, and the
metrics of a stored run are a library call."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import sessionproof
from sessionproof.cli._internal import app
from sessionproof.errors import ConfigError
from sessionproof.runs import RunConfig, metrics, run
from sessionproof.store import Store

runner = CliRunner()


def _forget(store: Path, run_id: str, session_id: str) -> None:
    """Make the run look killed before `session_id` was written."""
    con = duckdb.connect(str(store))
    con.execute("DELETE FROM events WHERE run_id = ? AND session_id = ?", [run_id, session_id])
    con.execute("DELETE FROM sessions WHERE run_id = ? AND session_id = ?", [run_id, session_id])
    con.execute("UPDATE runs SET status = 'running' WHERE run_id = ?", [run_id])
    con.close()


def test_run_suite_resumes_a_killed_run(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    first = sessionproof.run_suite("demo", "oracle", limit=3, trials=2, store=store)
    assert len(first.sessions) == 6
    lost = sorted(s.session_id for s in first.sessions)[2]
    _forget(store, first.run_id, lost)

    again = sessionproof.run_suite(resume=first.run_id, store=store)
    assert again.run_id == first.run_id
    assert sorted(s.session_id for s in again.sessions) == sorted(
        s.session_id for s in first.sessions
    )
    assert again.summary.sessions == 6 and again.summary.session_accuracy == 1.0
    with Store.open(store, read_only=True) as db:
        assert db.get_run(first.run_id).status == "finished"
        assert len(db.session_rows(first.run_id)) == 6  # the lost one, once; no duplicates


def test_run_suite_resume_keeps_the_run_s_model(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    first = sessionproof.run_suite("demo", "oracle", limit=1, store=store)
    with pytest.raises(ConfigError, match="used oracle"):
        sessionproof.run_suite(
            agent="python:tests.cli.agents:mute", resume=first.run_id, store=store
        )
    with pytest.raises(ConfigError, match="needs the store"):
        sessionproof.run_suite(resume=first.run_id)


def test_library_run_refuses_a_bad_model_before_recording_anything(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    with pytest.raises(ConfigError):
        run(RunConfig(model="nonsense:thing", limit=1, store=store))
    with Store.open(store, read_only=True) as db:
        assert db.list_runs() == []


def test_metrics_is_what_show_metrics_prints(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    done = sessionproof.run_suite(
        "demo", "oracle", limit=2, store=store, arms=["baseline", "faults=25%"]
    )
    shown = runner.invoke(app, ["show", done.run_id, "--metrics", "--json", "--store", str(store)])
    assert shown.exit_code == 0, shown.output
    found = metrics(done.run_id, store=store)
    assert list(found.arms) == ["baseline", "faults=25%"]
    assert found.sessions == 4 and found.scenarios.available == 2
    assert found.to_json() == json.loads(shown.stdout)
