"""The README's first command (`sessionproof run`: the demo suite, embedded model), timed.

Runs the demo suite's sessions against the embedded SmolLM2-135M server exactly as
`--model local` does (one slot, concurrency 1), with the slot's prompt cache on (the default)
and/or off, and prints each session's wall time, model calls, prompt tokens and how many of
them the server took from its cache, then the total time in sessions. The machine's load is
printed before and after: on a shared machine, compare modes run back to back.

    .venv/bin/python benchmarks/first_run.py [--limit N] [--cache on|off|both]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from sessionproof import arun_suite
from sessionproof.agents._local import LocalAgent, LocalConfig, default_model_path
from sessionproof.records import EventKind


def load() -> str:
    """The 1/5/15-minute load averages."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


async def one_run(cache: bool, limit: int | None) -> float:
    """Run the demo suite once; print its sessions; return the seconds spent in sessions."""
    agent = LocalAgent(LocalConfig(model_path=default_model_path(), cache_prompt=cache))
    await agent.start()  # the server start is timed apart: it is not time in sessions
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        result = await arun_suite(
            "demo", agent, limit=limit, concurrency=1, store=Path(tmp) / "s.duckdb"
        )
        elapsed = time.perf_counter() - start
    await agent.aclose()
    print(f"cache_prompt={'on' if cache else 'off'} (load {load()}):")
    for s in result.sessions:
        calls = sum(1 for e in s.events if e.kind is EventKind.model_call)
        verdict = "pass" if s.outcome and s.outcome.success else "fail"
        print(
            f"  {s.scenario_id:28s} {s.ended_at - s.started_at:6.1f} s  {calls:2d} calls  "
            f"{s.usage.input_tokens:6d} prompt tokens ({s.usage.cached_tokens:6d} cached)  "
            f"{s.usage.output_tokens:5d} out  {verdict} ({s.termination.value})"
        )
    wins = sum(1 for s in result.sessions if s.outcome and s.outcome.success)
    print(
        f"  {len(result.sessions)} sessions in {elapsed:.1f} s "
        f"({elapsed / max(1, len(result.sessions)):.1f} s each), score {wins}/"
        f"{len(result.sessions)}"
    )
    return elapsed


async def measure(limit: int | None, modes: list[bool]) -> None:
    """Run each mode once, back to back."""
    for cache in modes:
        await one_run(cache, limit)


def main() -> None:
    """Parse the flags and measure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="first N scenarios only")
    parser.add_argument("--cache", choices=("on", "off", "both"), default="both")
    args = parser.parse_args()
    modes = {"on": [True], "off": [False], "both": [True, False]}[args.cache]
    asyncio.run(measure(args.limit, modes))


if __name__ == "__main__":
    main()
