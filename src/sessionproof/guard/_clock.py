"""Clocks the guard waits on: the real one, and a virtual one for tests and the harness."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    """Where the guard reads the time (circuit-breaker cool-downs) and waits (backoff)."""

    def now(self) -> float:
        """Monotonic seconds."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds` without blocking the event loop."""
        ...

    def sleep_sync(self, seconds: float) -> None:
        """Wait `seconds` in synchronous code."""
        ...


class SystemClock:
    """Real time: `time.monotonic`, `asyncio.sleep`, `time.sleep`. The production default."""

    def now(self) -> float:
        """Monotonic seconds."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """Really wait."""
        await asyncio.sleep(seconds)

    def sleep_sync(self, seconds: float) -> None:
        """Really wait, blocking."""
        time.sleep(seconds)


class VirtualClock:
    """Time that passes only when someone waits or advances it: nothing really sleeps.

    Tests read `sleeps` to check what the guard waited for; the harness uses it so a
    Retry-After of 30 seconds costs no wall time and the trace stays deterministic.
    """

    def __init__(self, start: float = 0.0) -> None:
        self.t = start
        """The current virtual time, seconds."""
        self.sleeps: list[float] = []
        """Every wait asked for, in order."""

    def now(self) -> float:
        """The virtual time."""
        return self.t

    def advance(self, seconds: float) -> None:
        """Let `seconds` pass without anyone waiting (time spent elsewhere)."""
        self.t += max(0.0, seconds)

    async def sleep(self, seconds: float) -> None:
        """Record the wait and move time on, at once."""
        self.sleep_sync(seconds)

    def sleep_sync(self, seconds: float) -> None:
        """Record the wait and move time on, at once."""
        self.sleeps.append(seconds)
        self.t += max(0.0, seconds)
