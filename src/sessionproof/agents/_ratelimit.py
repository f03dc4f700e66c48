"""Rate-limit-aware admission of provider requests: limits per provider/model, AIMD concurrency.

One `ProviderGate` per provider/model (and server) is shared by every agent object of a run
that talks to it — the agent and the simulated user alike — through the run's `RateLimiter`.
A request holds a slot of the gate while it is in flight:

- the in-flight window is adaptive (AIMD): it starts at the run's concurrency, is halved when
  the provider answers 429 (once per window generation, so a burst of 429s from requests
  already in flight counts once) and grows by one after a window's worth of successes, never
  above the run's concurrency;
- a 429's `Retry-After` is waited out by the request that got it, holding no place, before it
  is resent; the gate itself answers a 429 only with the window. Why not also pause every
  request to the provider: that answers one signal twice. `benchmarks/ratelimit_policy.py`
  runs this gate against a provider that refuses 30% of calls at random and one with a token
  bucket (429 with the time to its next token); with the pause as well, throughput was a
  quarter of this against the first, and 76% of the bucket's rate against the second (86%
  without it, for 1% more requests);
- `rpm` / `tpm` limits are token buckets (a minute's budget, refilled continuously); a
  request's tokens are estimated from its body, since the real count is known only after.

The clock and the sleep are injectable, so tests run on a fake clock with no real waits.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from ._ranked import RankedWaiters

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

_DEADLINE: ContextVar[asyncio.Timeout | None] = ContextVar(
    "sessionproof_decision_deadline", default=None
)
"""The time limit of the agent decision under way in this task, if the engine set one."""

AnswerHook = Callable[[int], None]
"""Told a response's HTTP status the moment the whole response has arrived."""

_ANSWERED: ContextVar[AnswerHook | None] = ContextVar("sessionproof_answered", default=None)
"""The hook of the gate slot this task holds, if it holds one."""


def answer_hook() -> AnswerHook | None:
    """For a transport: what to call, synchronously and from its protocol callback, once the
    whole response to this task's request has arrived. It gives the request's place in the
    gate back at once. Why not when the task wakes: a burst of responses wakes hundreds of
    tasks, each of which reads its reply and builds the session's next request before
    yielding (~0.5 ms); a place given back inside that step only reaches the next queued
    request after the whole burst, so the provider sat idle for that long."""
    return _ANSWERED.get()


@contextmanager
def queue_time_excluded(deadline: asyncio.Timeout) -> Iterator[None]:
    """Within the block, time a request spends queued at a provider gate moves `deadline`
    later by as much: a decision's limit counts the model's time, not the run's queue (a
    run keeps more sessions in flight than requests, so requests do queue)."""
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def extend_deadline(seconds: float) -> None:
    """Move the current decision's deadline (if any, and not passed) `seconds` later."""
    deadline = _DEADLINE.get()
    if deadline is None or seconds <= 0 or deadline.expired():
        return
    when = deadline.when()
    if when is not None:
        deadline.reschedule(when + seconds)


@dataclass(frozen=True)
class RateLimits:
    """A provider's published limits; None means not limited."""

    rpm: float | None = None
    """Requests per minute."""
    tpm: float | None = None
    """Tokens per minute (estimated from the request body: ~4 bytes a token)."""


class ConcurrencyStats(BaseModel):
    """How a run's provider requests were admitted (the run summary's `concurrency`)."""

    model_config = ConfigDict(extra="forbid")

    limit: int
    """The run's concurrency: the most requests allowed in flight to one provider."""
    peak: int = 0
    """The most requests that were in flight at once."""
    mean: float = 0.0
    """Requests in flight on average, over the time any was (time-weighted)."""
    rate_limited: int = 0
    """429 answers seen (each was retried after a wait)."""
    window_min: int = 0
    """The smallest the adaptive window became (equal to `limit` without 429s)."""
    requests: int = 0
    """Requests sent (retries included)."""


class _Bucket:
    """A token bucket holding at most a minute's budget, refilled continuously."""

    def __init__(self, per_minute: float, now: float) -> None:
        self.capacity = per_minute
        self.level = per_minute
        self.rate = per_minute / 60.0
        self.at = now

    def wait_for(self, amount: float, now: float) -> float:
        """Seconds until `amount` is available (0 when it is now)."""
        self.level = min(self.capacity, self.level + (now - self.at) * self.rate)
        self.at = now
        need = min(amount, self.capacity) - self.level
        return 0.0 if need <= 0 else need / self.rate

    def take(self, amount: float) -> None:
        self.level -= min(amount, self.capacity)


class Slot:
    """One admitted request; tell it how the request went."""

    def __init__(self, gate: ProviderGate, generation: int) -> None:
        self._gate = gate
        self._generation = generation
        self.outcome: str = "error"
        self._held = True

    def _give_back(self) -> None:
        if self._held:
            self._held = False
            self._gate._release(self)

    def answered(self, status: int) -> None:
        """The whole response arrived with HTTP `status`: the place is free now, counted as a
        success for the window only for a 2xx (as `ok` would). A 429 keeps it until
        `rate_limited` has counted the 429 (it shrinks the window first)."""
        if status == 429:
            return
        if 200 <= status < 300:
            self.outcome = "ok"
        self._give_back()

    def ok(self) -> None:
        """The provider answered (any answer but a 429)."""
        self.outcome = "ok"

    def rate_limited(self) -> None:
        """The provider answered 429 (its Retry-After is the caller's to wait out, outside
        the slot)."""
        self.outcome = "429"
        self._gate._on_429(self._generation)


class HeldSlot:
    """`async with gate.slot(tokens) as slot`: one request's place in the window. A class,
    not an async generator: this runs for every request, and a generator-based context
    manager costs several times more per use."""

    __slots__ = ("_gate", "_hook", "_slot", "_tokens")

    def __init__(self, gate: ProviderGate, tokens: float) -> None:
        self._gate = gate
        self._tokens = tokens
        self._slot: Slot | None = None
        self._hook: Token[AnswerHook | None] | None = None

    async def __aenter__(self) -> Slot:
        self._slot = Slot(self._gate, await self._gate._admit(self._tokens))
        self._hook = _ANSWERED.set(self._slot.answered)
        return self._slot

    async def __aexit__(self, *exc: object) -> None:
        # No await: a cancelled request still gives its slot back, at once.
        if self._hook is not None:
            _ANSWERED.reset(self._hook)
            self._hook = None
        if self._slot is not None:
            self._slot._give_back()


class ProviderGate:
    """Admission for one provider/model: an AIMD in-flight window and optional rpm/tpm
    buckets."""

    def __init__(
        self,
        limit: int,
        limits: RateLimits | None = None,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.limit = max(1, limit)
        self.window = self.limit
        self.limits = limits or RateLimits()
        self._clock = clock
        self._sleep = sleep
        now = clock()
        self._rpm = _Bucket(self.limits.rpm, now) if self.limits.rpm else None
        self._tpm = _Bucket(self.limits.tpm, now) if self.limits.tpm else None
        self._generation = 0
        self._successes = 0
        self._inflight = 0
        self._waiters = RankedWaiters()
        self._promised = 0
        """Places promised to woken requests that have not taken them yet."""
        # Statistics: time-weighted in-flight integral over the busy time.
        self.peak = 0
        self.rate_limited = 0
        self.window_min = self.window
        self.requests = 0
        self._area = 0.0
        self._busy = 0.0
        self._mark = now

    @property
    def inflight(self) -> int:
        """Requests holding a slot now."""
        return self._inflight

    def _account(self) -> None:
        now = self._clock()
        if self._inflight:
            self._area += self._inflight * (now - self._mark)
            self._busy += now - self._mark
        self._mark = now

    def _on_429(self, generation: int) -> None:
        self.rate_limited += 1
        if generation == self._generation:
            # Multiplicative decrease, once per generation: the 429s of requests sent before
            # the window shrank say nothing about the new window.
            self.window = max(1, self.window // 2)
            self.window_min = min(self.window_min, self.window)
            self._generation += 1
            self._successes = 0

    def _on_success(self) -> None:
        self._successes += 1
        if self._successes >= self.window and self.window < self.limit:
            self.window += 1  # additive increase: one more per window of successes
            self._successes = 0

    def _wait_needed(self, tokens: float) -> float:
        """Seconds to wait before a request may start (rpm, tpm); 0 when it may."""
        now = self._clock()
        wait = 0.0
        if self._rpm is not None:
            wait = max(wait, self._rpm.wait_for(1, now))
        if self._tpm is not None:
            wait = max(wait, self._tpm.wait_for(tokens, now))
        return wait

    def _take(self, tokens: float) -> int:
        """Admit one request now (the caller checked that it may start)."""
        if self._rpm is not None:
            self._rpm.take(1)
        if self._tpm is not None:
            self._tpm.take(tokens)
        self._account()
        self._inflight += 1
        self.requests += 1
        if self._inflight > self.peak:
            self.peak = self._inflight
        return self._generation

    def _free(self) -> int:
        """Places in the window nobody holds or has been promised."""
        return self.window - self._inflight - self._promised

    async def _admit(self, tokens: float) -> int:
        # The common case costs no await: a free place, nobody queued before us, no
        # bucket to wait for. The loop runs one task at a time, so the check and the take
        # cannot interleave with another request's.
        if not self._waiters and self._free() > 0 and not self._wait_needed(tokens):
            return self._take(tokens)
        start = self._clock()
        while True:
            # A place freed goes to the queued request of the lowest rank (the session's
            # place in its run), among equals to the one that has queued longest.
            if self._waiters or self._free() <= 0:
                ticket = self._waiters.enqueue()
                try:
                    await ticket
                except BaseException:
                    if ticket.done() and not ticket.cancelled():
                        self._promised -= 1  # woken, then cancelled: hand the place on
                        self._wake()
                    else:
                        ticket.cancel()  # given up: dropped once it reaches the top
                    raise
                self._promised -= 1
            wait = self._wait_needed(tokens)
            if wait <= 0:
                break
            # An empty bucket: the place goes to the next in line (who will wait
            # too), and this request queues again after the wait.
            self._wake()
            await self._sleep(wait)
        # Time spent queued is not the agent's: the decision's deadline moves by as much.
        extend_deadline(self._clock() - start)
        return self._take(tokens)

    def _wake(self) -> None:
        """Promise the places free now to the requests next in line."""
        while self._free() > 0:
            ticket = self._waiters.pop()
            if ticket is None:
                return
            ticket.set_result(None)
            self._promised += 1

    def _release(self, slot: Slot) -> None:
        self._account()
        self._inflight -= 1
        if slot.outcome == "ok":
            self._on_success()
        self._wake()

    def slot(self, tokens: float = 0.0) -> HeldSlot:
        """Hold a slot for one request of about `tokens` tokens (`async with`: waits until
        admitted, gives the place back on the way out, cancelled or not)."""
        return HeldSlot(self, tokens)

    def stats(self) -> ConcurrencyStats:
        """What this gate saw so far."""
        self._account()
        mean = self._area / self._busy if self._busy > 0 else float(self.peak)
        return ConcurrencyStats(
            limit=self.limit,
            peak=self.peak,
            mean=round(mean, 2),
            rate_limited=self.rate_limited,
            window_min=self.window_min,
            requests=self.requests,
        )


class RateLimiter:
    """A run's gates, one per provider/model key, all bounded by the run's concurrency."""

    def __init__(
        self,
        limit: int,
        limits: RateLimits | None = None,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.limit = max(1, limit)
        self.limits = limits or RateLimits()
        self._clock = clock
        self._sleep = sleep
        self._gates: dict[str, ProviderGate] = {}
        self._absorbed: list[ConcurrencyStats] = []

    def gate(self, key: str) -> ProviderGate:
        """The gate of provider/model `key` (made on first use, then shared)."""
        gate = self._gates.get(key)
        if gate is None:
            gate = ProviderGate(self.limit, self.limits, clock=self._clock, sleep=self._sleep)
            self._gates[key] = gate
        return gate

    @property
    def gated(self) -> bool:
        """Some agent of the run sends its requests through one of these gates."""
        return bool(self._gates)

    def absorb(self, stats: ConcurrencyStats) -> None:
        """Count another process's gate statistics (a worker's) in this run's."""
        self._absorbed.append(stats)

    def stats(self) -> ConcurrencyStats | None:
        """Over every gate (peak and mean summed, window the smallest); None if none was used."""
        used = [g.stats() for g in self._gates.values() if g.requests]
        used += [s for s in self._absorbed if s.requests]
        if not used:
            return None
        return ConcurrencyStats(
            limit=max(self.limit, sum(s.limit for s in self._absorbed)),
            peak=sum(s.peak for s in used),
            mean=round(sum(s.mean for s in used), 2),
            rate_limited=sum(s.rate_limited for s in used),
            window_min=min(s.window_min for s in used),
            requests=sum(s.requests for s in used),
        )


def gate_key(provider: str, model: str, base_url: str | None) -> str:
    """The key requests share a gate by: one provider, one model, one server."""
    return f"{provider}:{model}@{base_url or ''}"
