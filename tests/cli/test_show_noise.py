"""`sessionproof show RUN --metrics [--json] [--target-mde X]`: the noise floor of each arm,
from real runs of the demo suite by agents whose per-scenario success chance is known."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.agents._internal import STOP_TOKEN
from sessionproof.cli._internal import app
from sessionproof.errors import ConfigError, InfraError, StoreError
from sessionproof.records import Message
from sessionproof.scoring._internal import NOISE_DEFINITIONS
from sessionproof.scoring.stats._noise import icc_anova, min_detectable_difference

runner = CliRunner()
_oracle = OracleAgent()
COIN = "python:tests.cli.test_show_noise:coin"
BROKEN = "python:tests.cli.test_show_noise:broken"


def _chance(scenario_id: str) -> float:
    """Each scenario's own success chance, spread over 0.1-0.9 (a heterogeneous suite)."""
    return 0.1 + 0.8 * (hashlib.sha256(scenario_id.encode()).digest()[0] / 255)


def _draw(seed: int | None) -> float:
    return hashlib.sha256(f"draw|{seed}".encode()).digest()[0] / 256


async def coin(request: AgentRequest) -> AgentResponse:
    """The oracle with its scenario's chance (the session seed decides), else gives up at once."""
    assert request.scenario is not None
    if _draw(request.seed) < _chance(request.scenario.id):
        return await _oracle.respond(request)
    return AgentResponse(message=Message.assistant(f"I cannot help with that. {STOP_TOKEN}"))


async def broken(request: AgentRequest) -> AgentResponse:
    """Its backend is down: every session ends in an infra error (never judged)."""
    raise InfraError("backend down")


def _invoke(*args: str) -> Any:
    return runner.invoke(app, list(args))


def _run(store: Path, model: str, trials: int, limit: int = 12) -> str:
    result = _invoke(
        "run", "--model", model, "--store", str(store), "--trials", str(trials),
        "--limit", str(limit), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["run_id"])


def _noise(store: Path, run_id: str, *extra: str) -> dict[str, Any]:
    result = _invoke("show", run_id, "--store", str(store), "--metrics", "--json", *extra)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture(scope="module")
def coin_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("noise") / "s.duckdb"
    return store, _run(store, COIN, trials=4)


def test_json_carries_each_arms_noise_floor_with_its_numbers(coin_run: tuple[Path, str]) -> None:
    store, run_id = coin_run
    data = _noise(store, run_id)
    arm = data["arms"]["baseline"]
    noise = arm["noise"]
    # Recomputed by hand from the per-scenario counts the same JSON carries.
    counts = {f["scenario_id"]: (f["trials"], f["successes"]) for f in arm["flakiness"]}
    assert noise["scenarios"] == 12 and noise["judged_trials"] == 48
    assert noise["trials_per_scenario"] == 4.0 and noise["not_judged"] == 0
    flips = [2 * c * (n - c) / (n * (n - 1)) for n, c in counts.values()]
    assert noise["flip_rate"] == pytest.approx(sum(flips) / len(flips))
    assert noise["icc"] == pytest.approx(icc_anova(counts))
    p = sum(c for _, c in counts.values()) / 48
    assert noise["accuracy"] == pytest.approx(p)
    assert 0 < p < 1 and noise["icc_ci95"] is not None
    assert noise["mde"] == pytest.approx(min_detectable_difference(12, 4, p, noise["icc"]))
    assert noise["target_mde"] == 0.05
    assert set(NOISE_DEFINITIONS) <= set(data["definitions"])


def test_target_mde_moves_trials_needed(coin_run: tuple[Path, str]) -> None:
    store, run_id = coin_run
    loose = _noise(store, run_id, "--target-mde", "0.6")["arms"]["baseline"]["noise"]
    assert loose["target_mde"] == 0.6
    assert loose["trials_needed"] is not None and loose["trials_needed"] >= 1
    # 12 scenarios cannot tell 1 point apart: said, with no number of trials made up.
    tight = _noise(store, run_id, "--target-mde", "0.01")["arms"]["baseline"]["noise"]
    assert tight["trials_needed"] is None
    assert any("not reachable with 12 scenarios" in n for n in tight["notes"])


def test_terminal_table_shows_the_noise_floor(coin_run: tuple[Path, str]) -> None:
    store, run_id = coin_run
    result = _invoke("show", run_id, "--store", str(store), "--metrics", "--target-mde", "0.01")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "noise floor" in out and "flip rate" in out and "ICC" in out
    assert "not reachable with 12 scenarios" in out
    assert "12 scenarios × 4 judged trials" in out
    assert "trials_needed:" in out  # its definition is printed with it


@pytest.mark.parametrize("bad", ["0", "2", "-0.1", "1"])
def test_target_mde_outside_0_1_is_refused(coin_run: tuple[Path, str], bad: str) -> None:
    store, run_id = coin_run
    result = _invoke("show", run_id, "--store", str(store), "--metrics", "--target-mde", bad)
    assert result.exit_code != 0 and isinstance(result.exception, ConfigError)
    assert "--target-mde must be a difference of success rate in (0, 1)" in str(result.exception)


def test_bad_target_mde_is_one_line_on_the_real_cli(coin_run: tuple[Path, str]) -> None:
    store, run_id = coin_run
    cli = Path(sys.executable).with_name("sessionproof")
    done = subprocess.run(
        [str(cli), "show", run_id, "--store", str(store), "--metrics", "--target-mde", "2"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "error: --target-mde must be a difference of success rate in (0, 1), e.g. 0.05; got 2"
    ]


def test_target_mde_without_metrics_is_refused(coin_run: tuple[Path, str]) -> None:
    store, run_id = coin_run
    result = _invoke("show", run_id, "--store", str(store), "--target-mde", "0.1")
    assert result.exit_code != 0 and isinstance(result.exception, ConfigError)
    assert "--target-mde goes with --metrics" in str(result.exception)


def test_a_run_that_does_not_exist(coin_run: tuple[Path, str]) -> None:
    store, _ = coin_run
    result = _invoke("show", "nosuchrun", "--store", str(store), "--metrics", "--target-mde", "0.1")
    assert result.exit_code != 0 and isinstance(result.exception, StoreError)
    assert "nosuchrun" in str(result.exception)


def test_all_unjudged_sessions_are_left_out_and_counted(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    run_id = _run(store, BROKEN, trials=2, limit=3)
    noise = _noise(store, run_id)["arms"]["baseline"]["noise"]
    assert noise["not_judged"] == 6 and noise["judged_trials"] == 0
    assert noise["scenarios"] == 0 and noise["accuracy"] is None
    assert noise["flip_rate"] is None and noise["icc"] is None and noise["mde"] is None
    assert noise["notes"] == ["no session was judged: nothing is estimable"]


def test_single_trial_run_says_icc_and_flips_are_not_estimable(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    run_id = _run(store, COIN, trials=1)
    noise = _noise(store, run_id)["arms"]["baseline"]["noise"]
    assert noise["flip_rate"] is None and noise["icc"] is None
    assert noise["trials_needed"] is None
    assert any("one judged trial per scenario" in n for n in noise["notes"])
    # One trial: the design effect is 1 whatever the ICC, so the MDE stands.
    p = noise["accuracy"]
    if 0 < p < 1:
        assert noise["mde"] == pytest.approx(min_detectable_difference(12, 1, p, 0.0))
