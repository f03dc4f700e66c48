"""The local executor over worker processes: one event loop per core, the store in the driver.

One Python process spends its single core on every session's HTTP, JSON and bookkeeping;
at hundreds of requests in flight that core, not the provider, sets the pace (a bare
aiohttp client alone costs ~0.4 ms of CPU per request here). So a large local run forks
worker processes, each an asyncio loop running its share of the sessions with its own
agents and its share of the run's request window and rate limits. The driver hands out
sessions as places free up, receives each finished session, and alone writes the store
(`GroupWriter`), so crash safety is the local pool's: a session counts as finished once
written.

Workers are forked from the driver (no re-import, no pickled configuration: they start in
milliseconds with everything the driver has loaded) and talk to it over a socket pair in
length-prefixed pickles. A worker that dies has its sessions in flight run again on
another, up to `SESSION_RETRIES` times each, then stored as `infra_error` (not judged); a
session is never stored twice. Sessions get
their seeds from `plan_session` as everywhere, so verdicts do not depend on which process
ran them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import socket
import struct
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..agents._internal import ConcurrencyStats, RateLimiter, RateLimits
from ..engine import Progress, SessionSink
from ..engine._internal import GroupWriter, RunItem
from ..errors import InfraError
from ..records import Session
from ._driver import SESSION_RETRIES
from ._poison import poisoned_session
from ._worker import SessionWorker, WorkerSpec

_Item = RunItem
_HEADER = struct.Struct("!Q")
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkerShare:
    """One worker process's part of the run's limits."""

    concurrency: int
    """Its provider requests in flight (its gates' window)."""
    sessions: int
    """Its sessions in flight."""
    limits: RateLimits = field(default_factory=RateLimits)
    """Its part of `--rpm` / `--tpm`."""


def shares(concurrency: int, sessions: int, limits: RateLimits, n: int) -> list[WorkerShare]:
    """The run's request window, sessions in flight and rate limits split over `n` workers
    (the remainders to the first ones), so together they never exceed the run's."""

    def split(total: int, i: int) -> int:
        return max(1, total // n + (1 if i < total % n else 0))

    part = RateLimits(
        rpm=None if limits.rpm is None else limits.rpm / n,
        tpm=None if limits.tpm is None else limits.tpm / n,
    )
    return [WorkerShare(split(concurrency, i), split(sessions, i), part) for i in range(n)]


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def worker_count(asked: int, sessions: int, in_flight: int) -> int:
    """Worker processes to fork for `local:N`: never more than the sessions to run, nor than
    the sessions kept in flight (an idle worker costs a fork and its share of the limits for
    nothing); logs a warning when that is still more than the usable cores."""
    n = max(1, min(asked, sessions, in_flight))
    cores = usable_cores()
    if n > cores:
        _log.warning(
            "--executor local:%d forks %d worker processes on %d usable cores: they will "
            "take turns on the cores (local:%d or fewer is usually faster)",
            asked,
            n,
            cores,
            cores,
        )
    return n


# --- framing -----------------------------------------------------------------------------


def _frame(message: object) -> bytes:
    blob = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(blob)) + blob


async def _read(reader: asyncio.StreamReader) -> Any:
    """The next message, or None when the other side is gone."""
    try:
        size = _HEADER.unpack(await reader.readexactly(_HEADER.size))[0]
        return pickle.loads(await reader.readexactly(size))
    except (asyncio.IncompleteReadError, ConnectionError):
        return None


def _portable(exc: BaseException) -> BaseException:
    """`exc` if it survives pickling, else an `InfraError` saying what it was."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return InfraError(f"{type(exc).__name__}: {exc}")


# --- the worker process ------------------------------------------------------------------


def _child(
    sock: socket.socket, drivers: list[socket.socket], spec: WorkerSpec, share: WorkerShare
) -> None:
    """A forked worker's whole life: serve sessions until told to close or orphaned."""
    # The fork copied the driver's ends of every socket pair, this one's included: held
    # here, they would keep each worker's socket open after the driver closed or died, and
    # no worker would ever see its end.
    for other in drivers:
        other.close()
    # Ctrl-C is the driver's to handle (it ends the workers); the driver loop's signal
    # wake-up pipe is not ours to write to.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(ValueError):
        signal.set_wakeup_fd(-1)
    asyncio.run(_serve(sock, spec, share))


async def _serve(sock: socket.socket, spec: WorkerSpec, share: WorkerShare) -> None:
    reader, writer = await asyncio.open_connection(sock=sock)
    limiter = RateLimiter(share.concurrency, share.limits)
    worker = SessionWorker(spec, limiter)
    running: set[asyncio.Task[None]] = set()

    async def one(key: int, item: _Item) -> None:
        try:
            # As JSON, validated again by the driver: cheaper than pickling the models
            # both ways (0.8 against 1.3 ms per tau2 session), and the driver trusts no
            # process's objects more than it trusts a stored session.
            session = await worker.run(*item[:3])
            reply: tuple[str, int, object] = ("done", key, session.model_dump_json())
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            # Whatever one process's run would raise (an error, SystemExit...) is raised by
            # the driver: the worker reports it instead of dying with it.
            reply = ("error", key, _portable(exc))
        # A driver that stopped (a full disk) closed its end: asyncio would log every write
        # to it ("socket.send() raised exception.") on the console.
        if not writer.is_closing():
            writer.write(_frame(reply))

    try:
        while (message := await _read(reader)) is not None and message[0] == "run":
            task = asyncio.create_task(one(message[1], message[2]))
            running.add(task)
            task.add_done_callback(running.discard)
        if message is None:  # the driver is gone: nobody to report to
            for task in running:
                task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
    finally:
        with contextlib.suppress(Exception):
            await worker.close()
        with contextlib.suppress(Exception):
            if not writer.is_closing():
                writer.write(_frame(("stats", 0, limiter.stats())))
                await writer.drain()
            writer.close()


# --- the driver --------------------------------------------------------------------------


class _Link:
    """The driver's end of one worker process."""

    def __init__(self, proc: Any, share: WorkerShare) -> None:
        self.proc = proc
        self.share = share
        self.sock: socket.socket | None = None
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.inflight: dict[int, _Item] = {}
        self.stats: ConcurrencyStats | None = None


@dataclass
class ProcessRun:
    """What a run over worker processes returns."""

    sessions: list[Session]
    """The sessions run now, in the order they were stored."""
    stats: list[ConcurrencyStats]
    """Each worker's request admission statistics."""


async def _spawn(spec: WorkerSpec, share: WorkerShare, links: list[_Link]) -> _Link:
    ctx = multiprocessing.get_context("fork")
    ours, theirs = socket.socketpair()
    drivers = [ours, *(link.sock for link in links if link.sock is not None)]
    proc = ctx.Process(target=_child, args=(theirs, drivers, spec, share), daemon=True)
    proc.start()
    theirs.close()
    link = _Link(proc, share)
    link.sock = ours
    link.reader, link.writer = await asyncio.open_connection(sock=ours)
    return link


async def execute_processes(
    spec: WorkerSpec,
    todo: list[_Item],
    sink: SessionSink,
    worker_shares: list[WorkerShare],
    progress: Progress | None = None,
) -> ProcessRun:
    """Run the sessions `todo` on one forked worker process per share; store each once, as
    it arrives. Raises what a session raised (the run stops, still `running`, for
    `resume`). A session whose worker died more than `SESSION_RETRIES` times is stored as
    `infra_error` (`poisoned_session`) and the rest run on."""
    queue: deque[_Item] = deque(todo)
    retries: dict[_Item, int] = {}
    stored: set[tuple[str, int, str]] = set()
    finished: list[Session] = []
    stats: list[ConcurrencyStats] = []
    # Every worker is forked before the writer thread exists: a fork copies one thread.
    links: list[_Link] = []
    for share in worker_shares:
        links.append(await _spawn(spec, share, links))
    writer = GroupWriter(sink)
    writes: set[asyncio.Task[None]] = set()
    next_key = 0

    def send_one(link: _Link) -> None:
        nonlocal next_key
        assert link.writer is not None
        item = queue.popleft()
        next_key += 1
        link.inflight[next_key] = item
        link.writer.write(_frame(("run", next_key, item)))

    def fill(link: _Link) -> None:
        while queue and len(link.inflight) < link.share.sessions:
            send_one(link)

    def fill_all() -> None:
        # One item at a time to each worker in turn: filling the first to its share before
        # the next left a run with fewer sessions than the window nearly all on one worker.
        while queue:
            open_links = [lk for lk in links if len(lk.inflight) < lk.share.sessions]
            if not open_links:
                return
            for link in open_links:
                if queue:
                    send_one(link)

    async def store(session: Session) -> None:
        try:
            await writer.write(session)
        except Exception:
            return  # the writer keeps the error: `writer.guard` stops the run with it
        finished.append(session)
        if progress:
            progress.advance(session)

    async def serve(link: _Link) -> None:
        assert link.reader is not None
        while (message := await _read(link.reader)) is not None:
            kind, key, body = message
            if kind == "stats":
                link.stats = body
                return
            item = link.inflight.pop(key)
            if kind == "error":
                raise body
            session = Session.model_validate_json(body)
            mark = (session.scenario_id, session.trial, session.arm)
            if mark not in stored:
                stored.add(mark)
                task = asyncio.create_task(store(session))
                writes.add(task)
                task.add_done_callback(writes.discard)
            fill(link)
            if not queue and not any(lk.inflight for lk in links):
                for other in links:
                    assert other.writer is not None
                    other.writer.write(_frame(("close", 0, None)))
        # The worker died: what it held runs again elsewhere (a fresh worker if need be);
        # a session that killed its worker on every try is stored as infra_error instead.
        held = list(link.inflight.values())
        link.inflight.clear()
        lost: list[_Item] = []
        for item in held:
            retries[item] = retries.get(item, 0) + 1
            if retries[item] <= SESSION_RETRIES:
                lost.append(item)
                continue
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, link.proc.join, 5)
            poisoned = poisoned_session(spec, item, link.proc.exitcode, retries[item])
            mark = (poisoned.scenario_id, poisoned.trial, poisoned.arm)
            if mark not in stored:
                stored.add(mark)
                task = asyncio.create_task(store(poisoned))
                writes.add(task)
                task.add_done_callback(writes.discard)
        queue.extendleft(reversed(lost))
        if lost or queue:
            replacement = await _spawn(spec, link.share, links)
            links.append(replacement)
            fill(replacement)
            await serve(replacement)
        elif not any(lk.inflight for lk in links):
            for other in links:
                if other is not link and other.writer is not None:
                    other.writer.write(_frame(("close", 0, None)))

    try:
        fill_all()
        if not queue and not any(lk.inflight for lk in links):
            return ProcessRun([], [])
        await writer.guard(asyncio.gather(*(serve(link) for link in list(links))))
        await writer.guard(asyncio.gather(*writes))
        stats = [link.stats for link in links if link.stats is not None]
        return ProcessRun(finished, stats)
    finally:
        for task in writes:
            task.cancel()
        writer.close()
        await _end(links)


async def _end(links: list[_Link]) -> None:
    """Close the sockets and make sure every worker process is gone."""
    for link in links:
        if link.writer is not None:
            link.writer.close()
    loop = asyncio.get_running_loop()
    for link in links:
        proc = link.proc
        await loop.run_in_executor(None, proc.join, 10)
        if proc.is_alive():
            proc.terminate()
            await loop.run_in_executor(None, proc.join, 5)
        if proc.is_alive():
            proc.kill()
            await loop.run_in_executor(None, proc.join)


def fork_available() -> bool:
    """Worker processes are forked: Linux only (macOS's frameworks do not survive a fork
    reliably, and Windows has none)."""
    return hasattr(os, "fork") and os.uname().sysname == "Linux"
