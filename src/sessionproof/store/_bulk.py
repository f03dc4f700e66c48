"""Columnar inserts: a batch of prepared sessions goes in with one statement per table.

Row-at-a-time `executemany` costs DuckDB about 1.5 ms per session row, and list parameters
cost ~20 µs per event value as each is converted to a DuckDB value one by one. The batch's
columns go in as one Arrow table per table instead, scanned column-wise without the GIL:
the events of a thousand tau2 sessions take 44 ms, against 79 ms as NumPy object arrays
(whose strings DuckDB reads vector by vector under the GIL) and several times that as list
parameters.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from ._prepare import SessionWrite
from ._rows import EVENT_COLUMNS, SESSION_COLUMNS

_SQL_TO_ARROW = {
    "VARCHAR": pa.string(),
    "JSON": pa.large_string(),  # cast to JSON in the INSERT
    "INTEGER": pa.int32(),
    "BIGINT": pa.int64(),
    "DOUBLE": pa.float64(),
    "BOOLEAN": pa.bool_(),
}
_SESSION_TYPES = (
    "VARCHAR",  # run_id
    "VARCHAR",  # session_id
    "VARCHAR",  # scenario_id
    "INTEGER",  # trial
    "VARCHAR",  # arm
    "VARCHAR",  # model
    "BOOLEAN",  # success
    "DOUBLE",  # reward
    "VARCHAR",  # termination
    "VARCHAR",  # termination_detail
    "INTEGER",  # n_turns
    "INTEGER",  # n_steps
    "INTEGER",  # n_tool_calls
    "INTEGER",  # n_tool_errors
    "BIGINT",  # input_tokens
    "BIGINT",  # output_tokens
    "DOUBLE",  # started_at
    "DOUBLE",  # ended_at
    "JSON",  # outcome
    "JSON",  # metadata
    "JSON",  # usage
)
_SESSIONS_VIEW = "sessionproof_session_batch"
_INSERT_SESSIONS = (
    f"INSERT INTO sessions ({', '.join(SESSION_COLUMNS)}) SELECT "
    + ", ".join(
        f"{c}::JSON" if t == "JSON" else c
        for c, t in zip(SESSION_COLUMNS, _SESSION_TYPES, strict=True)
    )
    + f" FROM {_SESSIONS_VIEW}"
)

_VIEW = "sessionproof_event_batch"
"""The name the batch's event columns are registered under, for one statement only."""
_EVENT_TYPES: tuple[Any, ...] = (
    pa.string(),  # run_id
    pa.string(),  # session_id
    np.int64,  # seq
    np.int64,  # turn
    np.int64,  # step
    np.float64,  # t_wall
    np.float64,  # t_mono
    pa.string(),  # kind
    pa.large_string(),  # payload: 32-bit offsets would cap a batch at 2 GB of JSON
)
"""Arrow types of the text columns; NumPy dtypes of the numbers (converted there, much
faster than Arrow converts Python ints, then handed over without a copy)."""
_INSERT_EVENTS = (
    f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) SELECT "
    + ", ".join(EVENT_COLUMNS[:-1])
    + f", payload::JSON FROM {_VIEW}"
)


def _column(values: list[Any], kind: Any) -> pa.Array:
    if isinstance(kind, pa.DataType):
        return pa.array(values, kind)
    return pa.array(np.array(values, dtype=kind))


def insert_batch(conn: duckdb.DuckDBPyConnection, batch: Sequence[SessionWrite]) -> None:
    """Insert every session row and event of `batch` (inside the caller's transaction)."""
    if not batch:
        return
    rows = [item.session for item in batch]
    sessions = pa.table(
        {
            name: pa.array(list(values), _SQL_TO_ARROW[sql])
            for name, values, sql in zip(
                SESSION_COLUMNS, zip(*rows, strict=True), _SESSION_TYPES, strict=True
            )
        }
    )
    _insert_view(conn, _SESSIONS_VIEW, sessions, _INSERT_SESSIONS)
    columns: list[list[Any]] = [[] for _ in EVENT_COLUMNS]
    for item in batch:
        for merged, column in zip(columns, item.events, strict=True):
            merged.extend(column)
    if not columns[0]:
        return
    events = pa.table(
        {
            name: _column(values, kind)
            for name, values, kind in zip(EVENT_COLUMNS, columns, _EVENT_TYPES, strict=True)
        }
    )
    _insert_view(conn, _VIEW, events, _INSERT_EVENTS)


def _insert_view(conn: duckdb.DuckDBPyConnection, view: str, table: pa.Table, sql: str) -> None:
    conn.register(view, table)
    try:
        conn.execute(sql)
    except duckdb.Error:
        # The failed statement aborted the transaction, so DuckDB refuses the unregister
        # too; the caller rolls back, and the next batch's `register` replaces the view.
        with contextlib.suppress(duckdb.Error):
            conn.unregister(view)
        raise
    conn.unregister(view)


DIRECT_COMMIT_CHARS = 4 * 1024 * 1024
"""Event JSON in a batch from which its commit writes the data file itself (`direct_commit`)."""


@contextlib.contextmanager
def direct_commit(conn: duckdb.DuckDBPyConnection, batch: Sequence[SessionWrite]) -> Iterator[None]:
    """Have a commit inside the block write a large `batch` straight into the data file.

    A commit appends its rows to the WAL, and a later commit, once the WAL has outgrown
    `checkpoint_threshold`, writes them again, compressed, into the file. For a batch this
    large DuckDB can do it once: with the threshold below the batch, the commit itself
    checkpoints, and an estimated WAL write this big skips the WAL
    (`auto_checkpoint_skip_wal_threshold`). The commit returns once the file holds the
    batch, as durable as through the WAL. A thousand tau2 sessions: 68-76 ms for the commit
    and the next one, against 94-101. Smaller batches (a run's) keep the WAL, whose commits
    cost less than a checkpoint each.
    """
    if sum(len(text) for write in batch for text in write.events[-1]) < DIRECT_COMMIT_CHARS:
        yield
        return
    try:
        conn.execute("SET checkpoint_threshold = '1MB'")
    except duckdb.Error:  # a DuckDB without the setting: the usual commit
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(duckdb.Error):
            conn.execute("RESET checkpoint_threshold")
