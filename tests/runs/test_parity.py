"""The same configuration through `sessionproof run` and through `run_suite` stores the same
sessions: keys, verdicts, terminations, and every event's kind and payload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import sessionproof
from sessionproof.cli._internal import app
from sessionproof.records import Session
from sessionproof.store import Store

runner = CliRunner()

ARMS = {
    "baseline": ["baseline"],
    "baseline and faults+guard": ["baseline", "faults=25% guard"],
}

_TIMES = frozenset({"latency_s"})
"""Payload fields that measure wall time (a tool result's latency): they differ between any
two runs. Event times (t_wall, t_mono) are not payload and are not compared."""


def _timeless(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in _TIMES}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def _shape(session: Session) -> dict[str, Any]:
    """A stored session modulo its run id and its times."""
    return {
        "session_id": session.session_id,
        "success": session.success,
        "outcome": None if session.outcome is None else session.outcome.model_dump(mode="json"),
        "termination": session.termination.value,
        "events": [
            (e.seq, e.turn, e.step, e.kind.value, _timeless(e.payload.model_dump(mode="json")))
            for e in session.events
        ],
    }


def _stored(store: Path, run_id: str) -> dict[tuple[str, int, str], dict[str, Any]]:
    with Store.open(store, read_only=True) as db:
        return {(s.scenario_id, s.trial, s.arm): _shape(s) for s in db.load_sessions(run_id)}


@pytest.mark.slow
@pytest.mark.parametrize("arms", list(ARMS.values()), ids=list(ARMS))
def test_cli_and_api_store_identical_sessions(tmp_path: Path, arms: list[str]) -> None:
    settings = {"limit": 4, "trials": 2, "seed": 7, "max_steps": 12}
    cli_store, api_store = tmp_path / "cli.duckdb", tmp_path / "api.duckdb"
    args = ["run", "--suite", "demo", "--model", "oracle", "--store", str(cli_store), "--json"]
    for name, value in settings.items():
        args += [f"--{name.replace('_', '-')}", str(value)]
    for arm in arms:
        args += ["--arm", arm]
    out = runner.invoke(app, args)
    assert out.exit_code == 0, out.output
    cli_run = json.loads(out.stdout)["run_id"]

    api = sessionproof.run_suite("demo", "oracle", store=api_store, arms=arms, **settings)

    from_cli, from_api = _stored(cli_store, cli_run), _stored(api_store, api.run_id)
    assert len(from_cli) == 4 * 2 * len(arms)
    assert from_api == from_cli
    # The run itself is described the same way too.
    with Store.open(cli_store, read_only=True) as a, Store.open(api_store, read_only=True) as b:
        cli_manifest, api_manifest = a.get_run(cli_run), b.get_run(api.run_id)
    same = {"command", "suite", "suite_hash", "model", "user_model", "seed", "trials", "arms"}
    same |= {"max_steps", "limit", "concurrency", "options", "scenario_ids", "status"}
    assert cli_manifest.model_dump(include=same) == api_manifest.model_dump(include=same)
    # What the API returns is what it stored.
    returned = {(s.scenario_id, s.trial, s.arm): _shape(s) for s in api.sessions}
    assert returned == from_api
    if len(arms) > 1:
        faulted = [k for k, v in from_api.items() if k[2] != "baseline"]
        kinds = {e[3] for k in faulted for e in from_api[k]["events"]}
        assert "fault_injected" in kinds  # the arm really ran under faults
        assert api.comparison is not None and list(api.comparison.arms) == arms
