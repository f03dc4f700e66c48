"""`patterns RUN` of a multi-arm run mines the arm with failures by default, not the
failure-free baseline, and says which (stderr and `arm_choice` in --json); `--arm` still
chooses (issue 34 item 14)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.records import Outcome, Session, TerminationReason
from sessionproof.runs._internal import default_arm

runner = CliRunner()
FAULT = "faults=30%"


@pytest.fixture(scope="module")
def two_arm_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("arms") / "s.duckdb"
    args = ["run", "--suite", "demo", "--model", "oracle", "--trials", "2", "--seed", "0"]
    args += ["--arm", "baseline", "--arm", FAULT, "--store", str(store), "--json", "--no-report"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    # The premise: the oracle never fails at baseline, and does under the faults.
    assert out["arms"]["baseline"]["successes"] == out["arms"]["baseline"]["sessions"]
    assert out["arms"][FAULT]["successes"] < out["arms"][FAULT]["sessions"]
    return store, str(out["run_id"])


def _patterns(*args: str) -> tuple[dict[str, Any], str]:
    result = runner.invoke(app, ["patterns", *args, "--json", "--min-support", "1"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data, result.stderr


@pytest.mark.slow
def test_the_arm_with_failures_is_mined_by_default_and_named(
    two_arm_run: tuple[Path, str],
) -> None:
    store, run_id = two_arm_run
    out, err = _patterns(run_id, "--store", str(store))
    assert out["arm"] == FAULT
    assert out["failures"] > 0
    assert out["note"] != "nothing to contrast: arm 'baseline' has no failures"
    assert FAULT in out["arm_choice"] and "most failed sessions" in out["arm_choice"]
    assert f"mining arm {FAULT!r}" in err


def test_arm_still_chooses(two_arm_run: tuple[Path, str]) -> None:
    store, run_id = two_arm_run
    out, err = _patterns(run_id, "--store", str(store), "--arm", "baseline")
    assert out["arm"] == "baseline"
    assert out["failures"] == 0
    assert "arm_choice" not in out and "mining" not in err


def _session(arm: str, verdict: bool | None) -> Session:
    outcome = None
    if verdict is not None:
        outcome = Outcome(success=verdict, reward=float(verdict))
    return Session(
        run_id="r",
        session_id=f"{arm}-{verdict}-{id(object())}",
        scenario_id="s",
        trial=0,
        arm=arm,
        termination=TerminationReason.user_stop,
        started_at=0.0,
        ended_at=0.0,
        outcome=outcome,
    )


def test_default_arm_prefers_unguarded_failures_and_ignores_unjudged() -> None:
    sessions = [
        _session("baseline", True),
        _session("baseline", None),  # not judged: never a failure
        _session("faults=5%", False),
        _session("faults=5% guard", False),
        _session("faults=5% guard", False),
    ]
    arm, why = default_arm(sessions)
    assert arm == "faults=5%"
    assert why is not None and "'faults=5% guard' 2" in why
    only_guarded = [_session("baseline", True), _session("faults=5% guard", False)]
    assert default_arm(only_guarded)[0] == "faults=5% guard"
    none_failed = [_session("baseline", True), _session("faults=5%", None)]
    arm, why = default_arm(none_failed)
    assert arm is None and why is not None and "no arm has a failed session" in why
    assert default_arm([_session("baseline", False)]) == (None, None)
