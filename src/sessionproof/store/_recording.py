"""One way to record a run: create its manifest, write its sessions, leave an honest status.

`run`, `rerun` and `score` all store a run the same way; this is that way, so a run that
broke off never stays `running` unless it is meant to be resumed.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from ..errors import StoreError
from ._manifest import RunManifest, RunStatus
from ._owner import this_process
from ._store import Store


@contextlib.contextmanager
def recorded_run(
    store: Store,
    manifest: RunManifest,
    *,
    create: bool = True,
    on_error: RunStatus | None = "failed",
) -> Iterator[Store]:
    """Record `manifest` in `store` (unless `create` is False: a resumed run is there
    already) with this process as its owner, yield the store to write the run's sessions
    into, then mark the run.

    The run ends `finished` when the block completes; `interrupted` when it is interrupted
    (Ctrl-C, cancellation); on any other error `on_error`, or left `running` when
    `on_error` is None (a `sessionproof run` that crashed stays resumable). A failure to
    record that status never hides the error that ended the block.
    """
    if create:
        store.create_run(manifest.model_copy(update={"owner": this_process()}))
    else:  # a resume: this process writes the run now
        store.set_status(manifest.run_id, "running", owner=this_process())
    try:
        yield store
    except BaseException as exc:
        if _interrupted(exc):
            _mark(store, manifest.run_id, "interrupted")
        elif on_error is not None:
            _mark(store, manifest.run_id, on_error)
        raise
    store.set_status(manifest.run_id, "finished")


def _interrupted(exc: BaseException) -> bool:
    """Ctrl-C or a cancelled task. asyncio is not imported for this: while it is not loaded
    (a `score`), nothing can have raised its `CancelledError`."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    aio = sys.modules.get("asyncio")
    return aio is not None and isinstance(exc, aio.CancelledError)


def _mark(store: Store, run_id: str, status: RunStatus) -> None:
    # When the store itself is what broke, the original error says more than this one.
    with contextlib.suppress(StoreError):
        store.set_status(run_id, status)
