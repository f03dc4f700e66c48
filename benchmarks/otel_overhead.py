"""Live OTLP export overhead: the oracle on the demo suite, with and without `--otlp-endpoint`
(target: under 5% slower).

`--latency-ms` makes each agent decision take that long, as a model's would (default 50 ms,
faster than any hosted model); `--latency-ms 0` is the worst case, the instant oracle, where
the whole run is harness time and the export's share is as large as it can be. The collector
is a plain HTTP server in another process on loopback that reads and drops each request. Each
side runs `--rounds` times, alternating; medians are compared (the run until its last session
ended, and until every span was sent). The run's CPU time (this process, every thread) is
compared too: on a loaded machine it is steadier than wall time, and it is what the export
thread's share of the GIL costs the run.

    .venv/bin/python benchmarks/otel_overhead.py [--trials 5] [--rounds 5] [--latency-ms 50]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.engine import RunPlan, SessionList, execute_run
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


def _once(trials: int, endpoint: str | None) -> tuple[float, float, float, int]:
    """(seconds until the last session ended, seconds until every span was sent, this
    process's CPU seconds until the last session ended, spans)."""
    suite = load_suite("demo")
    plan = RunPlan(run_id="bench", trials=trials, concurrency=1)
    if endpoint is None:
        cpu, start = time.process_time(), time.perf_counter()
        asyncio.run(execute_run(suite, _SlowOracle(), plan, SessionList()))
        took = time.perf_counter() - start
        return took, took, time.process_time() - cpu, 0
    live = LiveExport(None, endpoint, suite="demo")
    cpu, start = time.process_time(), time.perf_counter()
    asyncio.run(execute_run(suite, _SlowOracle(), plan, SessionList(), progress=live))
    ran, used = time.perf_counter() - start, time.process_time() - cpu
    live.close()
    return ran, time.perf_counter() - start, used, live.spans


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
        plain: list[float] = []
        plain_cpu: list[float] = []
        live: list[float] = []
        live_cpu: list[float] = []
        flushed: list[float] = []
        spans = 0
        for _ in range(args.rounds):
            took, _, used, _ = _once(args.trials, None)
            plain.append(took)
            plain_cpu.append(used)
            ran, total, used, spans = _once(args.trials, endpoint)
            live.append(ran)
            flushed.append(total)
            live_cpu.append(used)
    finally:
        collector.terminate()
        collector.wait()
    p, lv, fl = statistics.median(plain), statistics.median(live), statistics.median(flushed)
    overhead = (lv - p) / p
    pc, lc = statistics.median(plain_cpu), statistics.median(live_cpu)
    print(f"run CPU without export: {pc:.3f} s; with: {lc:.3f} s ({(lc - pc) / pc:+.1%})")
    # The fastest round of each side: what is left when the machine's other load is least.
    mp, ml = min(plain), min(live)
    print(f"fastest rounds: without {mp:.3f} s, with {ml:.3f} s ({(ml - mp) / mp:+.1%})")
    print(f"without export: {p:.3f} s (median of {args.rounds}); with live export: {lv:.3f} s")
    print(f"until every span was sent: {fl:.3f} s ({(fl - p) / p:+.1%})")
    print(
        f"agent latency {args.latency_ms:g} ms; spans per run: {spans}; "
        f"run overhead {overhead:+.1%} (target < 5%)"
    )
    print("PASS" if overhead < 0.05 else "OVER TARGET")


if __name__ == "__main__":
    main()
