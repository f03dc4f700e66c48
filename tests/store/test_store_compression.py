"""How the store compresses text: ZSTD where the file allows it, DuckDB's own choice where not."""

from __future__ import annotations

from pathlib import Path

import duckdb

from sessionproof.store import Store

from .factory import manifest, session


def _compressions(path: Path, column: str) -> set[str]:
    with duckdb.connect(str(path), read_only=True) as conn:
        rows = conn.execute(
            "SELECT DISTINCT compression FROM pragma_storage_info('events') WHERE column_name = ?",
            [column],
        ).fetchall()
    return {r[0] for r in rows} - {"Constant"}


def test_payloads_are_zstd_compressed_in_a_new_store(store_path: Path) -> None:
    with Store.open(store_path) as store:
        store.create_run(manifest("rz", ["a", "b"]))
        store.write_sessions([session("rz", "a"), session("rz", "b")])
    assert _compressions(store_path, "payload") == {"ZSTD"}
    with Store.open(store_path, read_only=True) as store:
        assert store.load_sessions("rz") == [session("rz", "a"), session("rz", "b")]


def test_a_file_of_an_older_storage_version_keeps_duckdbs_own_compression(
    tmp_path: Path,
) -> None:
    # Forcing ZSTD on a file whose storage version predates it would store strings raw.
    path = tmp_path / "old.duckdb"
    with duckdb.connect() as conn:
        conn.execute(f"ATTACH '{path}' AS old (STORAGE_VERSION 'v1.0.0')")
    with Store.open(path) as store:
        store.create_run(manifest("ro", [f"s{i}" for i in range(40)]))
        store.write_sessions([session("ro", f"s{i}") for i in range(40)])
    assert "Uncompressed" not in _compressions(path, "payload")
    assert "ZSTD" not in _compressions(path, "payload")
