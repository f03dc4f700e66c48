"""Temporary copies of a store a run holds, and the ones killed readers left behind.

`show` and `runs` read a store a run is writing through a copy in a temporary folder (DuckDB
lets no other process open it). A reader that is killed never removes its copy: a whole
store each time. Each folder's name carries its reader's PID, and every new snapshot first
removes the folders of readers that are gone.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

PREFIX = "sessionproof-snapshot-"
_OWNED = re.compile(rf"^{re.escape(PREFIX)}(\d+)-")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def sweep_stale(base: str | Path | None = None) -> list[Path]:
    """Remove the snapshot folders under `base` (the temporary folder) whose reader process
    is gone; return them. Folders of live readers, of other users, and without a PID are
    left alone."""
    root = Path(base or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for entry in entries:
        found = _OWNED.match(entry.name)
        if found is None or int(found.group(1)) == os.getpid() or _alive(int(found.group(1))):
            continue
        try:
            if entry.is_symlink() or not entry.is_dir() or entry.stat().st_uid != os.getuid():
                continue
        except OSError:
            continue
        shutil.rmtree(entry, ignore_errors=True)
        if not entry.exists():
            removed.append(entry)
    return removed


def new_snapshot_dir() -> Path:
    """A fresh folder for one snapshot, named after this process; stale ones removed first."""
    sweep_stale()
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
