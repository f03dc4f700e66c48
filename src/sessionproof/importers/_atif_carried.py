"""What sessionproof's own ATIF export carries beside the steps, read back.

`export --format atif` puts, in each trajectory's `extra.sessionproof`, the session whole
(`session`: the trial, arm, faults, drift, guard decisions and verdicts ATIF has no field for)
and the run it came from (`run`: its suite, limit and arms). The session is restored only when
its conversation equals the one the steps hold: a file edited by another tool is read from its
steps alone, and says so.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from ..records import Session
from ._common import RecordError, first_problem

ATIF_VERSION = "ATIF-v1.7"
"""The ATIF version `export --format atif` writes."""
ATIF_CARRIER = "sessionproof"
"""The key, in a trajectory's `extra`, of what sessionproof's export carries beside the steps."""


def _conversation(session: Session) -> list[tuple[Any, ...]]:
    """What the ATIF steps hold of a session, in a form two readings can be compared in."""
    out: list[tuple[Any, ...]] = []
    for m in session.messages():
        calls = tuple(
            (c.id, c.name, json.dumps(c.arguments if c.arguments is not None else c.raw_arguments))
            for c in m.tool_calls
        )
        out.append((m.role, m.content or None, calls, m.tool_call_id))
    return out


def restore_session(
    carried: object, native: Session, run_id: str, index: int
) -> tuple[Session | None, RecordError | None]:
    """The carried session under `run_id` when it agrees with the steps' reading (`native`);
    else None and a warning saying why it was not restored."""
    where = f"extra.{ATIF_CARRIER}.session"
    try:
        session = Session.model_validate(carried)
    except ValidationError as exc:
        where, message = first_problem(exc, where)
        return None, _not_restored(index, native, where, message)
    if _conversation(session) != _conversation(native):
        message = "the conversation differs from the steps (edited?)"
        return None, _not_restored(index, native, where, message)
    events = [e.model_copy(update={"run_id": run_id}) for e in session.events]
    return session.model_copy(update={"run_id": run_id, "events": events}), None


def _not_restored(index: int, native: Session, where: str, why: str) -> RecordError:
    return RecordError(
        index=index,
        field=where,
        message=f"the carried sessionproof session is not restored: {why}; read from the steps",
        record_id=native.session_id,
        fatal=False,
    )


def run_of(carried: list[object]) -> tuple[str | None, int | None, list[str]]:
    """(suite, limit, arms) of the one run every trajectory's carried `run` names; (None,
    None, []) when one carries none, or they name several."""
    runs = [r for r in carried if isinstance(r, dict)]
    if not runs or len(runs) != len(carried):
        return None, None, []
    suites = {r.get("suite") for r in runs}
    suite = suites.pop() if len(suites) == 1 else None
    if not isinstance(suite, str) or len({r.get("run_id") for r in runs}) != 1:
        return None, None, []
    limit, arms = runs[0].get("limit"), runs[0].get("arms")
    return (
        suite,
        limit if isinstance(limit, int) else None,
        [a for a in arms if isinstance(a, str)] if isinstance(arms, list) else [],
    )
