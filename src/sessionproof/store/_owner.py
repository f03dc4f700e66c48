"""The process that is writing a run, and whether it is still there.

A run records its owner (pid, host, and the process's start time) when it starts or resumes.
A run still marked `running` whose owner is gone from this host — no such process, or the pid
now belongs to a process that started later — was killed: listings show it as `interrupted`
(and `run --resume` finishes it as before). An owner on another host, or a run stored before
owners were recorded, cannot be checked and keeps its stored status.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

from pydantic import BaseModel, ConfigDict


class RunOwner(BaseModel):
    """The process writing a run: its pid, its host name, and its start time (an opaque
    number from the OS, None where it cannot be read) so a reused pid is not mistaken for it."""

    model_config = ConfigDict(extra="forbid")

    pid: int
    host: str
    started: int | None = None


def _stat(pid: int) -> list[str] | None:
    """Fields 3 and on of /proc/PID/stat (Linux), or None when it cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces: split after it.
    return stat[stat.rfind(")") + 2 :].split()


def process_started(pid: int) -> int | None:
    """The start time of process `pid` in clock ticks after boot (Linux: /proc/PID/stat's
    22nd field), or None when it cannot be read (no such process, or no /proc)."""
    fields = _stat(pid)
    try:
        return None if fields is None else int(fields[19])
    except (IndexError, ValueError):
        return None


def this_process() -> RunOwner:
    """The calling process as a run's owner."""
    pid = os.getpid()
    return RunOwner(pid=pid, host=socket.gethostname(), started=process_started(pid))


def _pid_exists(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it exists
    except OSError:
        return False
    return True


def owner_gone(owner: RunOwner | None) -> bool:
    """True when `owner` is known to have ended: it ran on this host and its process is no
    longer there (or its pid is now another process's). False when it may still run or
    cannot be checked (no owner recorded, another host)."""
    if owner is None or owner.host != socket.gethostname():
        return False
    if not _pid_exists(owner.pid):
        return True
    fields = _stat(owner.pid)
    if fields and fields[0] in ("Z", "X"):  # killed, not yet reaped by its parent
        return True
    if owner.started is None:
        return False
    now = process_started(owner.pid)
    return now is not None and now != owner.started
