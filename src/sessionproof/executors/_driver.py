"""The Ray executor's driver: sessions as calls on a pool of Ray actors, stored here.

The driver alone writes the store, once per finished session, in the order results arrive.
A worker process that dies (killed, out of memory, an agent that exits the interpreter) is
restarted by Ray and its in-flight sessions are run again (`max_task_retries`); a result
then arrives once per session, and the driver still drops any (scenario, trial, arm) it has
stored already, so no session is ever stored twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from typing import Any

from ..engine import Progress, SessionSink
from ..engine._internal import RunItem, RunPlan, todo_items
from ..errors import InfraError, SessionproofError
from ..records import Session
from ..suites import Suite
from ._cluster import connect, import_ray
from ._worker import SessionWorker, WorkerSpec

SESSION_RETRIES = 3
"""Times a session is run again after its worker process died (then the run stops, still
`running`, for `resume`)."""

_Item = RunItem


def _cause(exc: BaseException) -> BaseException:
    """The worker's own exception inside Ray's wrapper (a `ConfigError` stays one)."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


async def execute_ray(
    spec: WorkerSpec,
    loaded: Suite,
    plan: RunPlan,
    sink: SessionSink,
    progress: Progress | None = None,
    *,
    address: str | None = None,
) -> list[Session]:
    """Run every (scenario, trial, arm) of `plan` not in `plan.skip` on Ray (the cluster at
    `address`, else as `connect` finds one); return the sessions run now, each handed to
    `sink` once, as soon as its result reaches the driver.

    `plan.concurrency` sessions are in flight at once, spread over one actor per CPU of the
    cluster (never more actors than session slots). Raises `ConfigError` without Ray.
    """
    ray = import_ray()
    todo = todo_items(loaded, plan)
    if progress:
        progress.start(len(todo) + len(plan.skip), len(plan.skip))
    if not todo:
        return []
    with connect(address) as cpus:
        slots = max(1, min(plan.concurrency, len(todo)))
        n_actors = max(1, min(slots, cpus))
        actor_class = ray.remote(SessionWorker).options(
            num_cpus=1,
            max_concurrency=math.ceil(slots / n_actors),
            max_restarts=-1,
            max_task_retries=SESSION_RETRIES,
        )
        actors = [actor_class.remote(spec) for _ in range(n_actors)]
        try:
            return await _drive(ray, actors, todo, slots, sink, progress)
        finally:
            await _close(ray, actors)


async def _drive(
    ray: Any,
    actors: list[Any],
    todo: list[_Item],
    slots: int,
    sink: SessionSink,
    progress: Progress | None,
) -> list[Session]:
    queue: asyncio.Queue[_Item] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)
    finished: list[Session] = []
    stored: set[tuple[str, int, str]] = set()

    async def slot(actor: Any) -> None:
        while True:
            try:
                scenario_id, trial, arm_index, _ = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            try:
                session: Session = await actor.run.remote(scenario_id, trial, arm_index)
            except ray.exceptions.RayTaskError as exc:
                cause = _cause(exc)
                if isinstance(cause, SessionproofError):
                    raise cause from None
                raise InfraError(
                    f"session {scenario_id} trial {trial} failed on a Ray worker: "
                    f"{type(cause).__name__}: {cause}"
                ) from None
            except ray.exceptions.RayError as exc:
                raise InfraError(
                    f"session {scenario_id} trial {trial}: its Ray worker died, and again on "
                    f"each of {SESSION_RETRIES} retries ({type(exc).__name__}); the run can "
                    "be resumed"
                ) from None
            key = (session.scenario_id, session.trial, session.arm)
            if key in stored:
                continue  # a retried session that had finished already: keep the first
            stored.add(key)
            sink.write_session(session)
            finished.append(session)
            if progress:
                progress.advance(session)

    tasks = [asyncio.create_task(slot(actors[i % len(actors)])) for i in range(slots)]
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
    return finished


async def _close(ray: Any, actors: list[Any]) -> None:
    """Let each worker close its agents, then end it (a dead one is just ended)."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(asyncio.gather(*(a.close.remote() for a in actors)), 30)
    for actor in actors:
        with contextlib.suppress(Exception):
            ray.kill(actor)
