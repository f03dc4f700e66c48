"""Columnar inserts: a batch of prepared sessions goes in with one statement per table.

Row-at-a-time `executemany` costs DuckDB about 1.5 ms per session row, and list parameters
cost ~20 µs per event value as each is converted to a DuckDB value one by one. A dict of
NumPy arrays registered as a view is scanned column-wise instead: ~5x less CPU for the
events of a thousand sessions. NumPy is a core dependency already; no Arrow needed.

A small batch in a process without NumPy (a scored file, a short command) takes the list
parameters instead: 800 events cost 7-11 ms that way, less than importing NumPy (~40 ms) in
a command that needs it for nothing else. Once NumPy is loaded (a run imports it for its
report while it waits on models), every batch takes the columns: a run's many small batches
as list parameters cost ~0.4 s more CPU over 600 tau2 sessions, on the thread that shares
the interpreter with the sessions. Both paths write the same rows
(tests/store/test_bulk_paths.py).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import duckdb

from ._prepare import SessionWrite
from ._rows import EVENT_COLUMNS, SESSION_COLUMNS

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
# One list parameter per column, zipped back into rows by UNNEST: a thousand session rows
# cost one statement. Casts are explicit so a column of NULLs still gets its type.
_INSERT_SESSIONS = f"INSERT INTO sessions ({', '.join(SESSION_COLUMNS)}) SELECT " + ", ".join(
    f"unnest(${i + 1}::VARCHAR[])::JSON" if t == "JSON" else f"unnest(${i + 1}::{t}[])"
    for i, t in enumerate(_SESSION_TYPES)
)

_VIEW = "sessionproof_event_batch"
"""The name the batch's event columns are registered under, for one statement only."""
_EVENT_TYPES = (
    "VARCHAR",  # run_id
    "VARCHAR",  # session_id
    "BIGINT",  # seq
    "BIGINT",  # turn
    "BIGINT",  # step
    "DOUBLE",  # t_wall
    "DOUBLE",  # t_mono
    "VARCHAR",  # kind
    "JSON",  # payload
)
_NUMPY_DTYPES = {"VARCHAR": "object", "JSON": "object", "BIGINT": "int64", "DOUBLE": "float64"}
_INSERT_EVENTS = (
    f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) SELECT "
    + ", ".join(EVENT_COLUMNS[:-1])
    + f", payload::JSON FROM {_VIEW}"
)
_INSERT_EVENT_LISTS = f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) SELECT " + ", ".join(
    f"unnest(${i + 1}::VARCHAR[])::JSON" if t == "JSON" else f"unnest(${i + 1}::{t}[])"
    for i, t in enumerate(_EVENT_TYPES)
)

LIST_PARAMETER_EVENTS = 4000
"""Up to this many events a batch goes in as list parameters (when NumPy is not loaded yet);
beyond, as NumPy columns."""


def numpy_loaded() -> bool:
    """True when the process has imported NumPy already (the columns then cost no import)."""
    return "numpy" in sys.modules


def insert_batch(conn: duckdb.DuckDBPyConnection, batch: Sequence[SessionWrite]) -> None:
    """Insert every session row and event of `batch` (inside the caller's transaction)."""
    if not batch:
        return
    rows = [item.session for item in batch]
    conn.execute(_INSERT_SESSIONS, [list(column) for column in zip(*rows, strict=True)])
    columns: list[list[Any]] = [[] for _ in EVENT_COLUMNS]
    for item in batch:
        for merged, column in zip(columns, item.events, strict=True):
            merged.extend(column)
    if not columns[0]:
        return
    if len(columns[0]) <= LIST_PARAMETER_EVENTS and not numpy_loaded():
        conn.execute(_INSERT_EVENT_LISTS, columns)
        return
    import numpy as np  # loaded already, or a batch large enough to be worth the import

    arrays = {
        name: np.array(values, dtype=_NUMPY_DTYPES[kind])
        for name, values, kind in zip(EVENT_COLUMNS, columns, _EVENT_TYPES, strict=True)
    }
    conn.register(_VIEW, arrays)
    try:
        conn.execute(_INSERT_EVENTS)
    finally:
        conn.unregister(_VIEW)


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
    batch, as durable as through the WAL. For a thousand tau2 sessions the commit and the
    next one took 68-76 ms against 94-101 (the store write alone: 1,903-1,933 sessions/s
    against 1,773-1,781 in the same hour). Smaller batches (a run's) keep the WAL, whose
    commits cost less than a checkpoint each.
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
