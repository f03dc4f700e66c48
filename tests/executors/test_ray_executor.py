"""The Ray executor on a local cluster this module starts once (2 CPUs, loopback only, no
dashboard): it stores what the local executor stores, survives a killed worker without
losing or duplicating a session, and resumes runs across executors."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.errors import ConfigError
from sessionproof.executors._internal import (
    RayRateLimiter,
    TokenBucket,
    WorkerSpec,
    execute_ray,
    limited_by,
    load,
)
from sessionproof.records import AssistantMessageEvent
from sessionproof.runs import RunConfig, resume, run
from sessionproof.store import Store
from tests.runs.decided import assert_stored_once, forget, stored_sessions, what_was_decided
from tests.runs.ray_agents import MARKER_ENV

LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A local Ray cluster for the module: the executor's own loopback start-up."""
    # Read by Ray at import, and inherited by every worker process the cluster starts.
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    os.environ[MARKER_ENV] = str(tmp_path_factory.mktemp("ray") / "killed")
    ray = pytest.importorskip("ray")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        log_to_driver=False,
        logging_level="WARNING",
    )
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def both(cluster: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """One run configuration run by each executor: executor → (its store, its run id)."""
    done = {}
    for executor in ("local", "ray"):
        store = tmp_path_factory.mktemp(executor) / "s.duckdb"
        config = RunConfig(
            suite="demo",
            model="oracle",
            limit=6,
            trials=2,
            seed=9,
            arms=["baseline", "faults=20%"],
            concurrency=4,
            store=store,
            executor=executor,
        )
        done[executor] = (store, run(config).run_id)
    return done


@pytest.mark.slow
def test_ray_stores_the_verdicts_terminations_and_faults_of_the_local_run(
    both: dict[str, tuple[Path, str]],
) -> None:
    local, remote = ([what_was_decided(s) for s in stored_sessions(*both[e])] for e in both)
    assert len(local) == 24
    assert remote == local
    assert any(faults for _, _, _, faults, _ in local)  # the faults did fire
    for executor, (store, run_id) in both.items():
        with Store.open(store, read_only=True) as db:
            assert db.get_run(run_id).options["executor"] == executor


@pytest.mark.slow
def test_ray_runs_the_perturbed_scenarios_the_local_pool_runs(cluster: Any, tmp_path: Path) -> None:
    # A perturbation rewrites the scenario and wraps the user; a worker that skipped that
    # would run the plain scenario, and the guessing agent would pass it.
    decided = {}
    for executor in ("local", "ray"):
        store = tmp_path / f"{executor}.duckdb"
        config = RunConfig(
            suite="demo",
            model="python:tests.suites.wild.agents:guesses",
            limit=4,
            arms=["perturb=missing_arg"],
            store=store,
            executor=executor,
        )
        report = run(config)
        decided[executor] = [what_was_decided(s) for s in stored_sessions(store, report.run_id)]
    assert decided["ray"] == decided["local"]
    assert any(not outcome["success"] for _, outcome, _, _, _ in decided["local"])


@pytest.mark.slow
def test_a_killed_worker_s_sessions_are_retried_and_stored_exactly_once(
    cluster: Any, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "s.duckdb"
    marker = Path(os.environ[MARKER_ENV])
    report = run(
        RunConfig(
            suite="demo",
            model="python:tests.runs.ray_agents:dies_once",
            limit=6,
            trials=2,
            concurrency=4,
            store=store,
            executor="ray",
        )
    )
    assert marker.exists()  # a worker did die mid-run
    assert "died" not in capfd.readouterr().out  # Ray's notice of it kept off stdout
    assert int(marker.read_text()) != os.getpid()  # ... a worker, not this driver
    assert_stored_once(store, report.run_id, 12)


@pytest.mark.slow
@pytest.mark.parametrize(("first", "then"), [("local", "ray"), ("ray", "local")])
def test_a_run_resumes_on_the_other_executor(
    both: dict[str, tuple[Path, str]], tmp_path: Path, first: str, then: str
) -> None:
    store = tmp_path / "s.duckdb"
    original = both[first][0]
    for suffix in ("", ".wal"):  # a copy: the other tests read the original
        if Path(f"{original}{suffix}").exists():
            Path(f"{store}{suffix}").write_bytes(Path(f"{original}{suffix}").read_bytes())
    run_id = both[first][1]
    before = [what_was_decided(s) for s in stored_sessions(store, run_id)]
    lost = [s[0] for s in before[1:20:6]]
    forget(store, run_id, lost)

    again = resume(run_id, store=store, executor=then)
    assert sorted(s.session_id for s in again.sessions) == sorted(lost)
    assert [what_was_decided(s) for s in stored_sessions(store, run_id)] == before
    with Store.open(store, read_only=True) as db:
        assert db.get_run(run_id).status == "finished"
        assert len(db.session_rows(run_id)) == len(before)


@pytest.mark.slow  # it starts the module's Ray cluster (over 10 s)
def test_the_local_cluster_listens_on_loopback_only(cluster: Any) -> None:
    psutil = pytest.importorskip("psutil")
    mine = {p.pid for p in psutil.Process().children(recursive=True)}
    listening = [
        c
        for c in psutil.net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN and c.pid in mine
    ]
    assert listening  # the cluster's servers were found ...
    assert {c.laddr.ip for c in listening} <= LOOPBACK  # ... and none beyond loopback


class _Locked:
    """An agent holding a lock: it cannot be pickled to a worker."""

    name = "locked"

    def __init__(self) -> None:
        self.lock = threading.Lock()

    async def respond(self, request: AgentRequest) -> AgentResponse:
        return await OracleAgent().respond(request)

    async def aclose(self) -> None:
        return None


def test_an_agent_object_that_cannot_be_pickled_is_a_clear_error(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    config = RunConfig(model=_Locked(), suite="demo", limit=1, executor="ray")
    with pytest.raises(ConfigError, match=r"cannot be pickled.*model spec string"):
        run(config)


def test_without_ray_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` meets without it
    with pytest.raises(ConfigError, match=r"sessionproof\[ray\]"):
        run(RunConfig(model="oracle", suite="demo", limit=1, executor="ray"))


@pytest.mark.parametrize("bad", ["rya", "ray:", "local:x", ""])
def test_a_bad_executor_spec_is_a_config_error(bad: str) -> None:
    with pytest.raises(ConfigError, match="--executor must be"):
        RunConfig(executor=bad)


def test_the_token_bucket_spaces_requests_beyond_its_burst() -> None:
    now = [100.0]
    bucket = TokenBucket(rate_per_s=2.0, burst=2, clock=lambda: now[0])
    assert [bucket.reserve() for _ in range(4)] == [0.0, 0.0, 0.5, 1.0]  # burst, then queued
    now[0] += 10.0  # long idle: refills to the burst, never beyond
    assert [bucket.reserve() for _ in range(3)] == [0.0, 0.0, 0.5]
    assert bucket.granted == 7
    with pytest.raises(ConfigError, match="positive rate"):
        TokenBucket(rate_per_s=0)


@pytest.mark.slow
def test_every_worker_s_model_calls_go_through_the_shared_limiter(cluster: Any) -> None:
    loaded = load("demo", 4)
    plan = RunPlan(run_id="limited", trials=2, concurrency=4)
    limiter = RayRateLimiter.start(rpm=600_000)  # high enough that nobody waits long
    spec = WorkerSpec(
        suite="demo",
        limit=4,
        suite_hash=loaded.content_hash(),
        model="oracle",
        user_model=None,
        tool_mode="auto",
        plan=plan,
        cwd=os.getcwd(),
        wrap_agent=limited_by(limiter),
    )
    sink = SessionList()
    asyncio.run(execute_ray(spec, loaded, plan, sink))
    decisions = sum(isinstance(e, AssistantMessageEvent) for s in sink.sessions for e in s.events)
    assert len(sink.sessions) == 8 and decisions > 8
    assert cluster.get(limiter.granted.remote()) == decisions  # one token per model call


@pytest.mark.slow
def test_the_cli_refuses_a_bad_executor_in_one_line(tmp_path: Path) -> None:
    src = Path(__file__).resolve().parents[2] / "src"
    args = ["run", "--model", "oracle", "--limit", "1", "--executor", "ray:"]
    proc = subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", *args, "--store", str(tmp_path / "s.duckdb")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(src)},
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "--executor must be local | local:PROCESSES | ray | ray:ADDRESS" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_rate_limits_with_the_ray_executor_are_refused_not_dropped() -> None:
    with pytest.raises(ConfigError, match="--rpm/--tpm apply to the local executor only"):
        RunConfig(suite="demo", model="oracle", executor="ray", rpm=60)
