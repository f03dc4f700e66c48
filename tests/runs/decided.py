"""What executor and resume tests compare: the stored sessions of a run, what in each must
not depend on where it ran, and a stored run made to look killed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from sessionproof.records import Session
from sessionproof.records._internal import FaultInjectedEvent
from sessionproof.store import Store


def stored_sessions(store: Path, run_id: str) -> list[Session]:
    """The run's stored sessions, by session id."""
    with Store.open(store, read_only=True) as db:
        return sorted(db.load_sessions(run_id), key=lambda s: s.session_id)


def what_was_decided(session: Session) -> tuple[Any, ...]:
    """What must not depend on the executor: verdict, termination, faults, event kinds."""
    faults = [e.payload for e in session.events if isinstance(e, FaultInjectedEvent)]
    assert session.outcome is not None
    return (
        session.session_id,
        session.outcome.model_dump(),
        session.termination,
        faults,
        [e.kind for e in session.events],
    )


def forget(store: Path, run_id: str, session_ids: list[str]) -> None:
    """Make the run look killed before `session_ids` were written."""
    con = duckdb.connect(str(store))
    for sid in session_ids:
        con.execute("DELETE FROM events WHERE run_id = ? AND session_id = ?", [run_id, sid])
        con.execute("DELETE FROM sessions WHERE run_id = ? AND session_id = ?", [run_id, sid])
    con.execute("UPDATE runs SET status = 'running' WHERE run_id = ?", [run_id])
    con.close()


def assert_stored_once(store: Path, run_id: str, sessions: int) -> None:
    """The run finished with each of its `sessions` sessions stored exactly once, none of
    them an infrastructure failure (what a killed worker must not cost)."""
    with Store.open(store, read_only=True) as db:
        rows = db.session_rows(run_id)
        assert db.get_run(run_id).status == "finished"
    keys = [(r.scenario_id, r.trial, r.arm) for r in rows]
    assert len(keys) == sessions and len(set(keys)) == sessions
    assert all(r.termination != "infra_error" for r in rows)
