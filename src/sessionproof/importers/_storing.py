"""Writing imported sessions: a session the store cannot hold costs itself, not the import."""

from __future__ import annotations

from ..errors import InputFileError, StoreError
from ..records import Session
from ..store import Store
from ..store._internal import unstorable
from ._common import ImportedSession, ImportResult, RecordError

WRITE_BATCH = 1000
"""Sessions written to the store at a time: all of a large file's at once held every row
they become, beside the sessions, until the store took them (issue 41.25)."""


def write_imported(db: Store, result: ImportResult) -> list[Session]:
    """Write `result`'s sessions into `db` (their run recorded already) and return those
    written. A session the store cannot hold (an integer past its column's range, a value
    with no JSON form) is taken out of `result` with a RecordError naming it; the rest are
    written. Raises InputFileError when no session of the file can be stored.

    Sessions go in batches of WRITE_BATCH, in file order; each batch is tried whole first,
    its sessions prepared one by one only when it fails.
    """
    _drop_repeats(result)
    total = len(result.sessions)
    kept: list[ImportedSession] = []
    first = ""
    for start in range(0, total, WRITE_BATCH):
        stored, problem = _write_batch(db, result, result.sessions[start : start + WRITE_BATCH])
        kept.extend(stored)
        first = first or problem
    if total and not kept:
        raise InputFileError(
            f"{result.source}: none of its {total} sessions can be stored; the first: {first}"
        )
    result.sessions = kept
    return [item.session for item in kept]


def _write_batch(
    db: Store, result: ImportResult, batch: list[ImportedSession]
) -> tuple[list[ImportedSession], str]:
    """Write `batch`, each session the store cannot hold named in `result`'s errors instead;
    the sessions written and the first problem ("" when none)."""
    sessions = [item.session for item in batch]
    try:
        db.write_sessions(sessions)
        return batch, ""
    except StoreError:
        problems = unstorable(sessions)
        if not problems:
            raise  # the store itself failed, not a session: nothing to skip
    kept = []
    for position, item in enumerate(batch):
        problem = problems.get(position)
        if problem is None:
            kept.append(item)
            continue
        # The store names the session and run first; the record error names the session.
        reason = problem.split("': ", 1)[-1] if problem.startswith("session ") else problem
        result.errors.append(
            RecordError(
                index=item.index,
                field="",
                message=f"cannot be stored: {reason}",
                record_id=item.session.session_id,
            )
        )
    if kept:
        db.write_sessions([item.session for item in kept])
    return kept, next(iter(problems.values()))


def _drop_repeats(result: ImportResult) -> None:
    """Take out of `result`, each named, a session that repeats an earlier one's id or its
    (scenario, trial, arm): the store keeps one of each, and refused the whole batch."""
    keys: dict[tuple[str, int, str], int] = {}
    ids: dict[str, int] = {}
    kept = []
    for item in result.sessions:
        s = item.session
        key = (s.scenario_id, s.trial, s.arm)
        if key in keys or s.session_id in ids:
            message = (
                f"repeats the session id {s.session_id!r} of record #{ids[s.session_id]}"
                if s.session_id in ids
                else f"repeats scenario {s.scenario_id!r} trial {s.trial} arm {s.arm!r} of "
                f"record #{keys[key]}; the store keeps one session of each"
            )
            result.errors.append(
                RecordError(index=item.index, field="", message=message, record_id=s.session_id)
            )
            continue
        keys[key], ids[s.session_id] = item.index, item.index
        kept.append(item)
    if len(kept) != len(result.sessions):
        result.sessions = kept


def nothing_imported(source: str, result: ImportResult) -> str:
    """The one-line error for a file that yielded no session: what it held instead."""
    skipped = result.skipped
    if not skipped:
        return f"{source}: no session to import: the file holds no records ({result.format})"
    return (
        f"{source}: no session to import: {len(skipped)} "
        f"record{'s' if len(skipped) != 1 else ''} skipped; the first: {skipped[0]}"
    )
