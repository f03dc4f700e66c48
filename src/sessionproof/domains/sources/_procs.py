"""Child processes that die with their session: their own process group, ended whole.

A server or agent started as `sh -c '...'`, `uv run ...` or `npx ...` is a tree: the process
we start and the helpers it starts. Stopping only the first leaves the helpers running, one
per session. So each child starts a new session (its own process group, whose id is its pid),
asks the kernel for SIGTERM when its parent dies (Linux `PR_SET_PDEATHSIG`, where available),
is listed with a reaper process that ends the whole group if the driver is killed outright
(`_reaper.py`), and is ended by signalling the whole group.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from ._reaper import unwatch, watch

_PR_SET_PDEATHSIG = 1
TERM_GRACE_S = 2.0
"""Seconds a process group has between SIGTERM and SIGKILL."""


def _pdeathsig() -> Callable[[], None] | None:
    # Resolved before any fork: the child only calls the function (no loading after fork).
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None

    def ask() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)

    return ask


_ASK_PDEATHSIG = _pdeathsig()


def group_options() -> dict[str, Any]:
    """Keyword arguments for `asyncio.create_subprocess_exec` / `subprocess.Popen`: a new
    process group, and the parent-death signal where the platform has one."""
    options: dict[str, Any] = {"start_new_session": True}
    if _ASK_PDEATHSIG is not None:
        options["preexec_fn"] = _ASK_PDEATHSIG
    return options


def _signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to the group; False when no process of it is left."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def spawn_group(*argv: str, **options: Any) -> asyncio.subprocess.Process:
    """`asyncio.create_subprocess_exec(*argv, **options)` as the leader of a new process
    group that the reaper ends should this process die first; end it with `end_group`."""
    program, *args = argv
    proc = await asyncio.create_subprocess_exec(program, *args, **{**options, **group_options()})
    watch(proc.pid)
    return proc


async def end_group(proc: asyncio.subprocess.Process, grace_s: float = TERM_GRACE_S) -> None:
    """End `proc` and every process of its group (the group it leads, see `group_options`):
    SIGTERM, then SIGKILL after `grace_s`; reaps `proc`. Polls, so that it runs as well
    inside a shielded anyio scope as in plain asyncio."""
    pgid = proc.pid
    if _signal_group(pgid, signal.SIGTERM):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace_s
        while loop.time() < deadline and _signal_group(pgid, 0):
            await asyncio.sleep(0.02)
        _signal_group(pgid, signal.SIGKILL)
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
    unwatch(pgid)
