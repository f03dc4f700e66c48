"""The store's tables, its schema version, and opening a file with clear errors."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from ..errors import StoreError, StoreLockedError

SCHEMA_VERSION = 1
"""Version of the table layout below; bump it (and add a migration) when the layout changes."""

TABLES = ("runs", "sessions", "events")
"""The data tables, besides `schema_info`."""

_DDL = (
    """
    CREATE TABLE schema_info (
        version INTEGER NOT NULL,
        written_by VARCHAR NOT NULL
    )
    """,
    """
    CREATE TABLE runs (
        run_id VARCHAR PRIMARY KEY,
        created_at VARCHAR NOT NULL,
        command VARCHAR NOT NULL,
        suite VARCHAR NOT NULL,
        model VARCHAR NOT NULL,
        status VARCHAR NOT NULL,
        manifest JSON NOT NULL
    )
    """,
    # The primary key is the resume key; the unique session id keeps events (joined on
    # session_id) from ever mixing two sessions.
    """
    CREATE TABLE sessions (
        run_id VARCHAR NOT NULL,
        session_id VARCHAR NOT NULL,
        scenario_id VARCHAR NOT NULL,
        trial INTEGER NOT NULL,
        arm VARCHAR NOT NULL,
        model VARCHAR NOT NULL,
        success BOOLEAN,
        reward DOUBLE,
        termination VARCHAR NOT NULL,
        termination_detail VARCHAR NOT NULL,
        n_turns INTEGER NOT NULL,
        n_steps INTEGER NOT NULL,
        n_tool_calls INTEGER NOT NULL,
        n_tool_errors INTEGER NOT NULL,
        input_tokens BIGINT NOT NULL,
        output_tokens BIGINT NOT NULL,
        started_at DOUBLE NOT NULL,
        ended_at DOUBLE NOT NULL,
        outcome JSON,
        metadata JSON NOT NULL,
        usage JSON NOT NULL,
        PRIMARY KEY (run_id, scenario_id, trial, arm),
        UNIQUE (run_id, session_id)
    )
    """,
    # No index on events: rows only ever arrive with their session (whose key is checked),
    # and an index would slow every append for lookups that zone maps already serve.
    """
    CREATE TABLE events (
        run_id VARCHAR NOT NULL,
        session_id VARCHAR NOT NULL,
        seq INTEGER NOT NULL,
        turn INTEGER NOT NULL,
        step INTEGER NOT NULL,
        t_wall DOUBLE NOT NULL,
        t_mono DOUBLE NOT NULL,
        kind VARCHAR NOT NULL,
        payload JSON NOT NULL
    )
    """,
)

_ZSTD_STORAGE = (1, 2)
"""The first DuckDB storage version whose files may hold ZSTD-compressed strings."""
_STORAGE_VERSION = re.compile(r"v(\d+)\.(\d+)")

_LOCK_HOLDER = re.compile(r"Conflicting lock is held in (.+?)(?:\. See also|$)")


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (DuckDB adds context lines we do not show)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def open_error(path: Path, exc: duckdb.Error) -> StoreError:
    """Translate DuckDB's failure to open `path` into a one-line, named store error."""
    text = str(exc)
    if "Could not set lock" in text or "Conflicting lock" in text:
        holder = _LOCK_HOLDER.search(text)
        who = f" (held by {holder.group(1)})" if holder else ""
        return StoreLockedError(
            f"store {path} is locked by another process{who}; DuckDB allows one writer per "
            "file: wait for that run to end, or use another store path"
        )
    if "not a valid DuckDB database" in text:
        return StoreError(f"{path} is not a DuckDB database (wrong file, or damaged)")
    if "Could not read enough bytes" in text or "truncated" in text.lower():
        return StoreError(f"{path} is truncated or damaged: {first_line(exc)}")
    if "database does not exist" in text:
        return StoreError(f"no store at {path}")
    if "different configuration" in text:
        return StoreError(
            f"store {path} is already open in this process with a different read-only setting"
        )
    return StoreError(f"cannot open store {path}: {first_line(exc)}")


def query_error(path: Path, exc: duckdb.Error) -> StoreError:
    """Translate a failed read of an open store into a one-line store error."""
    if "Could not read enough bytes" in str(exc):
        return StoreError(f"store {path} is truncated or damaged: {first_line(exc)}")
    return StoreError(f"store {path}: query failed: {first_line(exc)}")


def connect(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    """Open the DuckDB file at `path` (creating parent folders for a writable store)."""
    if not read_only:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder for store {path}: {exc}") from exc
    elif not path.exists():
        raise StoreError(f"no store at {path}")
    if path.is_dir():
        raise StoreError(f"store path {path} is a folder, not a file")
    try:
        conn = duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as exc:
        raise open_error(path, exc) from exc
    if not read_only:
        prefer_zstd(conn)
    return conn


def prefer_zstd(conn: duckdb.DuckDBPyConnection) -> None:
    """Have the checkpoints of `conn` compress text columns with ZSTD, where the file allows.

    The events' JSON payloads are most of a store. DuckDB's own choice for them (dictionary
    + FSST) costs 170 ms of CPU to checkpoint the 17 MB of a thousand tau2 sessions and
    leaves an 11.5 MB file; ZSTD takes 65 ms and leaves 4.7 MB, and scans them as fast.
    Skipped (DuckDB's choice stays) when the DuckDB is too old to say or the file was made
    with a storage version before ZSTD, where forcing it would store the strings raw.
    """
    try:
        row = conn.execute(
            "SELECT tags['storage_version'] FROM duckdb_databases() "
            "WHERE database_name = current_database()"
        ).fetchone()
        found = _STORAGE_VERSION.match(str(row[0] if row else ""))
        if found and (int(found.group(1)), int(found.group(2))) >= _ZSTD_STORAGE:
            conn.execute("SET force_compression = 'zstd'")
    except duckdb.Error:
        pass  # an older DuckDB without the setting or the tag: its own compression


def ensure_schema(
    conn: duckdb.DuckDBPyConnection, path: Path, read_only: bool, writer: str
) -> None:
    """Check the file is a sessionproof store this code can read; create the tables in a
    new, empty database. `writer` names the code that creates them (a version string)."""
    try:
        found = {
            row[0]
            for row in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
            ).fetchall()
        }
        if not found:
            if read_only:
                raise StoreError(f"{path} is an empty DuckDB database, not a sessionproof store")
            _create(conn, writer)
            return
        if "schema_info" not in found:
            raise StoreError(f"{path} is a DuckDB database but not a sessionproof store")
        row = conn.execute("SELECT max(version) FROM schema_info").fetchone()
    except duckdb.Error as exc:
        raise StoreError(f"cannot read store {path}: {first_line(exc)}") from exc
    version = row[0] if row else None
    if not isinstance(version, int):
        raise StoreError(f"store {path} has no schema version (damaged?)")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"store {path} was written by a newer sessionproof (schema v{version}; this "
            f"version reads up to v{SCHEMA_VERSION}): upgrade sessionproof"
        )
    missing = [name for name in TABLES if name not in found]
    if missing:
        raise StoreError(f"store {path} is damaged: missing table(s) {', '.join(missing)}")


def _create(conn: duckdb.DuckDBPyConnection, writer: str) -> None:
    # One transaction: a crash while creating leaves an empty file, which reopens cleanly.
    conn.execute("BEGIN TRANSACTION")
    try:
        for statement in _DDL:
            conn.execute(statement)
        conn.execute("INSERT INTO schema_info VALUES (?, ?)", [SCHEMA_VERSION, writer])
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
