"""The fuzz suite at size: thousands of seeded cases per input kind through the real CLI.

Run: `.venv/bin/python benchmarks/fuzz.py [--cases 1000] [--seed 0] [--kind K ...] [--jobs 2]`

Input kinds: tau2 and tau-bench files, OpenAI and Anthropic JSONL chat logs, BFCL outputs,
questions and possible answers, scenario suite files (YAML/JSON), and hostile `python:`
agents. Each case is a seeded mutation of a small valid seed cut from the shipped fixtures
(see tests/fuzz), run in a worker process under a time limit and a memory cap.

Prints, per input kind, how many cases ended in each outcome class
- clean_error: a named sessionproof error (one `error:` line, exit 2) or a usage error;
- partial: exit 1, some records skipped, each named;
- accepted: exit 0;
- traceback: any other exception (the failure class);
- hang: over the per-case time limit (the other failure class);
then every distinct failure (exception type and innermost sessionproof frame) with its
smallest reproducer. The target is 0 tracebacks and 0 hangs; the exit code is 1 otherwise.

Reproduce one case: `benchmarks/fuzz.py --kind suite --case 14` runs case 14 in this process
and prints its full traceback; add `--dump DIR` to write its input files there.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the harness lives in tests/fuzz

from tests.fuzz._cases import KINDS, Case, build_case  # noqa: E402
from tests.fuzz._pool import DEFAULT_TIMEOUT_S, WorkerPool  # noqa: E402
from tests.fuzz._tally import Tally, table, tally  # noqa: E402


def _one(kind: str, seed: int, index: int, dump: Path | None) -> int:
    """Run one case here, with the traceback of any exception shown whole."""
    import tests.fuzz._run as run

    case = build_case(kind, seed, index)
    print(f"case {kind}:{index} (seed {seed}): {case.describe()}")
    if dump is not None:
        dump.mkdir(parents=True, exist_ok=True)
        for name, data in case.files.items():
            (dump / name).write_bytes(data)
        print(f"files written to {dump}: {', '.join(case.files) or '(none)'}")
    original = run.failure

    def show(case: Case, exc: BaseException, seconds: float) -> run.CaseResult:
        traceback.print_exception(exc)
        return original(case, exc, seconds)

    run.failure = show
    result = run.run_case(case)
    print(f"outcome: {result.outcome}  {result.signature or ''}  {result.message or ''}")
    return 1 if result.outcome in run.FAILURES else 0


def main() -> int:
    """Parse the options, run the cases, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000, help="cases per input kind")
    parser.add_argument("--seed", type=int, default=0, help="fuzz seed")
    parser.add_argument("--kind", action="append", choices=KINDS, help="input kind (repeat)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="s per case")
    parser.add_argument("--examples", type=int, default=1, help="reproducers per failure")
    parser.add_argument("--case", type=int, help="run only this case index, here")
    parser.add_argument("--dump", type=Path, help="with --case: write its files here")
    args = parser.parse_args()
    kinds = args.kind or list(KINDS)
    if args.case is not None:
        if len(kinds) != 1:
            parser.error("--case needs exactly one --kind")
        return _one(kinds[0], args.seed, args.case, args.dump)
    print(
        f"fuzz: {args.cases} cases × {len(kinds)} kinds, seed {args.seed}, "
        f"{args.jobs} workers, {args.timeout:g} s per case",
        flush=True,
    )
    started = time.perf_counter()
    tallies: list[Tally] = []
    with WorkerPool(jobs=args.jobs) as pool:
        for kind in kinds:
            result = tally(kind, args.seed, args.cases, pool, args.timeout)
            tallies.append(result)
            print(table([result]).splitlines()[-1], flush=True)
    print(f"\nall kinds ({time.perf_counter() - started:.0f} s):")
    print(table(tallies))
    for result in tallies:
        if result.failures:
            print()
            print(result.report(args.examples))
        if result.notes:
            print(f"[{result.kind}] notes: {dict(result.notes)}")
    return 1 if any(t.failed for t in tallies) else 0


if __name__ == "__main__":
    sys.exit(main())
