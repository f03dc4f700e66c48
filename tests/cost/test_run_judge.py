"""`run --judge`: the judge a run is given judges its NL assertions (see
test_model_call_roles for the recorded calls); it runs in one local process only, and a
resumed run keeps it from its manifest."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionproof.errors import ConfigError
from sessionproof.executors._internal import load
from sessionproof.runs import RunConfig, run
from sessionproof.runs._resume import resumed_config
from sessionproof.runs._run import new_manifest


def test_a_judge_with_worker_processes_is_refused_before_running(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    for executor in ("local:2", "ray"):
        config = RunConfig(
            suite="demo", model="oracle", limit=1, judge="oracle", executor=executor, store=store
        )
        with pytest.raises(ConfigError, match="--judge runs with the local executor"):
            run(config)
    assert not store.exists()


def test_a_resumed_run_keeps_its_judge(tmp_path: Path) -> None:
    config = RunConfig(suite="demo", model="oracle", limit=1, judge="oracle")
    manifest = new_manifest(config, load("demo", 1, "own"))
    assert manifest.options["judge"] == "oracle"
    assert resumed_config(manifest, tmp_path / "s.duckdb").judge == "oracle"
    plain = new_manifest(RunConfig(suite="demo", model="oracle", limit=1), load("demo", 1, "own"))
    assert "judge" not in plain.options  # manifests of runs without one are as they were
    assert resumed_config(plain, tmp_path / "s.duckdb").judge is None


def test_each_arm_has_its_own_cost_never_pooled() -> None:
    done = run(RunConfig(suite="demo", model="oracle", limit=2, arms=["baseline", "faults=5%"]))
    arms = done.to_json()["arms"]
    assert set(arms) == {"baseline", "faults=5%"}
    for arm in arms.values():
        cost = arm["cost"]
        assert cost["sessions"] == 2  # this arm's sessions, not both arms'
        # The oracle calls no model: nothing spent, nothing unpriced.
        assert cost["total_usd"] == 0.0 and cost["unpriced_models"] == []
        assert all(t["calls"] == 0 for t in cost["tokens"].values())
