"""The record of a session whose worker process died on every try.

A session that kills its worker process (an agent calling `os._exit`, a native crash, the
OOM killer) is run again on a fresh worker, up to `SESSION_RETRIES` times. After that it is
stored as `infra_error` — not judged, counted apart with its reason — and the run goes on:
one poison session must not abort the run, nor every `--resume` of it (a stored session is
not run again).
"""

from __future__ import annotations

import time

from ..engine._internal import RunItem, session_id
from ..records import EventKind, Session, TerminationReason
from ..records import Termination as TerminationPayload
from ..records._internal import make_event
from ._worker import WorkerSpec


def poisoned_session(spec: WorkerSpec, item: RunItem, exit_code: int | None, tries: int) -> Session:
    """The `infra_error` session of `item`, whose worker died on each of `tries` tries."""
    scenario_id, trial, arm_index, arm = item
    run_id = spec.plan.run_id
    sid = session_id(scenario_id, trial, arm_index, len(spec.plan.arms))
    how = "was killed" if exit_code is None or exit_code < 0 else f"exited with code {exit_code}"
    if exit_code is not None and exit_code < 0:
        how = f"was killed by signal {-exit_code}"
    detail = (
        f"the worker process running this session {how}, on each of {tries} tries (an agent "
        "that exits the process, or a crash); the session is not judged"
    )
    now = time.time()
    end = make_event(
        EventKind.end,
        TerminationPayload(termination=TerminationReason.infra_error, detail=detail),
        run_id=run_id,
        session_id=sid,
        seq=0,
        turn=0,
        step=0,
        t_wall=now,
        t_mono=time.monotonic(),
    )
    model = spec.model if isinstance(spec.model, str) else getattr(spec.model, "name", "")
    return Session(
        run_id=run_id,
        session_id=sid,
        scenario_id=scenario_id,
        trial=trial,
        arm=arm,
        model=model,
        events=[end],
        termination=TerminationReason.infra_error,
        termination_detail=detail,
        started_at=now,
        ended_at=now,
    )
