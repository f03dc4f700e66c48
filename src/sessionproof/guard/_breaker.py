"""A circuit breaker per tool: stop sending calls to a tool that keeps failing."""

from __future__ import annotations

from enum import StrEnum

from ._clock import Clock


class BreakerState(StrEnum):
    """Where a breaker is in its cycle."""

    closed = "closed"
    """Calls flow; consecutive failures are counted."""
    open = "open"
    """Calls fail fast until the cool-down has passed."""
    half_open = "half_open"
    """Cool-down over: one probe call is let through; its outcome closes or re-opens."""


class CircuitBreaker:
    """Opens after `threshold` consecutive unhealthy outcomes; probes after `cooldown_s`.

    Only outcomes that say the tool itself is unhealthy count (timeouts, 5xx, 503, damaged
    responses); any other answer, an error about the request included, shows the tool is up.
    """

    def __init__(self, threshold: int, cooldown_s: float, clock: Clock) -> None:
        self.threshold = threshold
        self.cooldown_s = cooldown_s
        self.clock = clock
        self.failures = 0
        """Consecutive unhealthy outcomes so far."""
        self.opened_at: float | None = None
        self._probe_at: float | None = None

    @property
    def _probing(self) -> bool:
        # A probe that never reported back (its task was cancelled) must not block the tool
        # forever: after another cool-down a new probe may go.
        started = self._probe_at
        return started is not None and self.clock.now() - started < self.cooldown_s

    @property
    def state(self) -> BreakerState:
        """The state now (an open breaker whose cool-down passed reads as half-open)."""
        if self.opened_at is None:
            return BreakerState.closed
        if self._probing or self.clock.now() - self.opened_at >= self.cooldown_s:
            return BreakerState.half_open
        return BreakerState.open

    def retry_in(self) -> float:
        """Seconds until an open breaker lets a probe through (0 when it would now)."""
        if self.opened_at is None:
            return 0.0
        return max(0.0, self.opened_at + self.cooldown_s - self.clock.now())

    def allow(self) -> bool:
        """Whether a call may be sent now; claims the single probe when half-open."""
        state = self.state
        if state is BreakerState.closed:
            return True
        if state is BreakerState.half_open and not self._probing:
            self._probe_at = self.clock.now()
            return True
        return False

    def record(self, healthy: bool) -> None:
        """Feed one outcome: a healthy one closes the breaker, an unhealthy one counts."""
        self._probe_at = None
        if healthy:
            self.failures = 0
            self.opened_at = None
            return
        self.failures += 1
        if self.opened_at is not None or self.failures >= self.threshold:
            self.opened_at = self.clock.now()
