"""Harness overhead per agent step: the oracle on the demo suite (target ≤ 1 ms per step).

The oracle answers instantly, so the time per step is what the harness itself costs: building
requests, executing calls at the tool boundary, recording events, judging. The baseline, measured
in the same run, replays the same gold actions straight on fresh domains with no harness.

    .venv/bin/python benchmarks/harness_overhead.py [--trials 20]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from sessionproof.agents import OracleAgent
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.suites import load_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=20)
    args = parser.parse_args()
    suite = load_suite("demo")

    sink = SessionList()
    plan = RunPlan(run_id="bench", trials=args.trials, concurrency=1)
    start = time.perf_counter()
    asyncio.run(execute_run(suite, OracleAgent(), plan, sink))
    harness_s = time.perf_counter() - start
    steps = sum(max((e.step for e in s.events), default=0) + 1 for s in sink.sessions)
    accuracy = sum(s.success for s in sink.sessions) / len(sink.sessions)

    spec = suite.domain_for(suite.scenarios[0])
    start = time.perf_counter()
    for _ in range(args.trials):
        for scenario in suite.scenarios:
            domain = spec.create()
            for action in scenario.criteria.gold_actions:
                domain.call(action.tool, dict(action.args))
            domain.state_hash()
    bare_s = time.perf_counter() - start

    per_step_ms = harness_s / steps * 1000
    print(f"sessions {len(sink.sessions)}, agent steps {steps}, oracle accuracy {accuracy:.3f}")
    print(f"harness: {harness_s:.3f} s total, {per_step_ms:.3f} ms per agent step (target ≤ 1 ms)")
    print(
        f"bare gold replay (no harness): {bare_s:.3f} s; harness / bare = {harness_s / bare_s:.1f}×"
    )
    print("PASS" if per_step_ms <= 1.0 else "OVER TARGET")


if __name__ == "__main__":
    main()
