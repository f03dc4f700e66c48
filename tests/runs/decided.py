"""What executor tests compare: the stored sessions of a run, and what in each must not
depend on where it ran."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessionproof.records import FaultInjectedEvent, Session
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
