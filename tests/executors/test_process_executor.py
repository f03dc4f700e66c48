"""The local executor over forked worker processes (`--executor local:N`, and `local` on a
large run): it stores what one process stores, survives a killed worker without losing or
duplicating a session, splits the limits, and refuses what it cannot run."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from sessionproof.agents._internal import RateLimits
from sessionproof.errors import ConfigError
from sessionproof.executors._internal import fork_available, shares
from sessionproof.runs import RunConfig, resume, run
from sessionproof.store import Store
from tests.agents.fakeprovider import FakeProvider, Reply, Seen, completion
from tests.runs.decided import assert_stored_once, stored_sessions, what_was_decided
from tests.runs.ray_agents import LOG_ENV, MARKER_ENV

TARGET = "cancel-two-orders-parallel"
"""The scenario `exits` raises SystemExit on."""

pytestmark = pytest.mark.skipif(not fork_available(), reason="worker processes are forked")


def _config(store: Path, executor: str, **extra: Any) -> RunConfig:
    fields: dict[str, Any] = {
        "suite": "demo",
        "model": "oracle",
        "limit": 6,
        "trials": 2,
        "seed": 9,
        "arms": ["baseline", "faults=20%"],
        "concurrency": 4,
        "store": store,
        "executor": executor,
    }
    fields.update(extra)
    return RunConfig(**fields)


@pytest.mark.slow
def test_worker_processes_store_the_verdicts_terminations_and_faults_of_one_process(
    tmp_path: Path,
) -> None:
    decided = {}
    for executor in ("local:1", "local:2"):
        store = tmp_path / f"{executor.replace(':', '-')}.duckdb"
        report = run(_config(store, executor))
        decided[executor] = [what_was_decided(s) for s in stored_sessions(store, report.run_id)]
        # Two arms: each summarized apart (12 sessions each), never pooled.
        assert [a.sessions for a in report.summary_by_arm.values()] == [12, 12]
    assert decided["local:2"] == decided["local:1"]
    assert any(faults for _, _, _, faults, _ in decided["local:1"])  # the faults did fire


@pytest.fixture
def marker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file `dies_once` writes when it kills its process (absent: it will)."""
    path = tmp_path / "killed"
    monkeypatch.setenv(MARKER_ENV, str(path))  # before the fork: workers inherit it
    return path


@pytest.mark.slow
def test_a_killed_worker_s_sessions_run_again_and_are_stored_exactly_once(
    tmp_path: Path, marker: Path
) -> None:
    store = tmp_path / "s.duckdb"
    report = run(_config(store, "local:2", model="python:tests.runs.ray_agents:dies_once"))
    assert marker.exists()  # a process did die mid-run ...
    assert int(marker.read_text()) != os.getpid()  # ... a worker, not this driver
    assert_stored_once(store, report.run_id, 24)


@pytest.mark.slow
def test_an_agent_asking_to_exit_ends_its_session_as_in_one_process(tmp_path: Path) -> None:
    # Issue 41.22 changed this: an agent function calling sys.exit() used to stop the run
    # (left `running`, nothing stored); it now ends only its own session, as the agent's
    # failure, in one process and in a worker alike.
    outcomes = {}
    for executor in ("local:1", "local:2"):
        store = tmp_path / f"{executor.replace(':', '-')}.duckdb"
        report = run(_config(store, executor, model="python:tests.runs.ray_agents:exits"))
        with Store.open(store, read_only=True) as db:
            outcomes[executor] = [r.status for r in db.list_runs()]
        ended = {s.termination.value for s in report.sessions if s.scenario_id == TARGET}
        assert ended == {"too_many_errors"}
    assert outcomes["local:2"] == outcomes["local:1"] == ["finished"]


def _chat(seen: Seen) -> Reply:
    """A text reply; the conversation ends once it is longer than 8 messages."""
    long = len(seen.body["messages"]) > 8
    return Reply(completion("Thanks, that is all. ###STOP###" if long else "Tell me more?"))


@pytest.mark.slow
def test_requests_go_through_each_worker_s_share_of_the_window(tmp_path: Path) -> None:
    fake = FakeProvider(_chat).start()
    try:
        config = RunConfig(
            suite="tau2-airline",
            model=f"openai-compat:fake@{fake.url}",
            limit=4,
            trials=2,
            concurrency=3,
            store=tmp_path / "s.duckdb",
            executor="local:2",
        )
        report = run(config)
    finally:
        fake.stop()
    served = len(fake.posts())
    stats = report.concurrency
    assert stats is not None
    assert report.summary.sessions == 8
    assert stats.requests == served > 0  # every request counted, in one of the workers
    assert stats.limit == 3 and stats.peak <= 3  # the two shares (2 + 1) never exceed it


@pytest.fixture
def agent_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file `logs_where` appends to."""
    path = tmp_path / "agent.log"
    monkeypatch.setenv(LOG_ENV, str(path))
    return path


def _sessions_by_process(log: Path) -> dict[str, int]:
    """How many sessions each process decided in."""
    seen: dict[str, set[str]] = {}
    for line in log.read_text().splitlines():
        pid, _, _, session_id = line.split()
        seen.setdefault(pid, set()).add(session_id)
    return {pid: len(ids) for pid, ids in seen.items()}


@pytest.mark.slow
def test_fewer_sessions_than_the_window_are_spread_over_every_worker(
    tmp_path: Path, agent_log: Path
) -> None:
    # Room for 8 sessions at once (4 per worker) and only 6 to run: filling one worker to
    # its share before the next gave 4 and 2; one at a time to each in turn gives 3 and 3.
    config = _config(
        tmp_path / "s.duckdb",
        "local:2",
        model="python:tests.runs.ray_agents:logs_where",
        limit=3,
        trials=2,
        arms=["baseline"],
        concurrency=8,
    )
    report = run(config)
    assert report.summary.sessions == 6
    by_process = _sessions_by_process(agent_log)
    assert str(os.getpid()) not in by_process and len(by_process) == 2
    assert sorted(by_process.values()) == [3, 3]


@pytest.mark.slow
def test_a_run_tunes_the_collector_for_its_sessions_and_restores_it(
    tmp_path: Path, agent_log: Path
) -> None:
    before = gc.get_threshold()
    for executor in ("local:1", "local:2"):
        agent_log.unlink(missing_ok=True)
        config = _config(
            tmp_path / f"{executor[-1]}.duckdb",
            executor,
            model="python:tests.runs.ray_agents:logs_where",
            limit=2,
            trials=1,
            arms=["baseline"],
        )
        run(config)
        lines = [line.split() for line in agent_log.read_text().splitlines()]
        assert lines
        # Young collections far less often, and what was alive at the start frozen out
        # of every collection: in this process and in forked workers alike.
        assert all(int(young) >= 10 * before[0] for _, young, _, _ in lines)
        assert all(int(frozen) > 0 for _, _, frozen, _ in lines)
        assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_the_limits_split_without_exceeding_the_run_s() -> None:
    parts = shares(5, 20, RateLimits(rpm=60.0, tpm=None), 2)
    assert [p.concurrency for p in parts] == [3, 2]
    assert [p.sessions for p in parts] == [10, 10]
    assert [p.limits.rpm for p in parts] == [30.0, 30.0]
    assert all(p.limits.tpm is None for p in parts)


def test_worker_processes_only_when_asked_for() -> None:
    big = RunConfig(model="openai-compat:m@http://127.0.0.1:9/v1", concurrency=256)
    assert big.processes() == 1  # measured slower on 2 cores: never by default
    assert RunConfig(model="oracle", executor="local:3").processes() == 3
    assert RunConfig(model="oracle", executor="ray").processes() == 1


@pytest.mark.parametrize("bad", ["local:0", "local:x", "local:", "local:-2", "locals"])
def test_a_bad_process_count_is_a_clear_error(bad: str) -> None:
    with pytest.raises(ConfigError, match="--executor must be"):
        RunConfig(executor=bad)


def test_rate_limits_apply_to_worker_processes(tmp_path: Path) -> None:
    config = RunConfig(model="oracle", executor="local:2", rpm=60.0)
    assert config.rpm == 60.0  # accepted: the workers split it (Ray still refuses it)
    with pytest.raises(ConfigError, match="local executor only"):
        RunConfig(model="oracle", executor="ray", rpm=60.0)


def _start(tmp_path: Path) -> tuple[subprocess.Popen[str], list[int]]:
    """`sessionproof run` over two worker processes with a slow agent, once its workers
    are up: (the process, its workers' pids)."""
    src = Path(__file__).resolve().parents[2] / "src"
    args = ["run", "--model", "python:tests.runs.ray_agents:slow", "--trials", "8"]
    args += ["--executor", "local:2", "--store", str(tmp_path / "s.duckdb"), "--no-report"]
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessionproof.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{root}"},
        # Default SIGINT even when the test runner ignores it (as background jobs do).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    psutil = pytest.importorskip("psutil")
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while len(workers) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
        workers = [c.pid for c in psutil.Process(proc.pid).children()]
    assert len(workers) == 2, "the two worker processes did not start"
    time.sleep(1.5)  # sessions under way
    return proc, workers


def _gone(pids: list[int], within: float) -> bool:
    psutil = pytest.importorskip("psutil")
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(psutil.pid_exists(p) and psutil.Process(p).status() != "zombie" for p in pids):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_ctrl_c_stops_the_workers_at_once_and_the_run_resumes(tmp_path: Path) -> None:
    proc, workers = _start(tmp_path)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130, out
    assert "interrupted; continue with: sessionproof run --resume" in out
    assert _gone(workers, 5)
    run_id = out.split("--resume ")[-1].split()[0]
    report = resume(run_id, store=tmp_path / "s.duckdb", executor="local:2")
    with Store.open(tmp_path / "s.duckdb", read_only=True) as db:
        rows = db.session_rows(run_id)
        assert db.get_run(run_id).status == "finished"
    keys = [(r.scenario_id, r.trial, r.arm) for r in rows]
    everything = sum(a.sessions for a in report.summary_by_arm.values())
    assert len(keys) == len(set(keys)) == everything > len(report.sessions)


@pytest.mark.slow
def test_workers_end_when_their_driver_is_killed(tmp_path: Path) -> None:
    proc, workers = _start(tmp_path)
    proc.kill()  # no clean-up at all: the workers see their socket close
    proc.communicate(timeout=30)
    assert _gone(workers, 10)
