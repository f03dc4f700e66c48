"""`--executor local:N` forks no more workers than the run has sessions (or keeps in flight),
and says so when the workers outnumber the usable cores (issue 41.28)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from sessionproof.executors._internal import fork_available, worker_count
from sessionproof.runs import RunConfig, run

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not fork_available(), reason="worker processes are forked")


def _most_children(stop: threading.Event, seen: list[int], before: set[int]) -> None:
    # Only the children the run starts: processes left by earlier tests in this pytest
    # process (a model server, the MCP reaper) are in `before`.
    me = psutil.Process()
    while not stop.is_set():
        seen.append(sum(c.pid not in before for c in me.children()))
        time.sleep(0.005)


@pytest.mark.slow
def test_workers_never_outnumber_the_sessions(tmp_path: Path) -> None:
    config = RunConfig(
        suite="demo", model="oracle", limit=2, trials=1, store=tmp_path / "s.duckdb",
        executor="local:40",
    )  # fmt: skip
    seen: list[int] = []
    stop = threading.Event()
    watcher = threading.Thread(
        target=_most_children,
        args=(stop, seen, {c.pid for c in psutil.Process().children()}),
        daemon=True,
    )
    watcher.start()
    try:
        report = run(config)
    finally:
        stop.set()
        watcher.join()
    assert report.summary.sessions == 2
    # Before: 40 processes forked for 2 sessions.
    assert 1 <= max(seen) <= 2, max(seen)


def test_the_count_is_capped_by_sessions_and_those_in_flight() -> None:
    assert worker_count(99999, 2, 16) == 2
    assert worker_count(8, 100, 3) == 3
    assert worker_count(1, 100, 16) == 1


def _one_core() -> None:
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def _run_on_one_core(executor: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", "run", "--model", "oracle", "--limit", "2",
         "--executor", executor, "--no-report", "--store", str(tmp_path / f"{executor}.duckdb")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"},
        preexec_fn=_one_core,
        timeout=120,
        check=False,
    )  # fmt: skip


@pytest.mark.slow
def test_more_workers_than_usable_cores_is_said_in_one_line(tmp_path: Path) -> None:
    many = _run_on_one_core("local:2", tmp_path)
    assert many.returncode == 0, many.stderr
    said = [line for line in many.stderr.splitlines() if "usable cores" in line]
    assert len(said) == 1 and "local:2 forks 2 worker processes on 1 usable cores" in said[0]
    one = _run_on_one_core("local:1", tmp_path)
    assert one.returncode == 0, one.stderr
    assert "usable cores" not in one.stderr
