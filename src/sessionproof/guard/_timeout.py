"""Per-call timeouts for guarded tools: a hung tool costs the agent one classified error.

A Python thread cannot be stopped, so a synchronous tool runs on a daemon worker thread
and the guard stops *waiting* for it when its time is up; the thread finishes (or hangs)
on its own without holding up the event loop or the interpreter's exit. Workers are reused
(a new thread per call costs ~10x more) and a new one starts whenever all are busy, so a
hung tool holds only its own. An async tool is cancelled instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import math
import queue
import threading
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ConfigError
from ..records import ErrorClass
from ._run import Attempt


def check_timeout(value: float | None, what: str) -> float | None:
    """`value` if it is a usable timeout (None: no limit); raises `ConfigError` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ConfigError(f"{what}: timeout_s must be a number of seconds or None, not {value!r}")
    if value <= 0:
        raise ConfigError(f"{what}: timeout_s must be above 0, not {value!r}")
    return float(value)


def timed_out(tool: str, seconds: float) -> Attempt:
    """The failed attempt of a call that did not answer in time."""
    return Attempt(
        ok=False,
        text=f"Error: {tool} did not answer within {seconds:g} seconds; the call timed out",
        error_class=ErrorClass.timeout,
    )


def is_async(fn: Callable[..., Any]) -> bool:
    """True for a coroutine function, or an object whose `__call__` is one."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - the method itself is inspected
    )


_IDLE_S = 30.0
"""A worker with nothing to do for this long exits."""


class _Workers:
    """Daemon threads reused across calls. `_idle` counts waiting workers no queued job is
    promised to; a job finding none starts a new worker."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Call] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0

    def submit(self, job: _Call) -> None:
        """Run `job` on a worker."""
        with self._lock:
            spawn = self._idle == 0
            if not spawn:
                self._idle -= 1
        self._jobs.put(job)
        if spawn:
            threading.Thread(target=self._serve, name="sessionproof-guard", daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=_IDLE_S)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:  # a spare: no queued job counts on this worker
                        self._idle -= 1
                        return
                continue
            job.run()
            # Idle before the caller hears of it, so its next call reuses this worker.
            with self._lock:
                self._idle += 1
            job.finish()


_WORKERS = _Workers()


class _Call:
    """One call of a sync tool on a worker thread; `on_done` runs once it has an outcome."""

    def __init__(
        self, fn: Callable[..., Any], args: Mapping[str, Any], on_done: Callable[[], None]
    ) -> None:
        self.value: Any = None
        self.error: BaseException | None = None
        self._on_done = on_done
        self._context = contextvars.copy_context()  # the tool sees the caller's context vars
        self._fn = fn
        self._args = dict(args)
        _WORKERS.submit(self)

    def run(self) -> None:
        """Call the tool (on the worker)."""
        try:
            self.value = self._context.run(self._fn, **self._args)
        except BaseException as exc:  # handed to the caller, as a direct call would raise it
            self.error = exc

    def finish(self) -> None:
        """Tell the caller (on the worker, after `run`)."""
        self._on_done()

    def result(self) -> Any:
        """The tool's value, or its exception raised."""
        if self.error is not None:
            raise self.error
        return self.value


def call_in_thread(
    fn: Callable[..., Any], args: Mapping[str, Any], timeout_s: float
) -> tuple[bool, Any]:
    """Call `fn` on a worker and wait up to `timeout_s`: (True, value), or (False, None) when
    it did not answer in time. The tool's exception is raised."""
    done = threading.Event()
    call = _Call(fn, args, done.set)
    if not done.wait(timeout_s):
        return False, None
    return True, call.result()


async def await_in_thread(fn: Callable[..., Any], args: Mapping[str, Any]) -> Any:
    """Call `fn` on a worker without blocking the event loop; the caller bounds the wait."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[None] = loop.create_future()

    def settle() -> None:
        if not future.done():  # the wait may have been given up already
            future.set_result(None)

    def wake() -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed while the tool ran
            loop.call_soon_threadsafe(settle)

    call = _Call(fn, args, wake)
    await future
    return call.result()
