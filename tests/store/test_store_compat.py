"""A store written before events were typed still opens, and reads back the same.

The fixture under tests/fixtures/stores/ was made by the code of the last release before the
typed event union (its README says how); the expected outputs beside it are what that code
printed. Nothing here is recomputed by the code under test.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.errors import StoreError
from sessionproof.records import EventKind, Session
from sessionproof.records._internal import EventBase
from sessionproof.store import Store

FIXTURE = Path(__file__).parents[1] / "fixtures" / "stores" / "v0.1.0-bb398c5"
EXPECTED = FIXTURE / "expected"
TAU2_AT = Path("/tmp/sessionproof-compat-v1/tau2_retail_4.json")
"""Where the score run's manifest says its transcripts are (`show --metrics` re-reads them)."""

runner = CliRunner()


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    """A fresh copy of the old store file (reading must not depend on earlier tests)."""
    path = tmp_path / "store.duckdb"
    with gzip.open(FIXTURE / "store.duckdb.gz") as src, path.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    source = FIXTURE / "tau2_retail_4.json"
    if not TAU2_AT.exists() or TAU2_AT.read_bytes() != source.read_bytes():
        TAU2_AT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, TAU2_AT)
    return path


def _expected(name: str) -> Any:
    return json.loads((EXPECTED / name).read_text())


def _run_ids() -> list[str]:
    return sorted(r["run_id"] for r in _expected("runs.json"))


def _cli(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_every_old_event_validates_into_the_typed_union(old_store: Path) -> None:
    with gzip.open(EXPECTED / "sessions.jsonl.gz", "rt") as f:
        expected = [json.loads(line) for line in f]
    with Store.open(old_store, read_only=True) as store:
        loaded = [s for run_id in _run_ids() for s in store.load_sessions(run_id)]
    assert len(loaded) == len(expected) == 13
    kinds = {e.kind for s in loaded for e in s.events}
    # Every kind a run writes, but those the oracle never causes (no model, no bad reply) and
    # recorded_divergence, which only a rerun without its domain writes, and implicit_fault and
    # provider_fault (all three newer than the store), and the user's own tool calls and
    # results (dual control, newer too).
    unwritten = {
        EventKind.agent_error,
        EventKind.model_call,
        EventKind.recorded_divergence,
        EventKind.implicit_fault,
        EventKind.provider_fault,
        EventKind.user_tool_call,
        EventKind.user_tool_result,
    }
    assert kinds == set(EventKind) - unwritten
    for session in loaded:
        for event in session.events:
            assert isinstance(event, EventBase) and isinstance(event.kind, EventKind)
            assert not isinstance(event.payload, dict), (session.session_id, event.seq)
    # Read back, every session dumps to exactly what the old code dumped: same fields, same
    # payload objects (no key gained, lost or renamed).
    assert [s.model_dump(mode="json") for s in loaded] == expected
    # And the typed payloads validate again from that JSON.
    assert [Session.model_validate(e) for e in expected] == loaded


@pytest.mark.parametrize("run_id", _run_ids())
def test_old_runs_show_and_metrics_equal_what_the_old_code_printed(
    old_store: Path, run_id: str
) -> None:
    store = str(old_store)
    shown = _cli("show", run_id, "--store", store, "--json")
    old = _expected(f"show_{run_id}.json")
    assert shown["manifest"] == old["manifest"]
    if len(old["manifest"]["arms"]) > 1:
        # Issue 34.3 changed this: the old code pooled the arms (pass^3 over 3 arms of one
        # trial); now each arm is summarized apart and nothing pooled is printed. The same
        # sessions and successes are there, arm by arm.
        assert "session_accuracy" not in shown and list(shown["arms"]) == old["manifest"]["arms"]
        arms = shown["arms"].values()
        assert sum(a["sessions"] for a in arms) == old["sessions"]
        assert sum(a["successes"] for a in arms) == old["successes"]
        assert all(set(a["pass_hat_k"]) == {"1"} for a in arms)
    else:
        # Every old number is the same; the keys issue 34.2/34.7 added (not judged, evaluated
        # criteria, `arms`) come beside them.
        assert _kept(shown, old)
    metrics = _cli("show", run_id, "--metrics", "--store", store, "--json")
    expected = _expected(f"metrics_{run_id}.json")
    # The definitions are the current release's wording, printed beside the numbers, not data
    # read from the store: the same metrics are defined, and every number is the old one.
    assert set(metrics.pop("definitions")) >= set(expected.pop("definitions"))
    assert _kept(metrics, expected)


def _kept(new: Any, old: Any) -> bool:
    """`new` holds every key of `old` with the same value (dicts compared key by key)."""
    if isinstance(old, dict) and isinstance(new, dict):
        return all(k in new and _kept(new[k], v) for k, v in old.items())
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(_kept(n, o) for n, o in zip(new, old, strict=True))
    return bool(new == old)


def test_old_run_list_reads_the_same(old_store: Path) -> None:
    listed = _cli("runs", "--store", str(old_store), "--json")
    old = _expected("runs.json")
    assert [r["run_id"] for r in listed] == [r["run_id"] for r in old]
    for new, before in zip(listed, old, strict=True):
        if len(before["arms"]) > 1:
            # Issue 34.3 changed this: no accuracy over the arms pooled, one per arm instead.
            assert new.pop("accuracy") is None and before.pop("accuracy") is not None
            assert set(new.pop("accuracy_by_arm")) == set(before["arms"])
        assert new == before


def test_a_stored_payload_that_does_not_fit_its_kind_is_a_store_error(old_store: Path) -> None:
    with duckdb.connect(str(old_store)) as conn:
        conn.execute(
            'UPDATE events SET payload = \'{"call_id": "c1", "error_class": "nope"}\' '
            "WHERE kind = 'fault_injected'"
        )
    with Store.open(old_store, read_only=True) as store:
        run_id = next(r for r in _run_ids() if store.get_run(r).command == "run")
        with pytest.raises(StoreError, match=r"event seq \d+ \(fault_injected\) does not read"):
            store.load_sessions(run_id)
