"""Parquet export of the sessions and events tables, written by DuckDB itself."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from ..errors import StoreError

_ORDER = {
    "sessions": "run_id, scenario_id, trial, arm",
    "events": "run_id, session_id, seq",
}


def _sql_string(text: str) -> str:
    # COPY takes its target as a literal, not a parameter; doubling quotes is SQL's escape.
    return "'" + text.replace("'", "''") + "'"


def export_parquet(
    conn: duckdb.DuckDBPyConnection, out_dir: Path, run_id: str | None
) -> list[Path]:
    """Write `sessions.parquet` and `events.parquet` under `out_dir` (one run, or all).

    Each file is written beside its target and renamed into place, so a reader never sees a
    half-written file and a failed export leaves an earlier export intact.
    """
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create export folder {out_dir}: {exc}") from exc
    where = "" if run_id is None else "WHERE run_id = ?"
    params = [] if run_id is None else [run_id]
    written: list[Path] = []
    for table, order in _ORDER.items():
        target = out_dir / f"{table}.parquet"
        partial = out_dir / f".{table}.parquet.partial"
        query = (
            f"COPY (SELECT * FROM {table} {where} ORDER BY {order}) "
            f"TO {_sql_string(str(partial))} (FORMAT parquet)"
        )
        try:
            conn.execute(query, params)
            os.replace(partial, target)
        except (duckdb.Error, OSError) as exc:
            partial.unlink(missing_ok=True)
            raise StoreError(f"exporting {table} to {target} failed: {exc}") from exc
        written.append(target)
    return written
