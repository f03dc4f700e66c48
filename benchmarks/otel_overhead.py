"""Live OTLP export overhead: the oracle on the demo suite, with and without `--otlp-endpoint`
(target: under 5% slower, in wall time and in CPU time).

`--latency-ms` makes each agent decision take that long, as a model's would (default 50 ms,
faster than any hosted model); `--latency-ms 0` is the worst case, the instant oracle, where
the whole run is harness time and the export's share is as large as it can be. The collector
is a plain HTTP server in another process on loopback that reads and drops each request. Each
side runs `--rounds` times, alternating; medians are compared. The run is timed until its last
session ended (what the export slows), and again until every span was sent (the export's tail:
the worker's start-up, when the run is shorter than it, and its last batch). The run's CPU
time (this process, every thread) is compared too: on a loaded machine it is steadier than
wall time. The export worker is another process, so its own CPU (start-up included) is
printed apart: on a 2-core machine it runs on the other core. PASS needs both the wall and
the CPU overhead under 5%.

    .venv/bin/python benchmarks/otel_overhead.py [--trials 5] [--rounds 5] [--latency-ms 50]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import subprocess
import sys
import time
from typing import NamedTuple

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.suites import load_suite
from sessionproof.telemetry import LiveExport

_COLLECTOR = """
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200); self.end_headers()
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"""


class _SlowOracle(OracleAgent):
    """The oracle, taking `latency_s` per decision like a model."""

    latency_s = 0.0

    async def respond(self, request: AgentRequest) -> AgentResponse:
        await asyncio.sleep(self.latency_s)
        return await super().respond(request)


class _Round(NamedTuple):
    ran: float
    """Seconds until the last session ended."""
    flushed: float
    """Seconds until every span was sent."""
    cpu: float
    """This process's CPU seconds (every thread) until the last session ended."""
    cpu_flushed: float
    """... until every span was sent."""
    worker_cpu: float
    """The export worker's CPU seconds (another process: not in `cpu`)."""
    spans: int


def _once(trials: int, endpoint: str | None) -> _Round:
    """One run of the demo suite, with the live export to `endpoint` or without."""
    suite = load_suite("demo")
    plan = RunPlan(run_id="bench", trials=trials, concurrency=1)
    if endpoint is None:
        cpu, start = time.process_time(), time.perf_counter()
        asyncio.run(execute_run(suite, _SlowOracle(), plan, SessionList()))
        took, used = time.perf_counter() - start, time.process_time() - cpu
        return _Round(took, took, used, used, 0.0, 0)
    children = _children_cpu()
    live = LiveExport(None, endpoint, suite="demo")
    cpu, start = time.process_time(), time.perf_counter()
    asyncio.run(execute_run(suite, _SlowOracle(), plan, SessionList(), progress=live))
    ran, used = time.perf_counter() - start, time.process_time() - cpu
    live.close()
    flushed, used_flushed = time.perf_counter() - start, time.process_time() - cpu
    return _Round(ran, flushed, used, used_flushed, _children_cpu() - children, live.spans)


def _children_cpu() -> float:
    """CPU seconds of this process's ended (and waited for) child processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    args = parser.parse_args()
    _SlowOracle.latency_s = args.latency_ms / 1000
    collector = subprocess.Popen(
        [sys.executable, "-c", _COLLECTOR], stdout=subprocess.PIPE, text=True
    )
    try:
        assert collector.stdout is not None
        endpoint = f"http://127.0.0.1:{collector.stdout.readline().strip()}"
        _once(2, None)  # warm up imports and caches
        _once(2, endpoint)
        plain: list[_Round] = []
        live: list[_Round] = []
        for _ in range(args.rounds):
            plain.append(_once(args.trials, None))
            live.append(_once(args.trials, endpoint))
    finally:
        collector.terminate()
        collector.wait()

    def median(rounds: list[_Round], field: str) -> float:
        return statistics.median(getattr(r, field) for r in rounds)

    def change(field: str) -> str:
        before, after = median(plain, field), median(live, field)
        return f"{before:.3f} s -> {after:.3f} s ({(after - before) / before:+.1%})"

    p, lv = median(plain, "ran"), median(live, "ran")
    overhead = (lv - p) / p
    cpu_overhead = (median(live, "cpu") - median(plain, "cpu")) / median(plain, "cpu")
    print(f"medians of {args.rounds} rounds, without -> with the live export:")
    print(f"  run wall time:       {change('ran')}")
    print(f"  run CPU time:        {change('cpu')}")
    print(f"  until every span was sent: wall {change('flushed')}, CPU {change('cpu_flushed')}")
    print(f"  the export worker's own CPU (start-up included): {median(live, 'worker_cpu'):.3f} s")
    # The fastest round of each side: what is left when the machine's other load is least.
    mp, ml = min(r.ran for r in plain), min(r.ran for r in live)
    print(f"fastest rounds: without {mp:.3f} s, with {ml:.3f} s ({(ml - mp) / mp:+.1%})")
    print(
        f"agent latency {args.latency_ms:g} ms; spans per run: {live[-1].spans}; "
        f"run overhead: wall {overhead:+.1%}, CPU {cpu_overhead:+.1%} (target < 5%)"
    )
    print("PASS" if max(overhead, cpu_overhead) < 0.05 else "OVER TARGET")


if __name__ == "__main__":
    main()
