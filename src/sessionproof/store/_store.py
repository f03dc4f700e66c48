"""The trace store: one embedded DuckDB file holding runs, sessions and their events."""

from __future__ import annotations

import contextlib
import re
import shutil
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, get_args

import duckdb

from .._defaults import DEFAULT_STORE_PATH as DEFAULT_STORE_PATH
from .._gc import paused_gc
from .._version import __version__
from ..errors import DuplicateSessionError, StoreError, StoreLockedError
from ..records import Session
from ._bulk import direct_commit, insert_batch
from ._export import export_parquet
from ._kept import KeptSessions
from ._manifest import RunListing, RunManifest, RunStatus, SessionRow
from ._owner import RunOwner
from ._prepare import SessionWrite, prepare, prepare_batch
from ._rows import EVENT_COLUMNS, ROW_COLUMNS, SESSION_COLUMNS, session_from_rows, session_row
from ._schema import connect, ensure_schema, first_line, query_error
from ._snapshots import new_snapshot_dir

_RECENT = 5
_SNAPSHOT_TRIES = 3
"""Copies tried when a copy taken mid-checkpoint cannot be opened."""
_PID = re.compile(r"PID (\d+)")

_INSERT_SESSION = (
    f"INSERT INTO sessions ({', '.join(SESSION_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(SESSION_COLUMNS))})"
)

# All events of a session in one statement: each column arrives as one list parameter and
# UNNEST zips them back into rows. Row-at-a-time `executemany` is ~10x slower in DuckDB.
_EVENT_TYPES = ("VARCHAR", "VARCHAR", "INTEGER", "INTEGER", "INTEGER", "DOUBLE", "DOUBLE")
_INSERT_EVENTS = (
    f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) SELECT "
    + ", ".join(f"unnest(${i + 1}::{t}[])" for i, t in enumerate(_EVENT_TYPES))
    + ", unnest($8::VARCHAR[]), unnest($9::VARCHAR[])::JSON"
)


class Store:
    """The trace store. Open it with `Store.open(path)`, preferably as a context manager.

    Sessions are written whole, once, in one transaction each; runs carry a manifest. One
    process may hold a store open for writing at a time (DuckDB's rule); a second gets
    `StoreLockedError`. Not thread-safe: use it from one thread (the engine's event loop).
    """

    def __init__(self, conn: duckdb.DuckDBPyConnection, path: Path, read_only: bool) -> None:
        """Wrap an open connection; use `Store.open` rather than calling this."""
        self._conn: duckdb.DuckDBPyConnection | None = conn
        self._path = path
        self._read_only = read_only
        # Run ids known to exist, so write_session checks its run once, not per session.
        self._known_runs: set[str] = set()
        self._kept: KeptSessions | None = None
        self.snapshot_dir: Path | None = None
        """The private copy being read, when the store was locked (removed on close)."""
        self.snapshot_of: int | None = None
        """PID of the process holding the store when a snapshot is read (0 if unknown)."""

    @classmethod
    def open(cls, path: str | Path = DEFAULT_STORE_PATH, read_only: bool = False) -> Store:
        """Open (or create, unless `read_only`) the store at `path`.

        Raises StoreError when the file is not a DuckDB database, is damaged, was written by
        a newer schema, or (StoreLockedError) another process holds it for writing.
        """
        resolved = Path(path)
        conn = connect(resolved, read_only)
        try:
            ensure_schema(conn, resolved, read_only, f"sessionproof {__version__}")
        except BaseException:
            conn.close()
            raise
        return cls(conn, resolved, read_only)

    @classmethod
    def open_for_reading(cls, path: str | Path = DEFAULT_STORE_PATH) -> Store:
        """Open the store at `path` read-only, even while a run holds it for writing.

        DuckDB lets no other process open a file another holds for writing, so then the file
        and its write-ahead log are copied to a temporary folder and the copy is read:
        `snapshot_of` names the holder's PID. Sessions are committed whole, so the copy has
        every session finished when it was taken. Raises like `open` otherwise.
        """
        try:
            return cls.open(path, read_only=True)
        except StoreLockedError as locked:
            found = _PID.search(str(locked))
            holder = int(found.group(1)) if found else 0
            resolved = Path(path)
        for attempt in range(_SNAPSHOT_TRIES):
            folder = new_snapshot_dir()  # removes what killed readers left
            try:
                store = cls._open_copy(resolved, folder)
            except StoreError:
                shutil.rmtree(folder, ignore_errors=True)
                if attempt == _SNAPSHOT_TRIES - 1:
                    raise
                continue
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            store.snapshot_dir, store.snapshot_of = folder, holder
            return store
        raise AssertionError("unreachable")  # the loop returns or raises

    @classmethod
    def _open_copy(cls, path: Path, folder: Path) -> Store:
        copy = folder / path.name
        wal = path.with_name(path.name + ".wal")
        try:
            # The file first, then its log: a checkpoint in between leaves an older log
            # whose transactions the file already has, which DuckDB replays harmlessly.
            shutil.copyfile(path, copy)
            if wal.exists():
                shutil.copyfile(wal, copy.with_name(copy.name + ".wal"))
        except FileNotFoundError:
            pass  # the log was checkpointed away mid-copy: the file alone is whole
        except OSError as exc:
            raise StoreError(f"cannot copy store {path} to read it: {exc}") from exc
        conn = connect(copy, True)
        try:
            ensure_schema(conn, path, True, f"sessionproof {__version__}")
        except BaseException:
            conn.close()
            raise
        return cls(conn, path, True)

    @property
    def path(self) -> Path:
        """The store file."""
        return self._path

    @property
    def read_only(self) -> bool:
        """True when opened read-only."""
        return self._read_only

    def close(self) -> None:
        """Close the file (idempotent). DuckDB checkpoints its write-ahead log on close."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self.snapshot_dir is not None:
            shutil.rmtree(self.snapshot_dir, ignore_errors=True)

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- plumbing -------------------------------------------------------------------------

    def _db(self) -> duckdb.DuckDBPyConnection:
        if self._conn is None:
            raise StoreError(f"store {self._path} is closed")
        return self._conn

    def _writable(self) -> duckdb.DuckDBPyConnection:
        if self._read_only:
            raise StoreError(f"store {self._path} is open read-only")
        return self._db()

    def _query(self, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        try:
            return self._db().execute(sql, params or []).fetchall()
        except duckdb.Error as exc:
            raise query_error(self._path, exc) from exc

    def _rollback(self) -> None:
        # After a failed COMMIT there may be no transaction left to roll back.
        with contextlib.suppress(duckdb.Error):
            self._db().rollback()

    def _resolve(self, run_id: str) -> str:
        """The full id of the run `run_id` names exactly or by a unique prefix."""
        if not run_id:
            raise StoreError("empty run id")
        if self._query("SELECT 1 FROM runs WHERE run_id = ?", [run_id]):
            return run_id
        matches = [
            r[0]
            for r in self._query(
                "SELECT run_id FROM runs WHERE starts_with(run_id, ?) ORDER BY run_id", [run_id]
            )
        ]
        if len(matches) == 1:
            return str(matches[0])
        if matches:
            shown = ", ".join(matches[:_RECENT]) + (", ..." if len(matches) > _RECENT else "")
            raise StoreError(f"run id {run_id!r} is ambiguous: it starts {shown}")
        recent = [
            r[0]
            for r in self._query(
                "SELECT run_id FROM runs ORDER BY created_at DESC, run_id DESC LIMIT ?",
                [_RECENT],
            )
        ]
        hint = f"most recent: {', '.join(recent)}" if recent else "the store has no runs"
        raise StoreError(f"no run {run_id!r} in {self._path} ({hint})")

    # -- runs -----------------------------------------------------------------------------

    def create_run(self, manifest: RunManifest) -> str:
        """Record a new run; returns its id. StoreError if the id is already taken."""
        conn = self._writable()
        try:
            conn.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    manifest.run_id,
                    manifest.created_at,
                    manifest.command,
                    manifest.suite,
                    manifest.model,
                    manifest.status,
                    manifest.model_dump_json(),
                ],
            )
        except duckdb.ConstraintException as exc:
            raise StoreError(f"run {manifest.run_id!r} already exists in {self._path}") from exc
        except duckdb.Error as exc:
            raise StoreError(f"creating run {manifest.run_id!r} failed: {first_line(exc)}") from exc
        self._known_runs.add(manifest.run_id)
        return manifest.run_id

    def get_run(self, run_id: str) -> RunManifest:
        """The manifest of a run, named by its id or a unique prefix of it."""
        full = self._resolve(run_id)
        manifest_json, status = self._query(
            "SELECT manifest, status FROM runs WHERE run_id = ?", [full]
        )[0]
        manifest = RunManifest.model_validate_json(manifest_json)
        manifest.status = status
        # A `running` run whose process was killed reads as interrupted (stored unchanged).
        return manifest.model_copy(update={"status": manifest.shown_status})

    def set_status(self, run_id: str, status: RunStatus, owner: RunOwner | None = None) -> None:
        """Mark a run running, finished or interrupted; `owner`: the process now writing it
        (a resume), recorded with the status."""
        if status not in get_args(RunStatus):
            raise StoreError(f"unknown run status {status!r}; one of {get_args(RunStatus)}")
        conn = self._writable()
        update: dict[str, Any] = {"status": status}
        if owner is not None:
            update["owner"] = owner
        manifest = self.get_run(run_id).model_copy(update=update)
        try:
            conn.execute(
                "UPDATE runs SET status = ?, manifest = ? WHERE run_id = ?",
                [status, manifest.model_dump_json(), manifest.run_id],
            )
        except duckdb.Error as exc:
            raise StoreError(f"updating run {manifest.run_id!r} failed: {first_line(exc)}") from exc

    def list_runs(self) -> list[RunListing]:
        """Every run, oldest first, with its progress and accuracy (over judged sessions:
        infra errors and sessions without a verdict excluded; None when none was judged)."""
        rows = self._query(
            """
            SELECT r.manifest, r.status, count(s.session_id),
                   count(*) FILTER (WHERE s.success AND s.termination <> 'infra_error'),
                   count(*) FILTER (WHERE s.termination = 'infra_error'),
                   count(*) FILTER (WHERE s.success IS NULL AND s.termination <> 'infra_error')
            FROM runs r LEFT JOIN sessions s ON s.run_id = r.run_id
            GROUP BY r.run_id, r.created_at, r.manifest, r.status
            ORDER BY r.created_at, r.run_id
            """
        )
        out: list[RunListing] = []
        for manifest_json, status, done, successes, infra, unjudged in rows:
            m = RunManifest.model_validate_json(manifest_json)
            m.status = status
            counted = done - infra - unjudged  # sessions not judged are no failures
            out.append(
                RunListing(
                    run_id=m.run_id,
                    created_at=m.created_at,
                    command=m.command,
                    suite=m.suite,
                    model=m.model,
                    arms=m.arms,
                    status=m.shown_status,
                    sessions_done=done,
                    sessions_expected=m.sessions_expected,
                    successes=successes,
                    infra_errors=infra,
                    not_judged=unjudged,
                    accuracy=successes / counted if counted else None,
                )
            )
        return out

    # -- sessions -------------------------------------------------------------------------

    def keep_written(self) -> None:
        """From now on, keep a copy of each session this object writes, so that
        `load_sessions` of this process's own run (its report) need not decode the rows
        again. Each is what a read of the file would return, made on the writing thread
        right after the commit (`_kept`); up to `KEEP_LIMIT` sessions are kept."""
        if self._kept is None:
            self._kept = KeptSessions()

    @property
    def keeping(self) -> bool:
        """True while this object keeps what it writes (`keep_written`; past `KEEP_LIMIT`
        sessions it stops, and its run's sessions are read back from the file)."""
        return self._kept is not None and self._kept.active

    def write_session(self, session: Session) -> None:
        """Store one finished session and all its events in one transaction.

        Secrets are scrubbed first. Raises DuplicateSessionError when its (scenario, trial,
        arm) key or its session id is already stored in the run, and StoreError for an
        unknown run, an inconsistent session or a database failure; in every case nothing of
        the session is written.
        """
        self._known(session.run_id)
        prepared = prepare(session)
        self._transact([session], lambda conn: self._insert(conn, prepared))
        if self._kept is not None:
            self._kept.add([session], [prepared])

    def write_sessions(self, sessions: Sequence[Session]) -> None:
        """Write many finished sessions in one transaction: all of them or none.

        For bulk work (scoring or importing a file), where one commit per session would
        dominate the cost. Raises like `write_session`, naming the session at fault; on any
        error nothing is written.
        """
        if not sessions:
            return
        for run_id in {s.run_id for s in sessions}:
            self._known(run_id)
        with paused_gc():  # a few hundred thousand short-lived containers per thousand
            prepared = prepare_batch(sessions)
        with direct_commit(self._writable(), prepared):
            self._transact(sessions, lambda conn: insert_batch(conn, prepared))
        if self._kept is not None:
            with paused_gc():
                self._kept.add(sessions, prepared)

    def _known(self, run_id: str) -> None:
        if run_id not in self._known_runs:
            self._resolve_exact(run_id)

    def _transact(
        self, sessions: Sequence[Session], write: Callable[[duckdb.DuckDBPyConnection], None]
    ) -> None:
        """Run `write` in one transaction; on any failure roll back and raise a named error."""
        conn = self._writable()
        try:
            conn.begin()
            write(conn)
            conn.commit()
        except duckdb.ConstraintException as exc:
            self._rollback()
            if "duplicate key" in str(exc).lower():
                raise self._duplicate(sessions) from exc
            raise StoreError(self._failed(sessions, exc)) from exc
        except duckdb.Error as exc:
            self._rollback()
            raise StoreError(self._failed(sessions, exc)) from exc
        except BaseException:
            self._rollback()
            raise

    @staticmethod
    def _insert(conn: duckdb.DuckDBPyConnection, prepared: SessionWrite) -> None:
        conn.execute(_INSERT_SESSION, prepared.session)
        if prepared.events[0]:
            conn.execute(_INSERT_EVENTS, prepared.events)

    def _resolve_exact(self, run_id: str) -> None:
        if not self._query("SELECT 1 FROM runs WHERE run_id = ?", [run_id]):
            raise StoreError(f"no run {run_id!r} in {self._path}: create_run before writing")
        self._known_runs.add(run_id)

    def _failed(self, sessions: Sequence[Session], exc: duckdb.Error) -> str:
        first = sessions[0]
        what = (
            f"session {first.session_id!r}" if len(sessions) == 1 else f"{len(sessions)} sessions"
        )
        return (
            f"writing {what} of run {first.run_id!r} failed, nothing of it was stored: "
            f"{first_line(exc)}"
        )

    def _duplicate(self, sessions: Sequence[Session]) -> DuplicateSessionError:
        """The error naming the session that clashed: with the store, or within the batch."""
        seen_keys: set[tuple[str, str, int, str]] = set()
        seen_ids: set[tuple[str, str]] = set()
        for session in sessions:
            key = (session.run_id, session.scenario_id, session.trial, session.arm)
            same_key = self._query(
                "SELECT session_id FROM sessions WHERE run_id = ? AND scenario_id = ?"
                " AND trial = ? AND arm = ?",
                list(key),
            )
            if same_key or key in seen_keys:
                held = f" (session {same_key[0][0]!r})" if same_key else " (twice in one batch)"
                return DuplicateSessionError(
                    f"run {session.run_id!r} already has scenario {session.scenario_id!r} "
                    f"trial {session.trial} arm {session.arm!r}{held}; sessions are written once"
                )
            ident = (session.run_id, session.session_id)
            same_id = self._query(
                "SELECT 1 FROM sessions WHERE run_id = ? AND session_id = ?", list(ident)
            )
            if same_id or ident in seen_ids:
                return DuplicateSessionError(
                    f"run {session.run_id!r} already has a session with id {session.session_id!r}"
                )
            seen_keys.add(key)
            seen_ids.add(ident)
        return DuplicateSessionError(f"run {sessions[0].run_id!r}: a session is already stored")

    def finished_keys(self, run_id: str) -> set[tuple[str, int, str]]:
        """(scenario_id, trial, arm) of every session stored for a run: what resume skips."""
        full = self._resolve(run_id)
        rows = self._query("SELECT scenario_id, trial, arm FROM sessions WHERE run_id = ?", [full])
        return {(str(s), int(t), str(a)) for s, t, a in rows}

    def load_sessions(
        self, run_id: str, session_id: str | None = None, arm: str | None = None
    ) -> list[Session]:
        """Typed sessions of a run with their events in seq order, sorted by (scenario,
        trial, arm); optionally one session by id, or one arm's. An unknown session id is a
        StoreError; an arm with no sessions gives an empty list."""
        full = self._resolve(run_id)
        where = "run_id = ?"
        params: list[Any] = [full]
        if session_id is not None:
            where += " AND session_id = ?"
            params.append(session_id)
        if arm is not None:
            where += " AND arm = ?"
            params.append(arm)
        rows = self._query(
            f"SELECT {', '.join(SESSION_COLUMNS)} FROM sessions WHERE {where} "
            "ORDER BY scenario_id, trial, arm",
            params,
        )
        if session_id is not None and not rows:
            raise StoreError(f"run {full!r} has no session {session_id!r}")
        if not rows:
            return []
        if self._kept is not None:
            kept = self._kept.get(full, [row[1] for row in rows])  # SESSION_COLUMNS[1]
            if kept is not None:
                return kept  # every one kept as written: no events to read and decode
        events = self._query(
            f"SELECT {', '.join(f'e.{c}' for c in EVENT_COLUMNS)} FROM events e "
            f"SEMI JOIN (SELECT session_id FROM sessions WHERE {where}) s "
            "ON e.session_id = s.session_id WHERE e.run_id = ? ORDER BY e.session_id, e.seq",
            [*params, full],
        )
        by_session: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
        for event in events:
            by_session[event[1]].append(event)
        return [session_from_rows(row, by_session.get(row[1], [])) for row in rows]

    def session_rows(self, run_id: str) -> list[SessionRow]:
        """Every session of a run without its events, sorted by (scenario, trial, arm)."""
        full = self._resolve(run_id)
        rows = self._query(
            f"SELECT {', '.join(ROW_COLUMNS)} FROM sessions WHERE run_id = ? "
            "ORDER BY scenario_id, trial, arm",
            [full],
        )
        return [session_row(row) for row in rows]

    def export_parquet(self, out_dir: str | Path, run_id: str | None = None) -> list[Path]:
        """Write `sessions.parquet` and `events.parquet` under `out_dir` for one run (id or
        unique prefix) or, with no run id, for every run. Returns the two paths."""
        full = None if run_id is None else self._resolve(run_id)
        return export_parquet(self._db(), Path(out_dir), full)
