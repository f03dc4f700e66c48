"""Start-up time of the command line, whole process.

Run: `.venv/bin/python benchmarks/startup.py [--repeat 5] [--importtime 15] [--src DIR]`

Prints the median (and min, max) wall time, and the median CPU time (user + system: steadier
when the machine is shared), of `--repeat` fresh processes of
- `sessionproof --help`;
- `sessionproof score FILE --store TMP --no-report` on a 20-session tau2 file (the first 20
  simulations of the shared retail trajectories, tests/fixtures/tau), and the same with the
  run's HTML report written (the command's default);
and then, from `python -X importtime -c "import sessionproof.cli"`, the modules that
`sessionproof --help` imports, the `--importtime` costliest first (cumulative microseconds),
and how many modules it loads in all. The targets (issue 35, item 8): `--help` <= 0.25 s and
that `score` <= 0.5 s on the project machine. The machine is shared: a loaded one inflates
every figure, so compare runs made together.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RETAIL = ROOT / "tests" / "fixtures" / "tau" / "gpt-4.1_retail_defautl_gpt-4.1_1trials.json"
CLI = (sys.executable, "-m", "sessionproof.cli")


SRC = [ROOT / "src"]
"""The source tree measured (`--src`: e.g. an older checkout's, to compare)."""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC[0])
    return env


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


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(
    args: list[str], repeat: int, ok: tuple[int, ...] = (0,)
) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of `repeat` fresh processes of the CLI with `args`."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), _cpu()
        done = subprocess.run([*CLI, *args], capture_output=True, env=_env(), check=False)
        wall.append(time.perf_counter() - start)
        cpu.append(_cpu() - start_cpu)
        if done.returncode not in ok:
            raise SystemExit(f"{args}: exit {done.returncode}: {done.stderr.decode()[-400:]}")
    return wall, cpu


def show(label: str, times: tuple[list[float], list[float]]) -> None:
    """One line: the median wall time (min, max) and the median CPU time (user + system)."""
    wall, cpu = times
    print(
        f"{label:<42} wall median {statistics.median(wall):.3f} s "
        f"(min {min(wall):.3f}, max {max(wall):.3f}), CPU median {statistics.median(cpu):.3f} s, "
        f"n={len(wall)}"
    )


def import_profile(top: int) -> None:
    """The costliest imports of `import sessionproof.cli`, cumulative."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import sessionproof.cli"],
        capture_output=True,
        text=True,
        env=_env(),
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|")
        if cumulative.strip().isdigit():
            rows.append((int(cumulative), name.rstrip()))
    print(f"`import sessionproof.cli` loads {len(rows)} modules; costliest (cumulative us):")
    for cumulative, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cumulative:>9}  {name.strip()}")


def main() -> None:
    """Time the CLI's start-up and one small score."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--importtime", type=int, default=15)
    parser.add_argument("--src", type=Path, default=SRC[0], help="the src folder to measure")
    args = parser.parse_args()
    SRC[0] = args.src.resolve()
    print(f"source: {SRC[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = str(twenty_sessions(folder))
        show("sessionproof --help", timed(["--help"], args.repeat))
        show("sessionproof score --help", timed(["score", "--help"], args.repeat))
        no_report = ["score", data, "--store", str(folder / "a.duckdb"), "--no-report"]
        # Exit 1 is a clean run that skipped or warned about a record: still a whole score.
        show("score (20 tau2 sessions, --no-report)", timed(no_report, args.repeat, (0, 1)))
        reported = ["score", data, "--store", str(folder / "b.duckdb")]
        show("score (20 tau2 sessions, report written)", timed(reported, args.repeat, (0, 1)))
    import_profile(args.importtime)


if __name__ == "__main__":
    main()
