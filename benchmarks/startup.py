"""Start-up time of the command line, whole process, against a baseline side by side.

Run: `.venv/bin/python benchmarks/startup.py [--repeat 5] [--rounds 1] [--baseline REF]
[--src DIR] [--importtime 15] [--no-report-run]`

Times `--repeat` fresh processes of each of
- `sessionproof --help`;
- `sessionproof score --help`;
- `sessionproof score FILE --store TMP --no-report` on a 20-session tau2 file (the first 20
  simulations of the shared retail trajectories, tests/fixtures/tau, with their tasks);
- the same `score` with its HTML report written (the command's default; `--no-report-run`
  leaves it out);
and prints, per command, the median wall time (min, max) and the median CPU time (user +
system, steadier when the machine is shared), for this tree's `src/` (or `--src`) and, with
`--baseline REF`, for the `src/` of that git ref (extracted with `git archive` into a
temporary folder: no worktree, nothing checked out), the two run alternately so that both
see the same load. `--rounds N` repeats the whole comparison N times (the machine is shared:
compare rounds made together). The load average is printed before and after each round.

Python's bytecode cache is kept (in a temporary `PYTHONPYCACHEPREFIX`, warmed by one run of
each command first) even when `PYTHONDONTWRITEBYTECODE` is set: an installed package has its
bytecode, and compiling ~600 modules would be timed otherwise.

Then, from `python -X importtime`, the `--importtime` costliest imports (cumulative
microseconds, self in brackets) of that `score` for the measured tree, and the modules it
loads. The targets (issue 35, item 8): `--help` <= 0.25 s and that `score` <= 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RETAIL = ROOT / "tests" / "fixtures" / "tau" / "gpt-4.1_retail_defautl_gpt-4.1_1trials.json"
CLI = ("-m", "sessionproof.cli")
Times = tuple[list[float], list[float]]


def twenty_sessions(folder: Path) -> Path:
    """The first 20 simulations of the retail trajectories (and their tasks) as one file."""
    data = json.loads(RETAIL.read_text(encoding="utf-8"))
    sims = data["simulations"][:20]
    wanted = {s["task_id"] for s in sims}
    data["simulations"] = sims
    data["tasks"] = [t for t in data["tasks"] if t["id"] in wanted]
    out = folder / "retail20.json"
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def baseline_src(ref: str, folder: Path) -> Path:
    """The `src/` of git `ref`, extracted into `folder` (raises SystemExit when unknown)."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref, "src"],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"--baseline {ref}: {done.stderr.decode().strip()}")
    with tarfile.open(fileobj=BytesIO(done.stdout)) as tar:
        tar.extractall(folder, filter="data")
    return folder / "src"


def _env(src: Path, cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def once(src: Path, cache: Path, args: list[str], times: Times) -> None:
    """One fresh process of the CLI with `args`; its wall and CPU seconds go into `times`."""
    if "--store" in args:  # every score writes into a new store
        Path(args[args.index("--store") + 1]).unlink(missing_ok=True)
    start, start_cpu = time.perf_counter(), _cpu()
    done = subprocess.run(
        [sys.executable, *CLI, *args], capture_output=True, env=_env(src, cache), check=False
    )
    times[0].append(time.perf_counter() - start)
    times[1].append(_cpu() - start_cpu)
    # Exit 1 is a score that skipped or warned about a record: still a whole score.
    if done.returncode not in (0, 1):
        raise SystemExit(f"{args}: exit {done.returncode}: {done.stderr.decode()[-400:]}")


def line(label: str, times: Times) -> str:
    """The median wall time (min, max) and the median CPU time of `times`."""
    wall, cpu = times
    return (
        f"{label:<36} wall {statistics.median(wall):.3f} s "
        f"({min(wall):.3f}-{max(wall):.3f}), CPU {statistics.median(cpu):.3f} s"
    )


def load() -> str:
    """The 1-minute load average."""
    return f"{os.getloadavg()[0]:.2f}"


def import_profile(src: Path, cache: Path, args: list[str], top: int) -> None:
    """The costliest imports of one run of the CLI with `args`, cumulative (and self)."""
    Path(args[args.index("--store") + 1]).unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *CLI, *args],
        capture_output=True,
        text=True,
        env=_env(src, cache),
        check=False,
    )
    rows = []
    for text in done.stderr.splitlines():
        if not text.startswith("import time:") or "|" not in text:
            continue
        own, cumulative, name = text.removeprefix("import time:").split("|")
        if cumulative.strip().isdigit():
            rows.append((int(cumulative), int(own), name.rstrip()))
    total = sum(own for _, own, _ in rows)
    print(f"\n`score` imports {len(rows)} modules, {total / 1e6:.3f} s of import time in all")
    print("(under -X importtime, which slows imports); costliest, cumulative (self) us:")
    for cumulative, own, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cumulative:>9} ({own:>7})  {name.strip()}")


def main() -> None:
    """Time the CLI's start-up and one small score, beside a baseline when given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--importtime", type=int, default=15)
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the src to measure")
    parser.add_argument("--baseline", metavar="REF", help="a git ref to measure beside it")
    parser.add_argument(
        "--no-report-run", action="store_true", help="leave out the score that writes a report"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        trees = {"this": args.src.resolve()}
        if args.baseline:
            trees[args.baseline] = baseline_src(args.baseline, folder / "baseline")
        data = str(twenty_sessions(folder))
        store = str(folder / "s.duckdb")
        commands = {
            "--help": ["--help"],
            "score --help": ["score", "--help"],
            "score --no-report": ["score", data, "--store", store, "--no-report"],
        }
        if not args.no_report_run:
            commands["score (report written)"] = ["score", data, "--store", store]
        for name, src in trees.items():
            print(f"{name}: {src}")
        caches = {name: folder / f"pyc-{i}" for i, name in enumerate(trees)}
        for name, src in trees.items():  # warm each tree's bytecode cache
            for command in commands.values():
                once(src, caches[name], command, ([], []))
        for round_no in range(args.rounds):
            print(f"\nround {round_no + 1}: load {load()} before")
            results = {(n, c): ([], []) for n in trees for c in commands}
            for command, argv in commands.items():
                for _ in range(args.repeat):
                    for name, src in trees.items():  # alternately: both see the same load
                        once(src, caches[name], argv, results[name, command])
            for command in commands:
                for name in trees:
                    print(line(f"{command} [{name}]", results[name, command]))
            print(f"load {load()} after")
        import_profile(
            trees["this"], caches["this"], commands["score --no-report"], args.importtime
        )


if __name__ == "__main__":
    main()
