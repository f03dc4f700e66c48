"""Implicit against explicit tool faults on tau2-retail: accuracy, detection and recovery.

For the oracle (no error handling of its own) and the `python:` agent that re-reads after each
write (docs/examples/verifying_agent.py), one run each with the arms: baseline, explicit
faults, each implicit kind, and each implicit kind under the verify guard
(benchmarks/tau2_retail_verify.yaml; "verify" in the table). Per arm: accuracy with its
Wilson 95% CI, the paired difference against baseline (bootstrap 95% CI, McNemar p), fault
detection and fault recovery (ToolMaze's perturbation recovery rate) with Wilson intervals;
then each kind's recovery side by side with the explicit rate. Arms are never pooled.

    .venv/bin/python benchmarks/implicit_faults.py [--limit 15] [--trials 2] [--seed 1]
        [--rate 40%] [--agents oracle,verifying] [--kinds stale_read,silent_noop,...]

A fault kind this sessionproof does not know stops the script before any run, naming it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import sessionproof
from sessionproof.conditions import parse_arm
from sessionproof.errors import ConfigError
from sessionproof.scoring._internal import ArmReport, PairedRow

ROOT = Path(__file__).resolve().parents[1]
VERIFY = "benchmarks/tau2_retail_verify.yaml"
"""The verify guard's policies, relative to the repository root (the script runs from it)."""
EXAMPLES = ROOT / "docs" / "examples"
IMPLICIT = (
    "stale_read",
    "wrong_entity",
    "silent_noop",
    "partial_result",
    "corrupted_value",
    "error_in_body",
    "duplicate_write",
)
AGENTS = {"oracle": "oracle", "verifying": "python:verifying_agent:respond"}


def arms_for(rate: str, kinds: list[str]) -> list[str]:
    """baseline, explicit faults, each kind, each kind under the verify guard."""
    arms = ["baseline", f"faults={rate}"]
    arms += [f"faults={k}:{rate}" for k in kinds]
    arms += [f"faults={k}:{rate} verify={VERIFY}" for k in kinds]
    return arms


def check_arms(arms: list[str]) -> None:
    """Parse every arm first: an unknown fault kind stops here, named, before any run."""
    for arm in arms:
        try:
            parse_arm(arm)
        except ConfigError as exc:
            spec = arm.split(" ")[0].removeprefix("faults=")
            kind = spec.split(":")[0] if ":" in spec else None
            what = f"fault kind {kind!r} is not known here" if kind else "an arm does not parse"
            sys.exit(f"implicit_faults.py: {what} ({exc})")


def _rate(n: int, hits: int, rate: float | None, ci: tuple[float, float] | None) -> str:
    if rate is None or ci is None:
        return "–"
    return f"{rate:.2f} [{ci[0]:.2f},{ci[1]:.2f}] ({hits}/{n})"


def row(name: str, arm: ArmReport, paired: PairedRow | None) -> str:
    """One arm's line of the table."""
    s = arm.summary
    acc = (
        "–"
        if s.session_accuracy is None or s.ci95 is None
        else (f"{s.session_accuracy:.2f} [{s.ci95[0]:.2f},{s.ci95[1]:.2f}]")
    )
    delta = (
        ""
        if paired is None
        else (
            f"{paired.difference:+.2f} [{paired.ci95[0]:+.2f},{paired.ci95[1]:+.2f}] "
            f"p={paired.mcnemar_p:.2g}"
        )
    )
    f = arm.faults
    det = rec = "–"
    if f is not None:
        d, r = f.overall.detection, f.overall.recovery
        det, rec = _rate(d.n, d.hits, d.rate, d.ci95), _rate(r.n, r.hits, r.rate, r.ci95)
    name = name.replace(f"verify={VERIFY}", "verify")
    return f"{name:<34} {acc:<18} {delta:<30} {det:<26} {rec:<26}"


def run_agent(
    label: str, spec: str, arms: list[str], kinds: list[str], args: argparse.Namespace
) -> None:
    """One run of `spec` over the arms, then its table."""
    start = time.perf_counter()
    done = sessionproof.run_suite(
        "tau2-retail",
        spec,
        arms=arms,
        limit=args.limit,
        trials=args.trials,
        seed=args.seed,
        store=None,
    )
    report = done.comparison
    assert report is not None
    took = time.perf_counter() - start
    print(f"\n## {label} ({spec}): {len(done.sessions)} sessions in {took:.0f} s")
    head = f"{'arm':<34} {'accuracy [95% CI]':<18} {'Δ vs baseline [95% CI]':<30}"
    print(f"{head} {'detection [95% CI]':<26} {'recovery [95% CI]':<26}")
    paired = {p.b: p for p in report.paired}
    for name, arm in report.arms.items():
        print(row(name, arm, paired.get(name)))
    explicit = report.arms[arms[1]].faults
    base = None if explicit is None else explicit.overall.recovery.rate
    print("\nperturbation recovery rate (ToolMaze's terms), each kind against explicit faults:")
    print(f"  explicit ({arms[1]}): {'–' if base is None else f'{base:.2f}'}")
    for kind in kinds:
        found = report.arms[f"faults={kind}:{args.rate}"].faults
        rate = None if found is None else found.overall.recovery.rate
        ratio = "" if rate is None or not base else f" ({rate / base - 1:+.0%} vs explicit)"
        print(f"  {kind:<16} {'–' if rate is None else f'{rate:.2f}'}{ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=15)
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", default="40%")
    parser.add_argument("--agents", default="oracle,verifying")
    parser.add_argument(
        "--kinds", default=",".join(IMPLICIT), help="fault kinds compared with the explicit arm"
    )
    args = parser.parse_args()
    os.chdir(ROOT)  # arms name the verify file relative to the repository root
    kinds = args.kinds.split(",")
    arms = arms_for(args.rate, kinds)
    check_arms(arms)
    sys.path.insert(0, str(EXAMPLES))  # the python: agent lives in docs/examples
    for label in args.agents.split(","):
        if label not in AGENTS:
            sys.exit(f"implicit_faults.py: unknown agent {label!r}; agents: {', '.join(AGENTS)}")
        run_agent(label, AGENTS[label], arms, kinds, args)


if __name__ == "__main__":
    main()
