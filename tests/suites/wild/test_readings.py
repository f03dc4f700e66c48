"""Both readings of the wild suite: per-task accuracy on the agent's own history and from the
gold prefix of the earlier tasks, with the suite's breakdowns in each."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.cli._internal import app
from sessionproof.suites._internal import GoldPrefixSuite
from sessionproof.suites.wild._internal import WildSuite, make_wild_suite, wild_scenarios

AGENTS = "python:tests.suites.wild.agents"


def _run(suite: Any, model: str, reading: str) -> runs.RunReport:
    return runs.run(runs.RunConfig(suite=suite, model=model, concurrency=2, reading=reading))


def _accuracy(report: runs.RunReport, reading: str) -> dict[int, float]:
    assert report.turns is not None
    points = report.turns.own_history if reading == "own" else report.turns.gold_prefix
    return {p.turn: p.accuracy for p in points}


def _cells(report: runs.RunReport, table: str) -> dict[str, dict[str, Any]]:
    found = report.to_json()["breakdowns"]["tables"]
    return {c["label"]: c for c in next(t for t in found if t["name"] == table)["cells"]}


def test_every_wild_scenario_declares_per_turn_criteria() -> None:
    for scenario in wild_scenarios():
        assert scenario.criteria.per_turn and len(scenario.user.turns or []) == 4
    split = GoldPrefixSuite(make_wild_suite()).scenarios
    assert len(split) == 4 * len(wild_scenarios())
    assert {s.start_turn for s in split} == {0, 1, 2, 3}


@pytest.mark.slow
def test_oracle_is_one_per_task_position_in_both_readings() -> None:
    for reading in ("own", "gold-prefix"):
        report = _run("wild", "oracle", reading)
        assert report.summary.session_accuracy == 1.0
        assert _accuracy(report, reading) == {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0}
        # The breakdowns work in both readings: every task once, at its position.
        positions = _cells(report, "by_position")
        assert {k: (c["rate"], c["units"]) for k, c in positions.items()} == {
            str(i): (1.0, 36) for i in range(1, 5)
        }
        assert _cells(report, "optimal_path")["all"]["rate"] == 1.0
        transitions = sum(c["units"] for c in _cells(report, "by_transitions").values())
        # Session accuracy by transitions needs whole sessions: none from a gold prefix.
        assert transitions == (36 if reading == "own" else 0)


@pytest.mark.slow
def test_a_task_two_failure_poisons_own_history_not_the_gold_prefix() -> None:
    model = f"{AGENTS}:loses_the_thread"
    own = _accuracy(_run("wild", model, "own"), "own")
    prefix = _accuracy(_run("wild", model, "gold-prefix"), "gold-prefix")
    assert own[0] == prefix[0] == 1.0
    assert own[1] < 0.5 and prefix[1] < 1.0  # task 2 is failed in both readings
    # On its own history the failure derails what follows; from the gold prefix it does not.
    assert prefix[2] == prefix[3] == 1.0
    assert (own[2] + own[3]) / 2 < 0.8


def test_gold_prefix_reads_count_as_made_before_the_task() -> None:
    # wild-02's task 2 reads order 1043 again, which task 1 read: an agent that does not
    # repeat a read already in its history passes it, on its own history and from the
    # gold prefix (whose reads the engine made, outside the trace).
    scenario = next(s for s in wild_scenarios() if s.id == "wild-02")
    suite = WildSuite("wild", [scenario])
    model = f"{AGENTS}:skips_repeated_reads"
    assert _accuracy(_run(suite, model, "own"), "own") == {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0}
    report = _run(suite, model, "gold-prefix")
    assert _accuracy(report, "gold-prefix") == {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0}
    assert report.summary.session_accuracy == 1.0


def test_cli_prints_both_readings_with_the_breakdowns(tmp_path: Any) -> None:
    cli = CliRunner()
    store = str(tmp_path / "s.duckdb")
    base = ["run", "--suite", "wild", "--model", "oracle", "--limit", "3", "--store", store]
    shown = cli.invoke(app, [*base, "--no-report"])
    assert shown.exit_code == 0, shown.output
    for printed in ("per-turn accuracy", "turn_accuracy_gold_prefix", "task accuracy by"):
        assert printed in shown.output
    out = cli.invoke(app, [*base, "--reading", "gold-prefix", "--json", "--no-report"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["sessions"] == 12
    assert [p["accuracy"] for p in data["turns"]["gold_prefix"]] == [1.0] * 4
    assert not data["turns"]["own_history"]
    assert data["breakdowns"]["units"] == 12
    metrics = cli.invoke(app, ["show", data["run_id"], "--store", store, "--metrics", "--json"])
    assert metrics.exit_code == 0, metrics.output
    arm = json.loads(metrics.stdout)["arms"]["baseline"]
    assert arm["scenarios_missing"] == []
    assert arm["turns"]["gold_prefix"]
    assert json.loads(metrics.stdout)["breakdowns"]["baseline"]["units"] == 12
