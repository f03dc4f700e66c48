"""The README's first command (`sessionproof run`: the embedded model), timed and taken apart.

Two modes:

- default: runs a suite's sessions against the embedded SmolLM2-135M server exactly as
  `--model local` does (one slot, concurrency 1), with the slot's prompt cache on and/or off,
  and prints each session's wall time, decisions, prompt tokens (and how many came from the
  cache), output tokens, then what the model calls cost: output tokens per call, calls cut
  at the token cap, prompt tokens read fresh, seconds per call, retried calls.
- `--cli`: times the exact README command (`sessionproof run --suite quickstart`) end
  to end in a scratch directory, server start and import included, install excluded.

The machine's load is printed with every result: on a shared machine, compare back to back.

    .venv/bin/python benchmarks/first_run.py [--suite S] [--limit N] [--cache on|off|both]
        [--max-tokens N] [--brief-tools] [--cli]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sessionproof import arun_suite
from sessionproof.agents._local import LocalAgent, LocalConfig, default_model_path
from sessionproof.records import Session
from sessionproof.records._internal import ModelCallEvent

README_FIRST_COMMAND = ["run", "--suite", "quickstart"]
"""`sessionproof` arguments of the README's first command."""


def load() -> str:
    """The 1/5/15-minute load averages."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _session_line(s: Session) -> str:
    calls = [e for e in s.events if isinstance(e, ModelCallEvent)]
    verdict = "pass" if s.outcome and s.outcome.success else "fail"
    return (
        f"  {s.scenario_id:30s} {s.ended_at - s.started_at:6.1f} s  {len(calls):2d} calls  "
        f"{s.usage.input_tokens:6d} prompt ({s.usage.cached_tokens:6d} cached)  "
        f"{s.usage.output_tokens:5d} out  {verdict} ({s.termination.value})"
    )


def _call_summary(sessions: list[Session], max_tokens: int) -> str:
    calls = [e.payload for s in sessions for e in s.events if isinstance(e, ModelCallEvent)]
    if not calls:
        return "  no model calls"
    out = [c.usage.output_tokens for c in calls]
    fresh = [c.usage.input_tokens - c.usage.cached_tokens for c in calls]
    lat = [c.latency_s for c in calls]
    capped = sum(1 for c in calls if c.finish_reason == "length")
    retried = sum(1 for c in calls if c.attempts > 1)
    per_tok = sum(lat) / max(1, sum(out))
    return (
        f"  {len(calls)} model calls: output tokens mean {statistics.mean(out):.1f}, "
        f"max {max(out)} (cap {max_tokens}; {capped} cut at the cap); fresh prompt tokens mean "
        f"{statistics.mean(fresh):.0f}, max {max(fresh)}; {statistics.mean(lat):.2f} s per call "
        f"(max {max(lat):.1f}); {1000 * per_tok:.0f} ms per output token overall; "
        f"{retried} retried"
    )


async def one_run(
    cache: bool, suite: str, limit: int | None, max_tokens: int | None, brief: bool = False
) -> float:
    """Run the suite once; print its sessions and calls; return the seconds in sessions."""
    config = LocalConfig(model_path=default_model_path(), cache_prompt=cache, brief_tools=brief)
    if max_tokens is not None:
        config = dataclasses.replace(config, max_tokens=max_tokens)
    agent = LocalAgent(config)
    await agent.start()  # the server start is timed apart: it is not time in sessions
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        result = await arun_suite(
            suite, agent, limit=limit, concurrency=1, store=Path(tmp) / "s.duckdb"
        )
        elapsed = time.perf_counter() - start
    await agent.aclose()
    sessions = list(result.sessions)
    print(
        f"suite={suite} limit={limit} cache_prompt={'on' if cache else 'off'} "
        f"max_tokens={config.max_tokens} brief_tools={brief} (load {load()}):"
    )
    for s in sessions:
        print(_session_line(s))
    print(_call_summary(sessions, config.max_tokens))
    wins = sum(1 for s in sessions if s.outcome and s.outcome.success)
    print(
        f"  {len(sessions)} sessions in {elapsed:.1f} s "
        f"({elapsed / max(1, len(sessions)):.1f} s each), score {wins}/{len(sessions)}"
    )
    return elapsed


def time_cli() -> None:
    """Time the README's first command in a scratch directory."""
    exe = Path(sys.executable).with_name("sessionproof")
    with tempfile.TemporaryDirectory() as tmp:
        print(
            f"`sessionproof {' '.join(README_FIRST_COMMAND)}` in {tmp} (load {load()}) ...",
            flush=True,
        )
        start = time.perf_counter()
        done = subprocess.run([str(exe), *README_FIRST_COMMAND], cwd=tmp, check=False)
        elapsed = time.perf_counter() - start
    print(f"exit {done.returncode} after {elapsed:.1f} s end to end (load {load()})")


def main() -> None:
    """Parse the flags and measure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="quickstart", help="suite to run")
    parser.add_argument("--limit", type=int, default=None, help="first N scenarios only")
    parser.add_argument("--cache", choices=("on", "off", "both"), default="on")
    parser.add_argument("--max-tokens", type=int, default=None, help="output cap per reply")
    parser.add_argument(
        "--brief-tools", action="store_true", help="tools without parameter descriptions"
    )
    parser.add_argument("--cli", action="store_true", help="time the README command instead")
    args = parser.parse_args()
    if args.cli:
        time_cli()
        return
    for cache in {"on": [True], "off": [False], "both": [True, False]}[args.cache]:
        asyncio.run(one_run(cache, args.suite, args.limit, args.max_tokens, args.brief_tools))


if __name__ == "__main__":
    main()
