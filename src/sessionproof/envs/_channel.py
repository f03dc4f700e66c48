"""Driving the engine one decision at a time: the session runs unchanged on an event loop in
a background thread, and its agent is a channel whose `respond` hands the request the engine
built to the caller's thread and waits for the decision the caller sends back.

Every fault, drift, guard and judge path is the engine's own: nothing of the session loop is
copied here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from ..agents import Agent, AgentRequest, AgentResponse
from ..records import Session

T = TypeVar("T")

CHANNEL_NAME = "gym"
"""The model name of a session played through the environment."""

_STOP_WAIT_S = 30.0
"""How long stopping an episode waits for its session to release its tools."""


class LoopThread:
    """An asyncio event loop running for ever on a daemon thread of its own."""

    def __init__(self) -> None:
        """Start the loop and its thread."""
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._serve, name="sessionproof-env-loop", daemon=True
        )
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the loop and wait for its result (its exception is raised here)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Start `coro` on the loop; its future."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def call(self, fn: Callable[..., object], *args: object) -> None:
        """Call `fn(*args)` on the loop's thread, soon."""
        self.loop.call_soon_threadsafe(fn, *args)

    def close(self) -> None:
        """Cancel what still runs on the loop (a session's tools are closed by the engine),
        stop the loop, wait for its thread, close it (idempotent)."""
        if self.loop.is_closed():
            return
        with contextlib.suppress(Exception):
            self.submit(_cancel_all()).result(_STOP_WAIT_S)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


async def _cancel_all() -> None:
    """Cancel every other task of the running loop and wait until they are done."""
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


class _Channel:
    """The session's agent: each request goes to the episode's caller, and the decision the
    caller sends back is the reply (the engine checks it as any agent's)."""

    name = CHANNEL_NAME
    plays_users = False
    """Not a language model: it never plays the simulated user."""

    def __init__(self, episode: Episode) -> None:
        self._episode = episode

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """Hand `request` over and wait for the decision."""
        decision: asyncio.Future[AgentResponse] = asyncio.get_running_loop().create_future()
        self._episode.waiting = decision
        self._episode.items.put(request)
        return await decision

    async def aclose(self) -> None:
        """Nothing to release."""


Item = AgentRequest | Session | BaseException
"""What an episode hands its caller: the next request, the finished session, or what the
session raised."""


class Episode:
    """One session on `runner`'s loop, played by the caller's decisions."""

    def __init__(self, runner: LoopThread, start: Callable[[Agent], Awaitable[Session]]) -> None:
        """Start the session `start(agent)` makes with this episode's channel agent."""
        self.items: queue.Queue[Item] = queue.Queue()
        self.waiting: asyncio.Future[AgentResponse] | None = None
        self._runner = runner
        self._task: asyncio.Task[Session] | None = None
        self._cancelled = False
        self._ended = threading.Event()
        self.agent: Agent = _Channel(self)
        runner.submit(self._play(start))

    async def _play(self, start: Callable[[Agent], Awaitable[Session]]) -> None:
        if self._cancelled:  # stopped before it started
            self._ended.set()
            return
        self._task = asyncio.ensure_future(start(self.agent))
        try:
            session = await self._task
        except asyncio.CancelledError:
            return  # stopped by the caller, who waits on `_ended` only
        except BaseException as exc:  # the caller re-raises it in its own thread
            self.items.put(exc)
        else:
            self.items.put(session)
        finally:
            self._ended.set()

    def next(self) -> AgentRequest | Session:
        """Block until the session asks for a decision (the request) or ends (the session);
        raise what the session raised."""
        item = self.items.get()
        if isinstance(item, BaseException):
            raise item
        return item

    def answer(self, response: AgentResponse) -> None:
        """Send the decision the session waits for (dropped when it no longer waits: its
        decision timed out, and the next item is the session's end)."""
        waiting = self.waiting
        self.waiting = None
        if waiting is not None:
            self._runner.call(_settle, waiting, response)

    def stop(self) -> None:
        """Cancel the session (its tools are closed by the engine) and wait until it is gone."""
        if self._ended.is_set():
            return
        self._runner.call(self._cancel)
        self._ended.wait(_STOP_WAIT_S)

    def _cancel(self) -> None:
        self._cancelled = True
        if self._task is not None:
            self._task.cancel()


def _settle(future: asyncio.Future[AgentResponse], response: AgentResponse) -> None:
    if not future.done():
        future.set_result(response)
