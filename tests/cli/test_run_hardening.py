"""`sessionproof run` against hostile agents, hung agents and misused `--resume`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.domains.demo._internal import load_scenarios
from sessionproof.records import EventKind
from sessionproof.store import RunManifest, Store
from sessionproof.suites import load_suite
from tests.engine import hostile

ROOT = Path(__file__).resolve().parents[2]
DEMO_YAML = ROOT / "src" / "sessionproof" / "domains" / "demo" / "scenarios.yaml"
runner = CliRunner()


def run_json(*args: str) -> dict[str, object]:
    result = runner.invoke(app, ["run", *args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The real console entry point (its error boundary included) in a subprocess."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    return subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )


def pending_run(store: Path, model: str, limit: int, **options: object) -> str:
    """A run that was created and then killed before any session finished."""
    suite = load_suite("demo").limited(limit)
    manifest = RunManifest(
        command="run",
        suite="demo",
        suite_hash=suite.content_hash(),
        model=model,
        limit=limit,
        scenario_ids=[s.id for s in suite.scenarios],
        options={"tool_mode": "auto", **options},
    )
    with Store.open(store) as db:
        return db.create_run(manifest)


@pytest.mark.parametrize("name", hostile.HOSTILE)
def test_hostile_agent_costs_one_session_and_the_run_finishes(tmp_path: Path, name: str) -> None:
    store = tmp_path / "s.duckdb"
    model = f"python:tests.engine.hostile:{name}"
    out = run_json("--suite", "demo", "--limit", "3", "--model", model, "--store", str(store))
    assert out["sessions"] == 3
    run_id = str(out["run_id"])
    with Store.open(store, read_only=True) as db:
        assert db.get_run(run_id).status == "finished"
        sessions = {s.scenario_id: s for s in db.load_sessions(run_id)}
    bad = sessions.pop(hostile.TARGET)
    assert [e.payload.error_class for e in bad.of_kind(EventKind.agent_error)][:1] == [
        "malformed_output"
    ]
    assert all(s.success for s in sessions.values()) and len(sessions) == 2

    again = run_json("--resume", run_id, "--store", str(store))
    assert again["resumed_sessions"] == 3 and again["sessions"] == 3


def test_resume_runs_the_hostile_session_it_had_left(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    run_id = pending_run(store, "python:tests.engine.hostile:numpy_int", limit=3)
    out = run_json("--resume", run_id, "--store", str(store))
    assert out["resumed_sessions"] == 0 and out["sessions"] == 3
    with Store.open(store, read_only=True) as db:
        assert db.get_run(run_id).status == "finished"


@pytest.mark.slow
def test_agent_timeout_ends_the_hung_session_and_resume_keeps_it(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    model = "python:tests.engine.hostile:hangs"
    out = run_json(
        "--limit", "2", "--model", model, "--agent-timeout", "0.2", "--store", str(store)
    )
    run_id = str(out["run_id"])
    with Store.open(store, read_only=True) as db:
        assert db.get_run(run_id).options["agent_timeout"] == 0.2
        [bad] = db.load_sessions(run_id, session_id=f"{hostile.TARGET}.t0")
    assert [e.payload.error_class for e in bad.of_kind(EventKind.agent_error)] == ["timeout"]
    assert out["sessions"] == 2

    # A killed run resumed later keeps its timeout; with the default the resume would hang.
    pending = pending_run(store, model, limit=2, agent_timeout=0.2)
    resumed = cli("run", "--resume", pending, "--store", str(store), "--json", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["sessions"] == 2


def test_agent_raising_cancelled_error_does_not_crash_the_run(tmp_path: Path) -> None:
    out = run_json(
        "--limit",
        "2",
        "--model",
        "python:tests.engine.hostile:cancels",
        "--store",
        str(tmp_path) + "/s.duckdb",
    )
    assert out["sessions"] == 2


@pytest.mark.slow
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_bad_agent_timeout_is_one_clear_line(tmp_path: Path, value: str) -> None:
    proc = cli(
        "run", "--model", "oracle", "--agent-timeout", value, "--store", "x.duckdb", cwd=tmp_path
    )
    assert proc.returncode == 2, proc.stderr
    assert "--agent-timeout" in proc.stderr and "No such option" not in proc.stderr
    if value != "soon":  # "soon" is refused by the option parser, in its own words
        assert "positive, finite number of seconds" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "x.duckdb").exists()  # refused before a run was created


def test_n_steps_counts_agent_decisions(tmp_path: Path) -> None:
    # order-status-shipped with the oracle, counted by hand: turn 0 has two parallel calls
    # (find_customer_by_email, get_order) and one reply with the facts; turn 1 has one reply;
    # then the user stops. Four decisions; the `end` and `verdict` events are none.
    first = load_scenarios()[0]
    assert first.id == "order-status-shipped" and len(first.criteria.gold_actions) == 2
    store = tmp_path / "s.duckdb"
    out = run_json("--limit", "1", "--model", "oracle", "--store", str(store))
    with Store.open(store, read_only=True) as db:
        [row] = db.session_rows(str(out["run_id"]))
        [session] = db.load_sessions(str(out["run_id"]))
    replies = [e for e in session.of_kind(EventKind.assistant_message) if not e.payload.tool_calls]
    assert len(session.tool_calls()) == 2 and len(replies) == 2
    assert row.n_steps == 4


@pytest.mark.slow
def test_resume_of_a_score_run_says_what_it_is(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    with Store.open(store) as db:
        run_id = db.create_run(RunManifest(command="score", suite=str(tmp_path / "t.json")))
    proc = cli("run", "--resume", run_id, "--store", str(store), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert f"{run_id} is a score run" in proc.stderr
    assert "only runs made by `sessionproof run` can be resumed" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_resume_refuses_flags_it_would_ignore(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    run_id = pending_run(store, "oracle", limit=1)
    proc = cli(
        "run",
        "--resume",
        run_id,
        "--trials",
        "3",
        "--model",
        "local",
        "--agent-timeout",
        "5",
        "--store",
        str(store),
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stderr
    assert "--resume cannot be combined with --model, --trials, --agent-timeout" in proc.stderr
    with Store.open(store, read_only=True) as db:
        assert db.session_rows(run_id) == []  # refused before anything ran

    allowed = cli(
        "run", "--resume", run_id, "--concurrency", "1", "--store", str(store), cwd=tmp_path
    )
    assert allowed.returncode == 0, allowed.stderr


@pytest.mark.slow
def test_resume_a_relative_suite_file_from_another_directory(tmp_path: Path) -> None:
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    (here / "suites").mkdir(parents=True)
    elsewhere.mkdir()
    shutil.copy(DEMO_YAML, here / "suites" / "mine.yaml")
    store = tmp_path / "s.duckdb"
    first = cli(
        "run",
        "--suite",
        "suites/mine.yaml",
        "--limit",
        "2",
        "--model",
        "oracle",
        "--store",
        str(store),
        "--json",
        cwd=here,
    )
    assert first.returncode == 0, first.stderr
    run_id = json.loads(first.stdout)["run_id"]
    with Store.open(store, read_only=True) as db:
        assert db.get_run(run_id).suite == str(here / "suites" / "mine.yaml")
    resumed = cli("run", "--resume", run_id, "--store", str(store), "--json", cwd=elsewhere)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["resumed_sessions"] == 2


def test_builtin_suite_names_stay_names(tmp_path: Path) -> None:
    out = run_json("--limit", "1", "--model", "oracle", "--store", str(tmp_path / "s.duckdb"))
    with Store.open(tmp_path / "s.duckdb", read_only=True) as db:
        assert db.get_run(str(out["run_id"])).suite == "demo"
