"""Opening files that are not a usable store, a locked store, and a store after a kill."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from sessionproof.errors import DuplicateSessionError, StoreError, StoreLockedError
from sessionproof.store import Store
from sessionproof.store._internal import SCHEMA_VERSION

from .factory import manifest, session

_REPO = Path(__file__).resolve().parents[2]


def _writer(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.store.writer", *args],
        cwd=_REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_new_store_creates_parent_folders(store_path: Path) -> None:
    assert not store_path.parent.exists()
    with Store.open(store_path) as store:
        assert store.list_runs() == []
    assert store_path.is_file()


def test_garbage_file_is_not_a_store(tmp_path: Path) -> None:
    path = tmp_path / "garbage.duckdb"
    path.write_bytes(b"this is a text file, not a database\n" * 200)
    with pytest.raises(StoreError, match="not a DuckDB database") as info:
        Store.open(path)
    assert "\n" not in str(info.value)
    assert path.read_bytes().startswith(b"this is a text file")  # left as it was


def test_zero_byte_file_is_not_a_store(tmp_path: Path) -> None:
    path = tmp_path / "empty.duckdb"
    path.touch()
    with pytest.raises(StoreError, match="not a DuckDB database"):
        Store.open(path)


@pytest.fixture(scope="module")
def full_store(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The bytes of a closed store holding one run of 60 sessions."""
    path = tmp_path_factory.mktemp("full") / "store.duckdb"
    with Store.open(path) as store:
        store.create_run(manifest("r1", [f"s{i}" for i in range(60)]))
        for i in range(60):
            store.write_session(session("r1", f"s{i}"))
    return path.read_bytes()


@pytest.mark.parametrize("keep", [0.0005, 0.01, 0.25, 0.5])
def test_truncated_store_gives_a_store_error(
    full_store: bytes, tmp_path: Path, keep: float
) -> None:
    cut = tmp_path / "cut.duckdb"
    cut.write_bytes(full_store[: int(len(full_store) * keep)])
    # DuckDB only reads the blocks it needs: a cut may surface at open or at the first read
    # of the lost part. Either way it must be a one-line StoreError, not a raw DuckDB error.
    with (
        pytest.raises(StoreError, match=r"truncated or damaged|not a DuckDB database") as info,
        Store.open(cut, read_only=True) as damaged,
    ):
        damaged.load_sessions("r1")
    assert "\n" not in str(info.value)


def test_intact_copy_of_the_same_store_reads_back(full_store: bytes, tmp_path: Path) -> None:
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(full_store)
    with Store.open(copy, read_only=True) as store:
        assert len(store.load_sessions("r1")) == 60


def test_foreign_duckdb_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER)")
    with pytest.raises(StoreError, match="not a sessionproof store"):
        Store.open(path)
    with duckdb.connect(str(path)) as conn:  # and it was not touched
        tables = {r[0] for r in conn.execute("SHOW TABLES").fetchall()}
    assert tables == {"customers"}


def test_empty_duckdb_database_read_only_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "blank.duckdb"
    duckdb.connect(str(path)).close()
    with pytest.raises(StoreError, match="empty DuckDB database"):
        Store.open(path, read_only=True)


def test_newer_schema_is_refused(store_path: Path) -> None:
    Store.open(store_path).close()
    with duckdb.connect(str(store_path)) as conn:
        conn.execute("UPDATE schema_info SET version = ?", [SCHEMA_VERSION + 1])
    with pytest.raises(StoreError, match=f"newer sessionproof.*v{SCHEMA_VERSION + 1}"):
        Store.open(store_path)


def test_damaged_store_missing_a_table_is_refused(store_path: Path) -> None:
    Store.open(store_path).close()
    with duckdb.connect(str(store_path)) as conn:
        conn.execute("DROP TABLE events")
    with pytest.raises(StoreError, match=r"missing table.*events"):
        Store.open(store_path)


def test_missing_file_read_only_and_folder_path(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no store at"):
        Store.open(tmp_path / "absent.duckdb", read_only=True)
    assert not (tmp_path / "absent.duckdb").exists()
    with pytest.raises(StoreError, match="is a folder"):
        Store.open(tmp_path)


@pytest.mark.slow
def test_store_locked_by_another_process(store_path: Path) -> None:
    Store.open(store_path).close()
    holder = _writer(str(store_path), "hold")
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError, match="locked by another process") as info:
            Store.open(store_path)
        assert f"PID {holder.pid}" in str(info.value)
        with pytest.raises(StoreLockedError):
            Store.open(store_path, read_only=True)
    finally:
        holder.communicate(input="", timeout=30)
    assert holder.returncode == 0
    with Store.open(store_path) as store:  # free again once the holder has gone
        assert store.list_runs() == []


@pytest.mark.slow
def test_sessions_survive_a_kill_exactly_once(store_path: Path) -> None:
    Store.open(store_path).close()
    child = _writer(str(store_path), "write", "rkill", "100000")
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "run rkill"
    done: list[str] = []
    while len(done) < 40:
        line = child.stdout.readline()
        assert line.startswith("done "), (line, child.stderr.read() if child.stderr else "")
        done.append(line.split()[1])
    os.kill(child.pid, signal.SIGKILL)
    rest, _ = child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL
    # Lines already in the pipe were written before the kill; count them too.
    done += [line.split()[1] for line in rest.splitlines() if line.startswith("done ")]

    with Store.open(store_path) as store:
        stored = store.load_sessions("rkill")
        ids = [s.scenario_id for s in stored]
        assert len(ids) == len(set(ids))
        assert set(done) <= set(ids)
        # At most the one session committed between its write and its `done` line.
        assert len(set(ids) - set(done)) <= 1
        for s in stored:
            assert s == session("rkill", s.scenario_id)
        assert store.get_run("rkill").status == "running"
        # Resume: the stored keys are skipped, a rewrite is refused, new sessions go in.
        assert store.finished_keys("rkill") == {(i, 0, "baseline") for i in ids}
        with pytest.raises(DuplicateSessionError):
            store.write_session(session("rkill", ids[0]))
        store.write_session(session("rkill", "resumed"))
        assert len(store.session_rows("rkill")) == len(ids) + 1
