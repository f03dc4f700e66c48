"""Sessions a store wrote in this process, decoded from the very rows it wrote.

A run writes each session as it ends and, at its end, reads them all back for its report:
decoding 600 sessions' rows costs ~0.2 s, after the last model call, while the writer
thread spends most of the run waiting for sessions to end. So a `Store` asked to keep its
writes decodes each batch on that thread, right after the commit, from the same row values
it handed DuckDB (scrubbed, in `SESSION_COLUMNS` / `EVENT_COLUMNS` order), through the same
`session_from_rows` a read uses: what a later `load_sessions` returns is unchanged, only
sooner. Sessions are never updated or deleted once stored, so a kept copy stays true.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import Session
from ._prepare import SessionWrite
from ._rows import session_from_rows

KEEP_LIMIT = 20_000
"""Sessions kept at most; past it keeping stops (and what was kept is dropped): a longer
run's report reads its sessions back from the file, as without keeping."""


def _seq(row: tuple[object, ...]) -> int:
    seq = row[2]  # EVENT_COLUMNS: run_id, session_id, seq, ...
    assert isinstance(seq, int)
    return seq


class KeptSessions:
    """Run id → session id → the session as stored, for what one `Store` wrote."""

    def __init__(self, limit: int = KEEP_LIMIT) -> None:
        self.limit = limit
        self._runs: dict[str, dict[str, Session]] = {}
        self._count = 0
        self.active = True
        """False once the limit was passed: nothing is kept any more."""

    def add(self, batch: Sequence[SessionWrite]) -> None:
        """Keep the sessions of a committed batch, decoded from its rows."""
        if not self.active:
            return
        if self._count + len(batch) > self.limit:
            self.active = False
            self._runs.clear()
            return
        for write in batch:
            # In seq order, as a read returns them (a session's events may come in any order).
            events = sorted(zip(*write.events, strict=True), key=_seq)
            session = session_from_rows(tuple(write.session), events)
            self._runs.setdefault(session.run_id, {})[session.session_id] = session
        self._count += len(batch)

    def get(self, run_id: str, session_ids: Sequence[str]) -> list[Session] | None:
        """The kept sessions of `run_id` with these ids, in that order; None unless every
        one was kept."""
        kept = self._runs.get(run_id)
        if kept is None:
            return None
        try:
            return [kept[sid] for sid in session_ids]
        except KeyError:
            return None
