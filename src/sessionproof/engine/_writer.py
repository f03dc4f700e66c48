"""Finished sessions to the sink on one writer thread, many per transaction when they queue.

A store write costs milliseconds of CPU per session, most of it in DuckDB's per-statement
and per-commit work. At hundreds of sessions in flight, sessions end faster than one
transaction each can keep up with, so the writer takes every session that ended while the
previous write was under way and writes them together (`write_sessions`: one transaction,
all or none). Under light load that is one session per write, as before; under heavy load
the cost per session falls with the batch. A session counts as finished only when the write
holding it has returned, so a killed run loses nothing it acknowledged.

The first write that fails stops the writer (a full disk fails every write after it): the
sessions queued behind it, and any handed in later, are not tried and hear of that same
error, and `guard` stops the work that feeds the writer with it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, TypeVar, runtime_checkable

from ..records import Session

T = TypeVar("T")


class SessionSink(Protocol):
    """Where finished sessions go (the store, or a list in tests)."""

    def write_session(self, session: Session) -> None:
        """Persist one finished session, atomically."""
        ...


@runtime_checkable
class BatchSink(SessionSink, Protocol):
    """A sink that can also persist many sessions in one atomic write."""

    def write_sessions(self, sessions: Sequence[Session]) -> None:
        """Persist all of `sessions` or none of them."""
        ...


class GroupWriter:
    """Writes sessions to `sink` one write at a time, in the order they ended, batching the
    sessions that queue behind a write under way."""

    def __init__(self, sink: SessionSink) -> None:
        self._sink = sink
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sessionproof-sink")
        self._queued: list[tuple[Session, asyncio.Future[None]]] = []
        self._drainer: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None
        self._guarded: set[asyncio.Task[object]] = set()
        self._stopping: set[asyncio.Task[object]] = set()

    @property
    def failure(self) -> BaseException | None:
        """The error of the first write that failed (the writer then writes nothing more);
        None while every write succeeded."""
        return self._failure

    async def write(self, session: Session) -> None:
        """Return once `session` is written; raise what its write raised, or the first
        failed write's error when an earlier write failed (then `session` is not tried)."""
        if self._failure is not None:
            raise self._failure
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._queued.append((session, done))
        if self._drainer is None or self._drainer.done():
            self._drainer = loop.create_task(self._drain())
        await done

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self._queued:
            if self._failure is not None:
                self._fail_queued(self._failure)
                return
            batch, self._queued = self._queued, []
            try:
                errors = await loop.run_in_executor(self._thread, self._write, batch)
            except BaseException as exc:
                # The writer itself failed (or the run is being cancelled): every session
                # of the batch hears of it, none is left waiting.
                if isinstance(exc, asyncio.CancelledError):
                    for _, done in batch:
                        done.cancel()
                    raise
                self._failed_with(exc)
                # The loop's top tells this batch and every session queued behind it
                # (raised from this task instead, the error would reach no one).
                self._queued = batch + self._queued
                continue
            for (_, done), error in zip(batch, errors, strict=True):
                if error is not None:
                    self._failed_with(error)
                if done.done():
                    continue
                if error is None:
                    done.set_result(None)
                else:
                    done.set_exception(error)

    def _failed_with(self, error: BaseException) -> None:
        """Keep `error` when it is the first failure; cancel the work `guard` waits on (each
        raises the failure instead)."""
        if self._failure is not None:
            return
        self._failure = error
        for task in self._guarded:
            self._stopping.add(task)
            task.cancel()

    def _fail_queued(self, error: BaseException) -> None:
        """Every queued session hears of `error`, untried."""
        for _, done in self._queued:
            if not done.done():
                done.set_exception(error)
        self._queued = []

    async def guard(self, work: Awaitable[T]) -> T:
        """`work`'s result, unless a write fails first: then `work` is cancelled and the
        failed write's error raised. For work that hands sessions to the writer from tasks
        of its own, so that the first failed write stops it at once. `work` is awaited as
        it is (what it raises, even SystemExit, reaches the caller as before)."""
        pending = asyncio.ensure_future(work)
        if self._failure is None:
            me = asyncio.current_task()
            assert me is not None  # a coroutine's await runs in a task
            self._guarded.add(me)
            try:
                return await pending
            except asyncio.CancelledError:
                if me not in self._stopping:
                    raise  # the caller's own cancellation
                me.uncancel()
            finally:
                self._guarded.discard(me)
                self._stopping.discard(me)
        pending.cancel()
        assert self._failure is not None  # set before the cancellation that led here
        raise self._failure

    def _write(
        self, batch: list[tuple[Session, asyncio.Future[None]]]
    ) -> list[BaseException | None]:
        """On the writer thread: the batch in one write; if that fails, each on its own, so
        one bad session (a duplicate) fails alone and the others are still written."""
        sessions = [session for session, _ in batch]
        if len(sessions) > 1 and isinstance(self._sink, BatchSink):
            try:
                self._sink.write_sessions(sessions)
                return [None] * len(sessions)
            except Exception:
                pass  # all or none: nothing was written; find the one at fault below
        errors: list[BaseException | None] = []
        for session in sessions:
            try:
                self._sink.write_session(session)
                errors.append(None)
            except Exception as exc:
                errors.append(exc)
        return errors

    def close(self) -> None:
        """Finish the write under way (never half a session); queued ones are dropped, as a
        cancelled run's unwritten sessions always were."""
        for _, done in self._queued:
            done.cancel()
        self._queued = []
        self._thread.shutdown(wait=True, cancel_futures=True)
