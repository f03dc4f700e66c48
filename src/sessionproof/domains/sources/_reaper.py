"""A watchdog for the process groups we start: they end even when we are killed outright.

SIGKILL gives a process no chance to stop its children, and the kernel's parent-death
signal reaches only a direct child, never the helpers it started. So the first group we
start also starts one small reaper process per driver process: it reads "+PGID" and "-PGID"
lines on a pipe from us, and when the pipe closes — we exited, however — it ends every group
still listed (SIGTERM, then SIGKILL). A normal end has already ended them: it does nothing.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from typing import IO

_PROGRAM = """
import os, signal, sys, time
groups = set()
for raw in sys.stdin.buffer:
    word = raw.strip().decode("ascii", "replace")
    if word[:1] in "+-" and word[1:].isdigit():
        (groups.add if word[0] == "+" else groups.discard)(int(word[1:]))
def send(sig):
    for pgid in groups:
        try:
            os.killpg(pgid, sig)
        except OSError:
            pass
send(signal.SIGTERM)
if groups:
    time.sleep(2)
    send(signal.SIGKILL)
"""

_lock = threading.Lock()
_pipe: IO[bytes] | None = None
_owner = 0


def _reaper() -> IO[bytes] | None:
    global _pipe, _owner
    if _pipe is not None and _owner == os.getpid():
        return _pipe
    if _pipe is not None:  # inherited through a fork: that reaper is the parent's
        with contextlib.suppress(OSError):
            _pipe.close()
        _pipe = None
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _PROGRAM],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C to our group must not stop it first
        )
    except OSError:
        return None
    _pipe, _owner = proc.stdin, os.getpid()
    return _pipe


def _tell(line: str) -> None:
    with _lock:
        pipe = _reaper()
        if pipe is None:
            return
        with contextlib.suppress(OSError, ValueError):
            pipe.write(line.encode() + b"\n")
            pipe.flush()


def watch(pgid: int) -> None:
    """End process group `pgid` if this process dies before `unwatch(pgid)`."""
    _tell(f"+{pgid}")


def unwatch(pgid: int) -> None:
    """Group `pgid` was ended by us: the reaper forgets it."""
    _tell(f"-{pgid}")
