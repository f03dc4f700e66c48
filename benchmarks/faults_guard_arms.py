"""The oracle (no error handling of its own) on the demo suite under fault and guard arms.

Shows the claim the project is built on: retry-safe faults at 10% cut accuracy, the guard
brings it back, and fatal classes are escalated rather than looped on.

    .venv/bin/python benchmarks/faults_guard_arms.py [--trials 8] [--seed 7]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from sessionproof.agents import OracleAgent
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.engine import SessionHooks, execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.records import Scenario
from sessionproof.scoring import compare_arms
from sessionproof.suites import load_suite

SAFE = "faults=rate_limited:5%,unavailable:5%"
ARMS = [
    "baseline",
    SAFE,
    f"{SAFE} guard",
    "faults=3%",
    "faults=3% guard",
    "faults=auth_expired:10%",
    "faults=auth_expired:10% guard",
    "drift=rename_param@2",
]


def _hooks(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
    gold = [a.tool for a in scenario.criteria.gold_actions]
    return hooks_for(parse_arm(arm), seed, prefer_tools=gold)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    suite = load_suite("demo")
    sink = SessionList()
    plan = RunPlan(run_id="bench", trials=args.trials, arms=ARMS, seed=args.seed, concurrency=1)
    start = time.perf_counter()
    asyncio.run(execute_run(suite, OracleAgent(), plan, sink, hooks_for=_hooks))
    elapsed = time.perf_counter() - start
    by_arm = {a: [s for s in sink.sessions if s.arm == a] for a in ARMS}
    report = compare_arms(by_arm, by_arm)
    print(f"{len(sink.sessions)} sessions in {elapsed:.1f} s (oracle, demo, seed {args.seed})")
    print(f"{'arm':<46} {'accuracy':>8} {'faults':>7} {'recovery':>9} {'max_steps':>9}")
    for name, arm in report.arms.items():
        s = arm.summary
        rec = "-" if arm.error_recovery_rate is None else f"{arm.error_recovery_rate:.2f}"
        loops = s.termination_reasons.get("max_steps", 0)
        acc = "n/a" if s.session_accuracy is None else f"{s.session_accuracy:.3f}"
        print(f"{name:<46} {acc:>8} {arm.injected_failures:>7} {rec:>9} {loops:>9}")
    print()
    for p in report.paired:
        print(
            f"{p.b:<46} vs baseline: {p.difference:+.3f} "
            f"(95% CI {p.ci95[0]:+.3f}..{p.ci95[1]:+.3f}, McNemar p={p.mcnemar_p:.3g}, "
            f"pairs needed {p.pairs_needed or '-'})"
        )
    safe, guarded = report.arms[SAFE].summary, report.arms[f"{SAFE} guard"].summary
    ok = (
        report.arms["baseline"].summary.session_accuracy == 1.0
        and (safe.session_accuracy or 0) < 0.99
        and (guarded.session_accuracy or 0) >= 0.99
    )
    print("PASS" if ok else "CLAIM NOT SHOWN")


if __name__ == "__main__":
    main()
