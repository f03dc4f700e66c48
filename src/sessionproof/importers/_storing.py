"""Writing imported sessions: a session the store cannot hold costs itself, not the import."""

from __future__ import annotations

from ..errors import InputFileError, StoreError
from ..records import Session
from ..store import Store, unstorable
from ._common import ImportResult, RecordError


def write_imported(db: Store, result: ImportResult) -> list[Session]:
    """Write `result`'s sessions into `db` (their run recorded already) and return those
    written. A session the store cannot hold (an integer past its column's range, a value
    with no JSON form) is taken out of `result` with a RecordError naming it; the rest are
    written. Raises InputFileError when no session of the file can be stored.

    The whole batch is tried first: the sessions are prepared one by one only when it fails.
    """
    sessions = [item.session for item in result.sessions]
    if not sessions:
        return []
    try:
        db.write_sessions(sessions)
        return sessions
    except StoreError:
        problems = unstorable(sessions)
        if not problems:
            raise  # the store itself failed, not a session: nothing to skip
    kept = []
    for position, item in enumerate(result.sessions):
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
    result.sessions = kept
    if not kept:
        first = next(iter(problems.values()))
        raise InputFileError(
            f"{result.source}: none of its {len(sessions)} sessions can be stored; the first: "
            f"{first}"
        )
    written = [item.session for item in kept]
    db.write_sessions(written)
    return written


def nothing_imported(source: str, result: ImportResult) -> str:
    """The one-line error for a file that yielded no session: what it held instead."""
    skipped = result.skipped
    if not skipped:
        return f"{source}: no session to import: the file holds no records ({result.format})"
    return (
        f"{source}: no session to import: {len(skipped)} "
        f"record{'s' if len(skipped) != 1 else ''} skipped; the first: {skipped[0]}"
    )
