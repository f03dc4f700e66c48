"""Every summary of a multi-arm run is per arm (never pooled, k of pass^k within one arm's
trials), in `run --json`, `show --json`, the terminal and the Python API; and the headline
of a run whose criteria were partly left unevaluated says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

import sessionproof
from sessionproof.cli._internal import app

runner = CliRunner()
ARMS = ["baseline", "faults=30%"]


def _ks(found: Any) -> list[int]:
    """Every k of every pass_hat_k table anywhere in a JSON document."""
    if isinstance(found, dict):
        own = [int(k) for k in found.get("pass_hat_k", {})]
        return own + [k for v in found.values() for k in _ks(v)]
    if isinstance(found, list):
        return [k for v in found for k in _ks(v)]
    return []


def test_a_multi_arm_run_is_summarized_per_arm_everywhere(tmp_path: Path) -> None:
    store = str(tmp_path / "s.duckdb")
    args = ["--suite", "demo", "--model", "oracle", "--limit", "3", "--trials", "2"]
    arms = [a for arm in ARMS for a in ("--arm", arm)]
    ran = runner.invoke(app, ["run", *args, *arms, "--store", store, "--json", "--no-report"])
    assert ran.exit_code == 0, ran.output
    run_json = json.loads(ran.stdout)
    shown = runner.invoke(app, ["show", run_json["run_id"], "--store", store, "--json"])
    show_json = json.loads(shown.stdout)
    for doc in (run_json, show_json):
        assert list(doc["arms"]) == ARMS
        assert "session_accuracy" not in doc  # no pooled figure at the top level
        assert max(_ks(doc)) == 2
        assert [doc["arms"][a]["sessions"] for a in ARMS] == [6, 6]
    assert show_json["arms"]["baseline"]["session_accuracy"] == 1.0

    text = runner.invoke(app, ["show", run_json["run_id"], "--store", store]).stdout
    assert "arm baseline" in text and "arm faults=30%" in text and "pass^3" not in text


def test_the_python_api_gives_one_summary_per_arm(tmp_path: Path) -> None:
    result = sessionproof.run_suite("demo", "oracle", limit=3, trials=2, arms=ARMS)
    assert result.arms == ARMS and list(result.summary_by_arm) == ARMS
    assert [s.sessions for s in result.summary_by_arm.values()] == [6, 6]
    assert result.summary == result.summary_by_arm["baseline"]  # the first arm's, not pooled
    assert all(set(s.pass_hat_k) <= {"1", "2"} for s in result.summary_by_arm.values())
    assert result.comparison is not None and result.comparison.paired[0].b == "faults=30%"


def test_an_oracle_failing_only_unevaluated_criteria_is_not_shown_as_plainly_failing(
    tmp_path: Path,
) -> None:
    store = str(tmp_path / "s.duckdb")
    args = ["--suite", "tau2-retail", "--model", "oracle", "--limit", "8", "--store", store]
    ran = runner.invoke(app, ["run", *args, "--json", "--no-report"])
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.stdout)
    # Without --judge the natural-language assertions stay unevaluated (tau2-retail 2..4).
    assert found["unevaluated_sessions"] > 0
    assert found["session_accuracy"] < 1.0 and found["evaluated_accuracy"] == 1.0
    shown = runner.invoke(app, ["show", found["run_id"], "--store", store]).stdout
    assert "over evaluated criteria" in shown and "100.0%" in shown
    assert "unevaluated" in shown and " fail " not in shown
    result = sessionproof.run_suite("tau2-retail", "oracle", limit=8)
    assert result.summary.evaluated_accuracy == 1.0
    assert result.summary.unevaluated_sessions == found["unevaluated_sessions"]


def test_the_arms_table_gives_the_accuracy_over_evaluated_criteria_when_some_were_not(
    tmp_path: Path,
) -> None:
    store = str(tmp_path / "s.duckdb")
    args = ["--suite", "tau2-retail", "--model", "oracle", "--limit", "5", "--store", store]
    arms = ["--arm", "baseline", "--arm", "faults=10%"]
    text = runner.invoke(app, ["run", *args, *arms, "--no-report"]).stdout
    header = next(line for line in text.splitlines() if line.startswith("arm "))
    assert header.split()[:4] == ["arm", "accuracy", "over", "evaluated"]
    baseline = next(line for line in text.splitlines() if line.startswith("baseline "))
    assert baseline.split()[1:3] == ["40.0%", "100.0%"]  # tau2-retail 0..4: 2..4 unevaluated
