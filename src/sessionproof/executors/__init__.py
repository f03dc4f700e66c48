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

__all__: list[str] = []
