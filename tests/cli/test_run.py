"""`sessionproof run`, `runs`, `show` end to end through the CLI."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.domains.demo._internal import load_scenarios

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def run_json(*args: str) -> dict[str, object]:
    result = runner.invoke(app, ["run", *args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_oracle_solves_demo(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    out = run_json("--suite", "demo", "--model", "oracle", "--store", str(store))
    assert out["session_accuracy"] == 1.0
    assert out["sessions"] == len(load_scenarios()) >= 12
    assert out["infra_errors"] == 0
    assert out["pass_hat_k"] == {"1": 1.0}
    con = duckdb.connect(str(store), read_only=True)
    n = con.execute("select count(*) from sessions").fetchone()
    assert n is not None and n[0] == out["sessions"]


@pytest.mark.slow
def test_wrong_agent_fails_exactly_the_expected_scenarios(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    scenarios = load_scenarios()
    for agent, should_fail in [
        ("mute", {s.id for s in scenarios if s.criteria.communicate}),
        (
            "off_by_one",
            {
                s.id
                for s in scenarios
                if any(a.tool == "cancel_order" for a in s.criteria.gold_actions)
            },
        ),
    ]:
        out = run_json("--model", f"python:tests.cli.agents:{agent}", "--store", str(store))
        rows = json.loads(
            runner.invoke(app, ["show", str(out["run_id"]), "--store", str(store), "--json"]).stdout
        )
        assert rows["sessions"] == len(scenarios)
        con = duckdb.connect(str(store), read_only=True)
        failed = {
            r[0]
            for r in con.execute(
                "select scenario_id from sessions where run_id = ? and not success",
                [out["run_id"]],
            ).fetchall()
        }
        con.close()
        assert should_fail, agent
        assert failed == should_fail, agent


def test_trials_give_pass_hat_k(tmp_path: Path) -> None:
    out = run_json(
        "--model", "oracle", "--trials", "3", "--limit", "2", "--store", str(tmp_path / "s")
    )
    assert out["sessions"] == 6
    assert set(out["pass_hat_k"]) == {"1", "2", "3"}  # type: ignore[arg-type]


@pytest.mark.slow
def test_runs_and_show(tmp_path: Path) -> None:
    store = str(tmp_path / "s.duckdb")
    out = run_json("--model", "oracle", "--limit", "3", "--store", store)
    run_id = str(out["run_id"])
    listed = runner.invoke(app, ["runs", "--store", store, "--json"])
    assert listed.exit_code == 0
    assert [r["run_id"] for r in json.loads(listed.stdout)] == [run_id]
    shown = runner.invoke(app, ["show", run_id[:12], "--store", store])
    assert shown.exit_code == 0 and "session accuracy" in shown.stdout
    first = load_scenarios()[0].id
    transcript = runner.invoke(app, ["show", run_id, "--session", f"{first}.t0", "--store", store])
    assert transcript.exit_code == 0, transcript.output
    assert "turn 0" in transcript.stdout and "verdict" in transcript.stdout
    assert "user_stop" in transcript.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--suite", "nope"], "unknown suite 'nope'"),
        (["run", "--model", "oracle", "--suite", "missing.yaml"], "no such suite file"),
        (["run", "--model", "bogus:thing"], "bogus"),
        (["run", "--model", "oracle", "--tool-mode", "weird"], "--tool-mode"),
        (["show", "r-missing"], "no store"),
    ],
)
def test_bad_input_is_one_clear_line(tmp_path: Path, args: list[str], message: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", *args, "--store", str(tmp_path / "x.duckdb")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_suite_file_names_the_problem(tmp_path: Path) -> None:
    bad = tmp_path / "suite.yaml"
    bad.write_text("- id: x\n  domain: demo\n  user: {turns: []}\n")
    result = runner.invoke(
        app, ["run", "--suite", str(bad), "--model", "oracle", "--store", str(tmp_path / "s")]
    )
    assert result.exit_code != 0
    assert "scenario #0" in str(result.exception) or "scenario #0" in result.output


@pytest.mark.slow
def test_resume_after_sigkill(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [
        sys.executable,
        "-m",
        "sessionproof.cli",
        "run",
        "--model",
        "python:tests.cli.agents:slow",
        "--trials",
        "3",
        "--concurrency",
        "2",
        "--store",
        str(store),
        "--json",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    run_id = None
    assert proc.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and run_id is None:
        line = proc.stderr.readline()
        m = re.search(r"run (r\S+):", line)
        run_id = m.group(1) if m else None
    assert run_id, "the run never announced its id"
    finished = 0
    while time.monotonic() < deadline and finished < 3:  # a few sessions done, most not
        if re.match(r"\[\d+/\d+\] ", proc.stderr.readline()):
            finished += 1
    assert finished == 3, "no progress lines before the deadline"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    resumed = subprocess.run(
        [
            sys.executable,
            "-m",
            "sessionproof.cli",
            "run",
            "--resume",
            run_id,
            "--store",
            str(store),
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    out = json.loads(resumed.stdout)
    n = len(load_scenarios())
    assert 0 < out["resumed_sessions"] < 3 * n  # the kill landed mid-run
    assert out["sessions"] == 3 * n
    con = duckdb.connect(str(store), read_only=True)
    keys = con.execute(
        "select scenario_id, trial, count(*) from sessions where run_id = ? group by 1, 2", [run_id]
    ).fetchall()
    assert len(keys) == 3 * n
    assert all(k[2] == 1 for k in keys)
