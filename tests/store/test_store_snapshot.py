"""Reading a store while another process holds it for writing (a run in progress)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.errors import StoreError
from sessionproof.store import Store

from .factory import manifest, session

_REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture
def live_store(store_path: Path) -> Iterator[tuple[Path, int]]:
    """A store with one finished run (`r-done`), held for writing by another process that
    is in the middle of run `r-live`; yields the path and the holder's PID."""
    with Store.open(store_path) as store:
        store.create_run(manifest("r-done", ["a", "b"]))
        for sid in ("a", "b"):
            store.write_session(session("r-done", sid))
        store.set_status("r-done", "finished")
    holder = subprocess.Popen(
        [sys.executable, "-m", "tests.store.writer", str(store_path), "live", "r-live", "2"],
        cwd=_REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ready", holder.stderr
        yield store_path, holder.pid
    finally:
        holder.communicate(input="", timeout=60)
    assert holder.returncode == 0


@pytest.mark.slow
def test_runs_show_and_export_read_a_store_that_is_being_written(
    live_store: tuple[Path, int], tmp_path: Path
) -> None:
    path, pid = live_store
    listed = runner.invoke(app, ["runs", "--store", str(path), "--json"])
    assert listed.exit_code == 0, listed.output
    runs = {r["run_id"]: r for r in json.loads(listed.stdout)}
    assert runs["r-done"]["sessions_done"] == 2 and runs["r-done"]["status"] == "finished"
    assert runs["r-live"]["sessions_done"] == 2 and runs["r-live"]["status"] == "running"
    assert "snapshot" in listed.stderr and "r-live" in listed.stderr and str(pid) in listed.stderr

    shown = runner.invoke(app, ["show", "r-done", "--store", str(path), "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["sessions"] == 2

    out = tmp_path / "export"
    exported = runner.invoke(app, ["export", str(out), "--store", str(path)])
    assert exported.exit_code == 0, exported.output
    assert (out / "sessions.parquet").stat().st_size > 0
    assert (out / "events.parquet").stat().st_size > 0


@pytest.mark.slow
def test_a_snapshot_is_read_only_and_cleaned_up(live_store: tuple[Path, int]) -> None:
    path, pid = live_store
    with Store.open_for_reading(path) as store:
        assert store.read_only and store.snapshot_of == pid
        assert store.path == path  # messages still name the user's file
        copy_dir = store.snapshot_dir
        assert copy_dir is not None and copy_dir.exists()
        with pytest.raises(StoreError, match="read-only"):
            store.set_status("r-done", "interrupted")
    assert not copy_dir.exists()


def test_an_unlocked_store_is_read_in_place(store_path: Path) -> None:
    with Store.open(store_path) as store:
        store.create_run(manifest("r1", ["a"]))
    with Store.open_for_reading(store_path) as store:
        assert store.snapshot_of is None and store.snapshot_dir is None
        assert [r.run_id for r in store.list_runs()] == ["r1"]
