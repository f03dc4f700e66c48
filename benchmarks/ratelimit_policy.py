"""The provider gate against two simulated rate-limiting providers, with and without a pause.

    .venv/bin/python benchmarks/ratelimit_policy.py [--concurrency 64] [--sessions 130]

Sessions of 13 sequential calls go through the real `ProviderGate` and the real retry loop
(`call_with_retries`: a 429 is waited out outside its slot, for its Retry-After) against a
provider simulated in process, on a time scale of 1/10 (20 ms a call, Retry-After 0.1 s for
a real 1 s), so the four runs take about two minutes:

- `random`: 30% of calls answer 429 with Retry-After, whatever the load (the `--mode 429`
  of `throughput.py`);
- `bucket`: a token bucket of RATE calls a second (50 ms of burst) that answers 429 with the
  time until its next token, rounded up to 0.1 s as providers round to whole seconds. The
  concurrency its rate needs is RATE × latency (20 at the default), far below the run's.

Each provider is run against the gate as shipped and, as the baseline in the same run,
against the same gate that also pauses every request to the provider for a 429's
Retry-After (the design before: one signal answered by the window and by a pause). Printed:
successful calls a second, as a share of the ideal (the window full all the time, for
`random`; the bucket's rate, for `bucket`), 429s and requests sent, mean in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import time

from sessionproof.agents import ProviderFailure, RetryPolicy
from sessionproof.agents._internal import ProviderGate, call_with_retries

LATENCY = 0.02
RETRY_AFTER = 0.1
CALLS = 13


class Refused(Exception):
    """A simulated 429."""

    def __init__(self, retry_after: float) -> None:
        super().__init__("429")
        self.retry_after = retry_after


def classify(exc: BaseException) -> ProviderFailure | None:
    if isinstance(exc, Refused):
        # Read as an HTTP adapter reads a real 429 (header names lower-cased).
        return ProviderFailure.from_status(429, {"retry-after": f"{exc.retry_after}"}, "")
    return None


class PausingGate(ProviderGate):
    """The baseline: a 429's Retry-After also pauses every request to the provider."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.paused_until = 0.0

    def pause(self, seconds: float) -> None:
        self.paused_until = max(self.paused_until, time.monotonic() + seconds)

    def _wait_needed(self, tokens: float) -> float:
        return max(super()._wait_needed(tokens), self.paused_until - time.monotonic())


class Provider:
    """`random` or `bucket`, as the module says."""

    def __init__(self, kind: str, rate: float, seed: int) -> None:
        self.kind = kind
        self.rate = rate
        self.rng = random.Random(seed)
        self.capacity = rate * 0.05
        self.level = self.capacity
        self.at = time.monotonic()
        self.ok = 0

    def refusal(self) -> float | None:
        if self.kind == "random":
            return RETRY_AFTER if self.rng.random() < 0.3 else None
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.at) * self.rate)
        self.at = now
        if self.level >= 1:
            self.level -= 1
            return None
        return max(0.1, math.ceil((1 - self.level) / self.rate * 10) / 10)


async def run(kind: str, pausing: bool, concurrency: int, sessions: int, rate: float) -> str:
    provider = Provider(kind, rate, seed=1)
    gate: ProviderGate = PausingGate(concurrency) if pausing else ProviderGate(concurrency)
    policy = RetryPolicy(wait_jitter=0.0)

    async def call() -> str:
        await asyncio.sleep(LATENCY)
        refused = provider.refusal()
        if refused is not None:
            if isinstance(gate, PausingGate):
                gate.pause(refused)
            raise Refused(refused)
        provider.ok += 1
        return "ok"

    room = asyncio.Semaphore(4 * concurrency)

    async def session() -> None:
        async with room:
            for _ in range(CALLS):
                await call_with_retries(
                    call, provider="sim", policy=policy, classify=classify, gate=gate
                )

    start = time.monotonic()
    await asyncio.gather(*(session() for _ in range(sessions)))
    wall = time.monotonic() - start
    done = provider.ok / wall
    ideal = concurrency / LATENCY if kind == "random" else rate
    stats = gate.stats()
    name = "window + pause (before)" if pausing else "window only (shipped)"
    return (
        f"{kind:6} {name:24} {done:7.0f} calls/s = {done / ideal * 100:5.1f}% of ideal; "
        f"{stats.rate_limited:6} 429s in {stats.requests} requests; "
        f"mean in flight {stats.mean:.1f}, window min {stats.window_min}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--sessions", type=int, default=130)
    parser.add_argument("--rate", type=float, default=1000.0, help="the bucket's calls/s")
    args = parser.parse_args()
    print(
        f"{args.sessions} sessions x {CALLS} calls, concurrency {args.concurrency}, "
        f"{LATENCY * 1000:.0f} ms a call (time scale 1/10)"
    )
    for kind, sessions in (("random", args.sessions), ("bucket", args.sessions * 4)):
        for pausing in (True, False):
            line = asyncio.run(run(kind, pausing, args.concurrency, sessions, args.rate))
            print(line, flush=True)


if __name__ == "__main__":
    main()
