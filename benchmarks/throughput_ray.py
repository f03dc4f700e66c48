"""Throughput of `--executor ray` against a fake OpenAI-compatible server on loopback.

A stand-in model server (its own process) answers every chat completion after a fixed
latency; `sessionproof run --suite tau2-airline` runs against it with the Ray executor on
a local cluster this script starts first (and, for comparison, the local executor). Ideal
throughput is concurrency / latency calls per second; the ratio to it is what the harness
and the executor lose. A one-session run first measures the fixed start-up (actor
processes, suite load), which is left out of the ratio, as in the shared scale check.

    .venv/bin/python benchmarks/throughput_ray.py [--concurrency 16 64 256] [--trials 4]
        [--latency 0.2] [--executors ray local] [--rate-429 0.3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

# The same fake OpenAI-compatible server as the local benchmark (this folder is on sys.path
# when a benchmark runs as a script).
from throughput import _free_port, _stats, serve


def _calls(port: int) -> int:
    return _stats(port)["n"]


class _CpuMeter:
    """CPU seconds of this process and every descendant (the Ray cluster, its workers),
    except the fake server's. Ray ends a run's actor processes with the run, so a thread
    samples them while they live and keeps each one's last reading."""

    def __init__(self, skip: int) -> None:
        self.skip = skip
        self.seen: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _sample(self) -> None:
        import psutil

        me = psutil.Process()
        for proc in [me, *me.children(recursive=True)]:
            if proc.pid == self.skip:
                continue
            try:
                self.seen[proc.pid] = float(sum(proc.cpu_times()[:2]))
            except psutil.Error:
                continue  # ended meanwhile: its last reading stands

    def _loop(self) -> None:
        while not self._stop.wait(0.25):
            self._sample()

    def __enter__(self) -> _CpuMeter:
        self._sample()
        self.before = dict(self.seen)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    @property
    def used_s(self) -> float:
        """CPU seconds spent between enter and exit."""
        return sum(v - self.before.get(pid, 0.0) for pid, v in self.seen.items())


def _run(model: str, executor: str, store: Path, **options: Any) -> float:
    from sessionproof.runs import RunConfig, run

    start = time.perf_counter()
    run(RunConfig(suite="tau2-airline", model=model, executor=executor, store=store, **options))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--rate-429", type=float, default=0.0)
    parser.add_argument("--executors", nargs="+", default=["ray", "local"])
    args = parser.parse_args()

    port = _free_port()
    server = multiprocessing.Process(
        target=serve, args=(port, args.latency, args.rate_429), daemon=True
    )
    server.start()
    os.environ.setdefault("SESSIONPROOF_API_KEY", "x")
    model = f"openai-compat:fake@http://127.0.0.1:{port}/v1"
    time.sleep(1)
    if "ray" in args.executors:
        from sessionproof.executors._internal import connect

        cluster = connect(None)  # the executor's own loopback cluster, started once
        t = time.perf_counter()
        cpus = cluster.__enter__()
        print(f"local Ray cluster: {cpus} CPUs, started in {time.perf_counter() - t:.1f} s")
    tmp = Path(tempfile.mkdtemp())
    print(f"latency {args.latency * 1000:.0f} ms, 429 rate {args.rate_429:.0%}")
    print("executor  conc  calls   wall_s  startup_s  ideal_ratio  cpu_ms/call")
    try:
        for executor in args.executors:
            n0 = _calls(port)
            one = _run(model, executor, tmp / f"{uuid.uuid4().hex}.duckdb", limit=1)
            startup = max(0.0, one - (_calls(port) - n0) * args.latency)
            for conc in args.concurrency:
                n0 = _calls(port)
                with _CpuMeter(server.pid or 0) as meter:
                    wall = _run(
                        model,
                        executor,
                        tmp / f"{uuid.uuid4().hex}.duckdb",
                        trials=args.trials,
                        concurrency=conc,
                    )
                calls = _calls(port) - n0
                cpu = meter.used_s
                # A run of fewer sessions than slots can keep only that many in flight.
                ideal = calls * args.latency / min(conc, 50 * args.trials)
                ratio = ideal / max(1e-9, wall - startup)
                print(
                    f"{executor:8} {conc:5} {calls:6} {wall:8.1f} {startup:10.1f}"
                    f" {ratio:12.0%} {cpu / max(1, calls) * 1000:12.2f}"
                )
    finally:
        if "ray" in args.executors:
            cluster.__exit__(None, None, None)
        server.terminate()


if __name__ == "__main__":
    main()
