"""The two ways a batch's events go in — list parameters (small batches, no NumPy import) and
NumPy columns (large ones) — write exactly the same rows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from sessionproof.store import Store, _bulk

from .factory import manifest, session

_EVENT_ROWS = (
    "SELECT run_id, session_id, seq, turn, step, t_wall, t_mono, kind, payload FROM events"
)


def _write(path: Path, monkeypatch: pytest.MonkeyPatch, limit: int) -> list[tuple[object, ...]]:
    monkeypatch.setattr(_bulk, "LIST_PARAMETER_EVENTS", limit)
    # The test process has NumPy loaded (other tests import it): pretend it has not, so that
    # a large limit does take the list path.
    monkeypatch.setattr(_bulk, "numpy_loaded", lambda: False)
    ids = [f"s{i}" for i in range(6)]
    with Store.open(path) as store:
        store.create_run(manifest("rp", ids))
        store.write_sessions(
            [
                session("rp", "s0"),
                session("rp", "s1", success=None),
                session("rp", "s2", success=False, turns=3, every_kind=False),
                session("rp", "s3", trial=2, arm="faults:timeout"),
            ]
        )
    with duckdb.connect(str(path), read_only=True) as conn:
        return sorted(conn.execute(_EVENT_ROWS + " ORDER BY session_id, seq").fetchall())


def test_list_parameters_and_numpy_columns_write_the_same_event_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    as_lists = _write(tmp_path / "lists.duckdb", monkeypatch, limit=1_000_000)
    as_columns = _write(tmp_path / "columns.duckdb", monkeypatch, limit=0)
    assert len(as_lists) > 40
    assert as_lists == as_columns
    kinds = {row[7] for row in as_lists}
    assert {"tool_call", "fault_injected", "implicit_fault", "verdict"} <= kinds
    # Types survive both ways: integers stay integers, times stay floats.
    assert all(isinstance(row[2], int) and isinstance(row[5], float) for row in as_lists)


def test_storing_a_small_batch_does_not_import_numpy(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from sessionproof.store import Store\n"
        "sys.path.insert(0, sys.argv[2])\n"
        "from tests.store.factory import manifest, session\n"
        "with Store.open(sys.argv[1]) as store:\n"
        "    store.create_run(manifest('rn', ['s0', 's1']))\n"
        "    store.write_sessions([session('rn', 's0'), session('rn', 's1')])\n"
        "    assert len(store.load_sessions('rn')) == 2\n"
        "print('numpy' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "s.duckdb"), str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_small_batch_takes_the_numpy_columns_once_numpy_is_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run has NumPy loaded (its report imports it early): its many small batches must not
    # pay the list parameters' per-value conversion. The list statement is broken here, so
    # taking that path would fail the write.
    import numpy  # noqa: F401  (loaded, as in a run)

    monkeypatch.setattr(_bulk, "_INSERT_EVENT_LISTS", "SELECT no_such_column FROM events")
    path = tmp_path / "run.duckdb"
    with Store.open(path) as store:
        store.create_run(manifest("rs", ["s0"]))
        store.write_sessions([session("rs", "s0")])
        assert len(store.load_sessions("rs")) == 1
    with duckdb.connect(str(path), read_only=True) as conn:
        (count,) = conn.execute("SELECT count(*) FROM events").fetchone() or (0,)
    assert count > 5
