"""`recorded_run`: a run's status says honestly how it ended."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sessionproof.errors import StoreError
from sessionproof.store import RunManifest, Store
from sessionproof.store._internal import RunStatus, recorded_run


def _status(store: Path, run_id: str) -> RunStatus:
    with Store.open(store, read_only=True) as db:
        return db.get_run(run_id).status


@pytest.mark.parametrize(
    ("error", "on_error", "expected"),
    [
        (None, "failed", "finished"),
        (KeyboardInterrupt(), "failed", "interrupted"),
        (asyncio.CancelledError(), None, "interrupted"),
        (StoreError("disk full"), "failed", "failed"),
        (RuntimeError("boom"), "interrupted", "interrupted"),
        (RuntimeError("boom"), None, "running"),  # a crashed `run` stays resumable
    ],
)
def test_status_follows_how_the_block_ended(
    tmp_path: Path, error: BaseException | None, on_error: RunStatus | None, expected: str
) -> None:
    store = tmp_path / "s.duckdb"
    manifest = RunManifest(command="score", suite="t.json")
    with Store.open(store) as db:
        try:
            with recorded_run(db, manifest, on_error=on_error):
                assert db.get_run(manifest.run_id).status == "running"
                if error is not None:
                    raise error
        except BaseException as exc:
            assert exc is error  # never swallowed nor replaced
    assert _status(store, manifest.run_id) == expected


def test_a_resumed_run_is_not_created_again(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    manifest = RunManifest(command="run", suite="demo")
    with Store.open(store) as db:
        db.create_run(manifest)
        with recorded_run(db, manifest, create=False):
            pass
        assert [r.run_id for r in db.list_runs()] == [manifest.run_id]
    assert _status(store, manifest.run_id) == "finished"
