"""`run --arm ...`: several conditions on the same scenarios and seeds, compared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app

runner = CliRunner()
SAFE = "faults=rate_limited:5%,unavailable:5%"


@pytest.mark.slow
def test_arms_json_with_guard_recovery_and_paired_differences(tmp_path: Path) -> None:
    args = ["run", "--model", "oracle", "--trials", "4", "--seed", "7", "--json"]
    for arm in ("baseline", SAFE, f"{SAFE} guard", "faults=auth_expired:20% guard"):
        args += ["--arm", arm]
    result = runner.invoke(app, [*args, "--store", str(tmp_path / "s.duckdb")])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    arms = out["arms"]
    assert list(arms) == ["baseline", SAFE, f"{SAFE} guard", "faults=auth_expired:20% guard"]
    assert arms["baseline"]["session_accuracy"] == 1.0
    assert arms[SAFE]["session_accuracy"] < 0.99
    assert arms[f"{SAFE} guard"]["session_accuracy"] >= 0.99
    assert arms[f"{SAFE} guard"]["error_recovery_rate"] > arms[SAFE]["error_recovery_rate"]
    # Fatal classes: the guard escalates instead of looping, so no session runs out of steps.
    fatal = arms["faults=auth_expired:20% guard"]
    assert fatal["injected_failures"] > 0
    assert "max_steps" not in fatal["termination_reasons"]
    assert fatal["recovery_by_class"]["auth_expired"]["failures"] > 0
    paired = {p["b"]: p for p in out["paired"]}
    assert paired[SAFE]["difference"] < 0 and paired[SAFE]["only_a"] > 0
    assert paired[SAFE]["pairs"] == arms["baseline"]["sessions"]
    assert paired[SAFE]["pairs_needed"] > 0
    assert paired[f"{SAFE} guard"]["pairs_needed"] is None  # equal rates: nothing to detect
    lo, hi = paired[SAFE]["ci95"]
    assert lo <= paired[SAFE]["difference"] <= hi


@pytest.mark.slow
def test_drift_tolerance_is_paired_with_the_clean_arm(tmp_path: Path) -> None:
    args = ["run", "--model", "oracle", "--json", "--store", str(tmp_path / "s.duckdb")]
    result = runner.invoke(app, [*args, "--arm", "baseline", "--arm", "drift=rename_param"])
    assert result.exit_code == 0, result.output
    arm = json.loads(result.stdout)["arms"]["drift=rename_param"]
    tol = arm["drift_tolerance"]
    assert tol["kind"] == "rename_param" and tol["reference"] == "baseline"
    assert tol["tolerance"] == arm["session_accuracy"]  # the clean arm scores 1.0


def test_single_condition_flags_make_one_arm(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "run",
            "--model",
            "oracle",
            "--faults",
            "3%",
            "--guard",
            "--limit",
            "3",
            "--json",
            "--store",
            str(tmp_path / "s.duckdb"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["sessions"] == 3


def test_bad_arm_specs_are_refused(tmp_path: Path) -> None:
    store = ["--store", str(tmp_path / "s.duckdb")]
    for args in (["--arm", "faults=lots"], ["--arm", "x", "--faults", "3%"], ["--drift", "melt"]):
        result = runner.invoke(app, ["run", "--model", "oracle", *args, *store])
        assert result.exit_code != 0
        assert result.exception is not None and "Traceback" not in str(result.exception)
