"""`export --format atif`: ATIF v1.7 trajectories that `import` reads back whole — the same
sessions (faults, drift, guard decisions and all), the same verdicts, the same metrics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.domains import get_domain
from sessionproof.records import Session
from sessionproof.runs import RunConfig, RunReport, export_traces, import_traces, metrics
from sessionproof.store import Store

AGENT = "python:tests.runs.rollout_agents:mixed"
ARMS = ["faults=rate_limited:30%,not_found:10% guard", "drift=rename_param"]
POLICY = get_domain("demo").create().policy


@pytest.fixture(scope="module")
def atif_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunReport]:
    """The demo suite under faults with the guard, and under drift; passes, failures and
    sessions with no verdict."""
    store = tmp_path_factory.mktemp("atif") / "s.duckdb"
    return store, run_config(store)


def run_config(store: Path) -> RunReport:
    from sessionproof.runs import run

    return run(RunConfig(suite="demo", model=AGENT, arms=ARMS, trials=2, store=store))


def _comparable(session: Session) -> dict[str, Any]:
    data = session.model_dump(mode="json", exclude={"run_id"})
    for event in data["events"]:
        event.pop("run_id")
    return data


def _metrics(run_id: str, store: Path) -> dict[str, Any]:
    found = metrics(run_id, store=store).to_json()
    return {k: v for k, v in found.items() if k not in ("run_id", "command")}


def _sessions(store: Path, run_id: str) -> list[dict[str, Any]]:
    with Store.open_for_reading(store) as db:
        return sorted((_comparable(s) for s in db.load_sessions(run_id)), key=str)


@pytest.mark.slow
def test_export_then_import_keeps_sessions_verdicts_and_metrics(
    atif_run: tuple[Path, RunReport], tmp_path: Path
) -> None:
    store, report = atif_run
    out = tmp_path / "t.json"
    assert export_traces(report.run_id, store=store, fmt="atif", output=out) == 64
    before = _sessions(store, report.run_id)
    kinds = {e["kind"] for s in before for e in s["events"]}
    assert {"fault_injected", "guard_decision", "drift_applied", "verdict"} <= kinds
    assert any(s["termination"] == "infra_error" for s in before)  # unjudged ones too
    back = tmp_path / "back.duckdb"
    imported = import_traces(out, store=back)  # detected as ATIF
    assert imported.format == "atif"
    assert imported.errors == []
    assert _sessions(back, imported.run_id) == before
    assert imported.summary_by_arm == report.summary_by_arm
    assert _metrics(imported.run_id, back) == _metrics(report.run_id, store)


def test_the_file_is_atif_in_atif_fields(atif_run: tuple[Path, RunReport], tmp_path: Path) -> None:
    store, report = atif_run
    out = tmp_path / "t.json"
    export_traces(report.run_id, store=store, fmt="atif", output=out, arm=ARMS[0])
    trajectories = json.loads(out.read_text())
    assert len(trajectories) == 32
    with Store.open_for_reading(store) as db:
        by_id = {s.session_id: s for s in db.load_sessions(report.run_id)}
    for traj in trajectories:
        assert traj["schema_version"] == "ATIF-v1.7"
        session = by_id[traj["session_id"]]
        steps = traj["steps"]
        assert [s["step_id"] for s in steps] == list(range(1, len(steps) + 1))
        assert steps[0]["source"] == "system" and steps[0]["message"] == POLICY
        assert {s["source"] for s in steps[1:]} <= {"user", "agent"}
        users = [s["message"] for s in steps if s["source"] == "user"]
        assert users == [e.payload.content for e in session.events if e.kind == "user_message"]
        calls = [c for s in steps for c in s.get("tool_calls", [])]
        assert [c["tool_call_id"] for c in calls] == [c.id for c in session.tool_calls()]
        results = [r for s in steps for r in s.get("observation", {}).get("results", [])]
        assert [r["content"] for r in results] == [r.output for r in session.tool_results()]
        names = {t["function"]["name"] for t in traj["agent"]["tool_definitions"]}
        assert "cancel_order" in names
        if session.judged:
            assert traj["extra"]["reward"] == session.outcome.reward  # type: ignore[union-attr]
        else:
            assert "reward" not in traj["extra"]
        total = sum(s.get("metrics", {}).get("prompt_tokens", 0) for s in steps)
        assert traj["final_metrics"]["total_prompt_tokens"] == total


def test_an_edited_file_is_read_from_its_steps_and_says_so(
    atif_run: tuple[Path, RunReport], tmp_path: Path
) -> None:
    store, report = atif_run
    out = tmp_path / "t.json"
    export_traces(report.run_id, store=store, fmt="atif", output=out, arm=ARMS[0])
    trajectories = json.loads(out.read_text())
    first = trajectories[0]
    user = next(s for s in first["steps"] if s["source"] == "user")
    user["message"] = "something else entirely"
    out.write_text(json.dumps(trajectories))
    imported = import_traces(out, store=None)
    warned = [e for e in imported.errors if not e.fatal]
    assert [e.record_id for e in warned] == [first["session_id"]]
    assert "edited?" in warned[0].message and "read from the steps" in warned[0].message
    # Nothing lost; the edited one is read as a foreign trajectory (no arm of ours).
    assert sum(s.sessions for s in imported.summary_by_arm.values()) == 32
    assert imported.summary_by_arm["baseline"].sessions == 1
