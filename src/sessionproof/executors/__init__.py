"""Executors: where a run's sessions execute, between the engine's session loop and the
`runs` use cases.

- The local executor is the engine's asyncio pool (`engine.execute_run`); `hooks_factory`,
  `load` and `agents_for` are the rules both executors build a run's pieces by.
- Worker processes (`execute_processes`): the local executor forked over one asyncio loop
  per core for large runs, each with its `WorkerShare` of the limits; the driver stores.
- The Ray executor (`execute_ray`, optional extra `sessionproof[ray]`): sessions as calls on
  a pool of async Ray actors (`SessionWorker`), each building suite and agents from a
  picklable `WorkerSpec`; the driver stores each finished session once. `connect` joins a
  cluster or starts a local one on loopback. `RayRateLimiter` (a `TokenBucket` actor) and
  `RateLimitedAgent` share one request budget across the cluster: pass
  `wrap_agent=limited_by(RayRateLimiter.start(rpm=...))` in the `WorkerSpec`.
"""

from ._cluster import RAY_EXTRA, connect, import_ray
from ._driver import SESSION_RETRIES, execute_ray
from ._limiter import RateLimitedAgent, RayRateLimiter, TokenBucket, limited_by
from ._processes import (
    ProcessRun,
    WorkerShare,
    execute_processes,
    fork_available,
    shares,
    worker_count,
)
from ._setup import agents_for, hooks_factory, load
from ._worker import AgentWrapper, SessionWorker, WorkerSpec

__all__ = [
    "RAY_EXTRA",
    "SESSION_RETRIES",
    "AgentWrapper",
    "ProcessRun",
    "RateLimitedAgent",
    "RayRateLimiter",
    "SessionWorker",
    "TokenBucket",
    "WorkerShare",
    "WorkerSpec",
    "agents_for",
    "connect",
    "execute_processes",
    "execute_ray",
    "fork_available",
    "hooks_factory",
    "import_ray",
    "limited_by",
    "load",
    "shares",
    "worker_count",
]
