"""Fault detection and recovery reach `run` (table and --json), `show --metrics`, the HTML
report and the trace's evaluation events, per arm, on a real run with injected faults."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.domains import get_domain
from sessionproof.scoring._internal import faults_report
from sessionproof.scoring.stats import wilson_interval
from sessionproof.store import Store
from sessionproof.telemetry._evals import session_evaluations

runner = CliRunner()
FAULTY = "faults=timeout:60%,server_error:30%"


def _run(store: Path, *more: str) -> Any:
    result = runner.invoke(
        app,
        [
            *("run", "--model", "oracle", "--limit", "4", "--seed", "3"),
            *("--store", str(store), "--arm", "baseline", "--arm", FAULTY, *more),
        ],
    )
    assert result.exit_code == 0, result.output
    return result


def test_run_reports_detection_and_recovery_per_arm(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    data = json.loads(_run(store, "--json").stdout)
    arms = data["arms"]
    assert "faults" not in arms["baseline"]  # no fault met: nothing to report
    faults = arms[FAULTY]["faults"]
    with Store.open_for_reading(store) as db:
        sessions = [s for s in db.load_sessions(data["run_id"]) if s.arm == FAULTY]
    domain = get_domain("demo")
    writes = {t.name for t in domain.tools() if t.write}
    expected = faults_report(sessions, lambda s: writes)
    assert expected is not None and expected.overall.detection.n > 0
    assert faults == expected.model_dump(mode="json")
    detection = faults["overall"]["detection"]
    assert set(faults["by_kind"]) <= {"timeout", "server_error"}
    assert detection["ci95"] == list(wilson_interval(detection["hits"], detection["n"]))
    assert faults["implicit"]["detection"]["n"] == 0

    metrics = json.loads(
        runner.invoke(
            app, ["show", data["run_id"], "--store", str(store), "--metrics", "--json"]
        ).stdout
    )
    assert metrics["arms"][FAULTY]["faults"] == faults
    assert "faults" not in metrics["arms"]["baseline"]
    assert "fault_recovery_rate" in metrics["definitions"]

    text = runner.invoke(app, ["show", data["run_id"], "--store", str(store), "--metrics"])
    assert "fault detection and recovery" in text.output

    for session in sessions:
        names = {e.name: e for e in session_evaluations(session, None, domain, replay=False)}
        found = faults_report([session], lambda s: writes)
        if found is None or session.infra_error:
            assert "fault_detection_rate" not in names
            continue
        assert names["fault_detection_rate"].value == found.overall.detection.rate
        if session.verdict is not None:
            assert names["fault_recovery_rate"].value == found.overall.recovery.rate


def test_the_run_table_shows_the_faulted_arm(tmp_path: Path) -> None:
    result = _run(tmp_path / "s.duckdb")
    assert "fault detection and recovery" in result.output
    lines = [line for line in result.output.splitlines() if "faults=" in line and "all" in line]
    assert lines, result.output


def test_a_one_arm_run_under_faults_reports_them_too(tmp_path: Path) -> None:
    def run(*more: str) -> dict[str, Any]:
        result = runner.invoke(
            app, ["run", "--model", "oracle", "--limit", "3", "--no-report", "--json", *more]
        )
        assert result.exit_code == 0, result.output
        data: dict[str, Any] = json.loads(result.stdout)
        return data

    stored = run("--faults", "timeout:60%", "--store", str(tmp_path / "s.duckdb"))
    (arm,) = stored["arms"].values()
    assert stored["faults"] == arm["faults"]
    assert stored["faults"]["by_kind"]["timeout"]["detection"]["n"] > 0
    in_memory = run("--faults", "timeout:60%")
    assert in_memory["faults"] == stored["faults"]  # same seed, same faults, same rules
    plain = run("--store", str(tmp_path / "p.duckdb"))
    assert "faults" not in plain and all("faults" not in a for a in plain["arms"].values())
    text = runner.invoke(app, ["run", "--model", "oracle", "--limit", "3", "--faults", "60%"])
    assert "fault detection and recovery" in text.output
