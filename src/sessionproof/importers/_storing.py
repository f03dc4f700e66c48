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
    _drop_repeats(result)
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
