"""Reading back what sessionproof's ATIF export carries in `extra.sessionproof`: restored only
when it agrees with the steps, never trusted over them, and the run's suite named only when
every trajectory names the same run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.importers._internal import LabelRule, atif_run, read_atif
from sessionproof.runs import RunConfig, export_traces, run


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("atif")
    store = folder / "s.duckdb"
    report = run(RunConfig(suite="demo", model="oracle", faults="20%", limit=3, store=store))
    out = folder / "t.json"
    export_traces(report.run_id, store=store, fmt="atif", output=out)
    found: list[dict[str, Any]] = json.loads(out.read_text())
    return found


def _read(docs: list[dict[str, Any]], label: LabelRule | None = None) -> Any:
    raw = json.dumps(docs).encode()
    return read_atif(raw, source="t.json", run_id="new", domain=None, label_from=label)


def test_an_intact_export_restores_every_session_under_the_new_run(exported: list) -> None:
    result = _read(exported)
    assert result.errors == []
    for item, doc in zip(result.sessions, exported, strict=True):
        carried = doc["extra"]["sessionproof"]["session"]
        assert item.session.run_id == "new"
        assert all(e.run_id == "new" for e in item.session.events)
        assert item.session.arm == carried["arm"] == "faults=20%"
        assert len(item.session.events) == len(carried["events"])
    assert atif_run(json.dumps(exported).encode()) == ("demo", 3, ["faults=20%"])


def test_a_carried_session_that_does_not_validate_is_not_trusted(exported: list) -> None:
    docs = json.loads(json.dumps(exported))
    docs[0]["extra"]["sessionproof"]["session"]["termination"] = "exploded"
    result = _read(docs)
    (warning,) = result.errors
    assert not warning.fatal and warning.index == 0
    assert "not restored" in warning.message and "read from the steps" in warning.message
    assert result.sessions[0].session.arm == "baseline"  # the steps say no arm
    assert result.sessions[1].session.arm == "faults=20%"


def test_a_label_rule_reads_the_steps_alone(exported: list) -> None:
    result = _read(exported, LabelRule("extra.reward", threshold=1.0))
    assert {i.session.arm for i in result.sessions} == {"baseline"}
    assert all(i.session.outcome is not None for i in result.sessions)


def test_trajectories_of_two_runs_name_no_suite(exported: list, tmp_path: Path) -> None:
    docs = json.loads(json.dumps(exported))
    docs[0]["extra"]["sessionproof"]["run"]["run_id"] = "another"
    assert atif_run(json.dumps(docs).encode()) == (None, None, [])
    del docs[0]["extra"]["sessionproof"]
    assert atif_run(json.dumps(docs).encode()) == (None, None, [])
    assert atif_run(b"not json at all") == (None, None, [])
