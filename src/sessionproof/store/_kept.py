"""Sessions a store wrote in this process, kept as a read of the file would return them.

A run writes each session as it ends and, at its end, reads them all back for its report:
decoding 600 sessions' rows costs ~0.2 s after the last model call. So a `Store` asked to
keep its writes keeps, right after each commit, what `load_sessions` would give for them.

For a session whose stored values are exactly its own, that is the written object itself:
each JSON text written (payloads, outcome, metadata, usage) is parsed back and compared
with the object's plain Python dump, and the scrubbed columns with its fields. Equal means
nothing was scrubbed or lost on the way to JSON (a tuple became a list, NaN became null, an
int key a string, a broken surrogate "?"), so validating the parsed text, which is what a
read does, would rebuild an equal object. Parsing and comparing costs ~3 µs an event;
validating ~10 µs. Any other session is decoded from the rows written, through the same
`session_from_rows` a read uses. Stored sessions are never updated or deleted, so a kept
copy stays true.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from pydantic import BaseModel

from ..records import Session
from ._prepare import SessionWrite
from ._rows import EVENT_COLUMNS, SESSION_COLUMNS, session_from_rows

KEEP_LIMIT = 20_000
"""Sessions kept at most; past it keeping stops (and what was kept is dropped): a longer
run's report reads its sessions back from the file, as without keeping."""

_COLUMN = {name: i for i, name in enumerate(SESSION_COLUMNS)}
_SCRUBBED = ("session_id", "scenario_id", "arm", "model", "termination_detail")
"""The `sessions` columns that hold the session's text fields, scrubbed."""
_SEQ = EVENT_COLUMNS.index("seq")
_PAYLOAD = EVENT_COLUMNS.index("payload")


def _seq(row: tuple[object, ...]) -> int:
    seq = row[_SEQ]
    assert isinstance(seq, int)
    return seq


def _plain(model: BaseModel) -> Any:
    # The serializer itself, Python mode: enums stay members, tuples tuples, NaN NaN.
    return model.__pydantic_serializer__.to_python(model)


def _same(text: str | None, value: Any) -> bool:
    return text is not None and orjson.loads(text) == value


def _as_stored(session: Session, write: SessionWrite) -> bool:
    """`session` is what reading `write`'s rows back would give."""
    row = write.session
    if any(row[_COLUMN[name]] != getattr(session, name) for name in _SCRUBBED):
        return False
    outcome = row[_COLUMN["outcome"]]
    if session.outcome is None:
        if outcome is not None:
            return False
    elif not _same(outcome, _plain(session.outcome)):
        return False
    if not _same(row[_COLUMN["usage"]], _plain(session.usage)):
        return False
    if not _same(row[_COLUMN["metadata"]], session.metadata):
        return False
    texts = write.events[_PAYLOAD]
    events = session.events
    if len(texts) != len(events):
        return False
    last = -1
    for event, text in zip(events, texts, strict=True):
        if event.seq <= last or not _same(text, _plain(event.payload)):
            return False  # out of seq order (a read sorts them), or changed on the way
        last = event.seq
    return True


def stored_form(session: Session, write: SessionWrite) -> Session:
    """What `load_sessions` returns for `session`, written as `write`: the object itself
    when its stored values are its own, else the decoded rows."""
    if _as_stored(session, write):
        return session
    events = sorted(zip(*write.events, strict=True), key=_seq)
    return session_from_rows(tuple(write.session), events)


class KeptSessions:
    """Run id → session id → the session as stored, for what one `Store` wrote."""

    def __init__(self, limit: int = KEEP_LIMIT) -> None:
        self.limit = limit
        self._runs: dict[str, dict[str, Session]] = {}
        self._count = 0
        self.active = True
        """False once the limit was passed: nothing is kept any more."""

    def add(self, sessions: Sequence[Session], batch: Sequence[SessionWrite]) -> None:
        """Keep the sessions of a committed batch (`batch[i]` is how `sessions[i]` was
        written)."""
        if not self.active:
            return
        if self._count + len(batch) > self.limit:
            self.active = False
            self._runs.clear()
            return
        for session, write in zip(sessions, batch, strict=True):
            kept = stored_form(session, write)
            self._runs.setdefault(kept.run_id, {})[kept.session_id] = kept
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
