"""A run whose store stopped taking its sessions (a full disk, a failed write): one line
naming the store and the cause, and the run marked `interrupted` for `resume`."""

from __future__ import annotations

import contextlib
import shlex
from typing import NoReturn

from ..errors import DuplicateSessionError, StoreError
from ..store import Store

DISK_FULL_SIGNS = ("no space left on device", "disk quota exceeded", "file too large")
"""How the OS's ENOSPC, EDQUOT and EFBIG read in DuckDB's messages: the store's disk (or
the process's file size limit) is full."""


def stop_writing(db: Store, run_id: str, error: StoreError) -> NoReturn:
    """Stop run `run_id`, whose session could not be written into `db` (`error`), with one
    line naming the store and the cause; mark the run `interrupted` first, when the store
    still takes that.

    The sessions stored before stay, and `resume` runs the rest. A duplicate session is the
    run's own fault, not the store's: it is raised as it is (and the run left as it is).
    """
    if isinstance(error, DuplicateSessionError):
        raise error
    # A store that cannot take this either still shows the run `interrupted` once this
    # process is gone (`RunManifest.shown_status`).
    with contextlib.suppress(StoreError):
        db.set_status(run_id, "interrupted")
    text = str(error)
    cause = "disk full" if any(sign in text.lower() for sign in DISK_FULL_SIGNS) else "write failed"
    raise StoreError(
        f"store {db.path}: {cause}, run {run_id} stopped: {text} (the sessions stored before "
        f"are kept; once the store can be written: sessionproof run --resume {run_id} "
        f"--store {shlex.quote(str(db.path))})"
    ) from error
