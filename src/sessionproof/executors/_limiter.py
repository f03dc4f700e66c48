"""One request budget for a whole Ray cluster: a token bucket in a Ray actor, and the agent
wrapper that asks it before every model call.

Plug-in: `WorkerSpec(..., wrap_agent=limited_by(RayRateLimiter.start(rpm=600)))`; every
worker wraps the agents it builds (the agent and the model playing users share one
wrapper), so all sessions on all nodes draw from the one bucket. A per-provider limiter
of another design plugs in the same way: anything with `reserve() -> seconds` as a Ray
actor method.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from typing import Any

from ..agents import Agent, AgentRequest, AgentResponse
from ..errors import ConfigError


class TokenBucket:
    """`rate_per_s` requests a second on average, bursts of up to `burst` at once.

    `reserve()` grants every request at once and says how long its caller must wait
    before sending it: the tokens may go below zero, so callers are served in the order
    they asked and nobody polls.
    """

    def __init__(
        self, rate_per_s: float, burst: float = 1.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """A full bucket; `clock` gives seconds (monotonic; a test passes its own)."""
        if not (rate_per_s > 0 and burst >= 1):
            raise ConfigError(
                f"a rate limit needs a positive rate and a burst >= 1, not {rate_per_s}, {burst}"
            )
        self.rate = rate_per_s
        self.burst = burst
        self._clock = clock
        self._tokens = burst
        self._at = clock()
        self.granted = 0
        """Requests reserved so far."""

    def reserve(self) -> float:
        """Take one token; the seconds to wait before using it (0 when one was there)."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        self._tokens -= 1
        self.granted += 1
        return max(0.0, -self._tokens / self.rate)


class RayRateLimiter:
    """A `TokenBucket` as a Ray actor: one budget for every worker that holds its handle."""

    def __init__(self, rpm: float, burst: float | None = None) -> None:
        """`rpm` requests a minute; bursts of `burst` (default: one second's worth, >= 1)."""
        self._bucket = TokenBucket(rpm / 60.0, burst if burst is not None else max(1.0, rpm / 60))

    def reserve(self) -> float:
        """Take one token; the seconds the caller waits before its request."""
        return self._bucket.reserve()

    def granted(self) -> int:
        """Requests reserved so far, by every worker."""
        return self._bucket.granted

    @classmethod
    def start(cls, rpm: float, burst: float | None = None) -> Any:
        """Start the actor on the connected cluster; returns its handle (picklable)."""
        from ._cluster import import_ray

        return import_ray().remote(cls).options(num_cpus=0).remote(rpm, burst)


class RateLimitedAgent:
    """An agent that waits for the shared limiter before each of its model calls."""

    def __init__(self, inner: Agent, limiter: Any) -> None:
        """Wrap `inner`; `limiter` is a `RayRateLimiter` handle (or any actor with
        `reserve`)."""
        self.inner = inner
        self.limiter = limiter
        self.name = inner.name
        # Still a model that can play users when the wrapped one is.
        self.plays_users = getattr(inner, "plays_users", False) is True

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """Wait for a token, then ask the wrapped agent."""
        wait: float = await self.limiter.reserve.remote()
        if wait > 0:
            await asyncio.sleep(wait)
        return await self.inner.respond(request)

    async def aclose(self) -> None:
        """Close the wrapped agent."""
        await self.inner.aclose()


def limited_by(limiter: Any) -> Callable[[Agent], Agent]:
    """The `WorkerSpec.wrap_agent` that puts every worker's agents behind `limiter`."""
    return functools.partial(RateLimitedAgent, limiter=limiter)
