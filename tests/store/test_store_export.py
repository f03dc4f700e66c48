"""Parquet export, read back with DuckDB's own reader."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from sessionproof.errors import StoreError
from sessionproof.records import EventKind
from sessionproof.store import Store

from .factory import manifest, session


@pytest.fixture
def two_runs(store: Store) -> Store:
    for run_id, n in (("r1", 3), ("r2", 2)):
        store.create_run(manifest(run_id, [f"s{i}" for i in range(n)]))
        for i in range(n):
            store.write_session(session(run_id, f"s{i}", success=i != 1))
    return store


def _read(path: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect() as conn:
        return conn.execute(sql.replace("$file", f"read_parquet('{path}')")).fetchall()


def test_export_one_run(two_runs: Store, tmp_path: Path) -> None:
    sessions_file, events_file = two_runs.export_parquet(tmp_path / "out" / "r1", run_id="r1")
    assert (sessions_file.name, events_file.name) == ("sessions.parquet", "events.parquet")
    expected = two_runs.load_sessions("r1")
    got = _read(
        sessions_file,
        "SELECT run_id, scenario_id, success, n_tool_calls FROM $file ORDER BY scenario_id",
    )
    assert got == [(s.run_id, s.scenario_id, s.success, len(s.tool_calls())) for s in expected]
    events = _read(events_file, "SELECT session_id, seq, kind FROM $file")
    assert events == [(s.session_id, e.seq, e.kind.value) for s in expected for e in s.events]
    # Payloads stay JSON that DuckDB can query.
    [(n_results,)] = _read(
        events_file,
        "SELECT count(*) FROM $file WHERE kind = 'tool_result'"
        " AND json_extract_string(payload, '$.error_class') = 'timeout'",
    )
    assert n_results == sum(
        1 for s in expected for r in s.tool_results() if r.error_class == "timeout"
    )
    assert all(e.kind in EventKind for s in expected for e in s.events)


def test_export_all_runs_and_overwrite(two_runs: Store, tmp_path: Path) -> None:
    out = tmp_path / "all"
    first = two_runs.export_parquet(out)
    two_runs.create_run(manifest("r3", ["z"]))
    two_runs.write_session(session("r3", "z"))
    second = two_runs.export_parquet(out)
    assert first == second
    runs = _read(second[0], "SELECT run_id, count(*) FROM $file GROUP BY run_id ORDER BY run_id")
    assert runs == [("r1", 3), ("r2", 2), ("r3", 1)]
    assert sorted(p.name for p in out.iterdir()) == ["events.parquet", "sessions.parquet"]


def test_export_from_read_only_store(two_runs: Store, store_path: Path, tmp_path: Path) -> None:
    two_runs.close()
    with Store.open(store_path, read_only=True) as ro:
        paths = ro.export_parquet(tmp_path / "ro", run_id="r2")
    assert _read(paths[0], "SELECT count(*) FROM $file") == [(2,)]


def test_export_errors(two_runs: Store, tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no run 'r9'"):
        two_runs.export_parquet(tmp_path / "x", run_id="r9")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match="cannot create export folder"):
        two_runs.export_parquet(blocker / "out")
