"""`--suite bfcl:multi_turn_*`: BFCL's classes as tools, the oracle, miss_func, both readings."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.cli._internal import app
from sessionproof.domains import ToolContext
from sessionproof.errors import ConfigError
from sessionproof.records import Scenario
from sessionproof.suites import Suite, load_suite
from sessionproof.suites._internal import GoldPrefixSuite
from sessionproof.suites.bfcl._mt_package import additional_function_message
from sessionproof.suites.bfcl._mt_suite import BfclMultiTurnSuite

SLOPPY = "python:tests.suites._sloppy_agent:respond"


def _only(category: str, *ids: str) -> BfclMultiTurnSuite:
    suite = load_suite(f"bfcl:{category}")
    assert isinstance(suite, BfclMultiTurnSuite)
    return BfclMultiTurnSuite(suite.name, [s for s in suite.scenarios if s.id in ids])


def _run(suite: Suite | str, model: str, **kw: object) -> runs.RunReport:
    return runs.run(runs.RunConfig(suite=suite, model=model, concurrency=2, **kw))


def test_every_category_loads_from_the_installed_package() -> None:
    for category in ("base", "miss_func", "miss_param", "long_context"):
        suite = load_suite(f"bfcl:multi_turn_{category}")
        assert len(suite.scenarios) == 200
        first = suite.scenarios[0]
        assert first.criteria.per_turn and first.user.turns
        assert all(a.turn is not None for a in first.criteria.gold_actions)


def test_oracle_passes_when_a_tool_keeps_the_list_it_was_given() -> None:
    # post_tweet keeps `mentions`; a later mention() appends to it. Before the domain
    # copied the arguments, that rewrote the recorded call and failed the oracle.
    report = _run(_only("multi_turn_base", "multi_turn_base_90"), "oracle")
    assert report.summary.session_accuracy == 1.0


def test_oracle_passes_positional_gold_calls_and_long_context() -> None:
    base = load_suite("bfcl:multi_turn_base")
    positional = [
        s.id for s in base.scenarios if any(a.tool == "sort" for a in s.criteria.gold_actions)
    ]
    assert positional
    assert _run(_only("multi_turn_base", *positional[:3]), "oracle").summary.session_accuracy == 1.0
    long = load_suite("bfcl:multi_turn_long_context").limited(3)
    assert _run(long, "oracle").summary.session_accuracy == 1.0


def test_miss_func_holds_functions_back_until_their_turn() -> None:
    suite = load_suite("bfcl:multi_turn_miss_func")
    scenario: Scenario = suite.scenarios[0]  # `sort` comes back at turn 3
    turns = scenario.user.turns or []
    assert turns[3] == additional_function_message()
    domain = suite.domain_for(scenario).create()

    def listed(turn: int) -> set[str]:
        ctx = ToolContext(
            run_id="r",
            session_id="s",
            scenario_id=scenario.id,
            trial=0,
            arm="baseline",
            turn=turn,
            step=0,
            seed=0,
            emit=lambda kind, payload: None,
        )
        return {t.name for t in asyncio.run(domain.list_tools(ctx))}

    assert "sort" not in listed(2)
    assert "sort" in listed(3)
    assert _run(suite.limited(5), "oracle").summary.session_accuracy == 1.0


def test_gold_prefix_splits_each_session_into_one_per_turn() -> None:
    base = _only("multi_turn_base", "multi_turn_base_0")
    split = GoldPrefixSuite(base)
    turns = len(base.scenarios[0].user.turns or [])
    assert [s.start_turn for s in split.scenarios] == list(range(turns))
    last = split.scenarios[-1]
    assert len(last.user.turns or []) == turns
    assert max(a.turn or 0 for a in last.criteria.gold_actions) == turns - 1


def _accuracy(report: runs.RunReport, reading: str) -> dict[int, float]:
    assert report.turns is not None
    points = report.turns.own_history if reading == "own" else report.turns.gold_prefix
    return {p.turn: p.accuracy for p in points}


@pytest.mark.slow
def test_both_readings_oracle_and_an_agent_that_breaks_turn_two(tmp_path: Path) -> None:
    suite = load_suite("bfcl:multi_turn_base").limited(12)
    readings = {}
    for model in ("oracle", SLOPPY):
        for reading in ("own", "gold-prefix"):
            report = _run(suite, model, reading=reading)
            readings[model, reading] = _accuracy(report, reading)
    assert set(readings["oracle", "own"].values()) == {1.0}
    assert set(readings["oracle", "gold-prefix"].values()) == {1.0}
    own, prefix = readings[SLOPPY, "own"], readings[SLOPPY, "gold-prefix"]
    assert own[0] == prefix[0] == 1.0
    assert own[1] == prefix[1] == 0.0  # turn 2 is broken in both readings
    later = [t for t in own if t > 1]
    assert later
    # On its own history the broken turn poisons what follows; from the gold prefix it does not.
    assert all(prefix[t] == 1.0 for t in later)
    assert sum(own[t] for t in later) / len(later) < 0.7


def test_cli_prints_both_readings_and_the_json_defines_them(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    cli = CliRunner()
    base = ["run", "--suite", "bfcl:multi_turn_base", "--limit", "2", "--store", str(store)]
    shown = cli.invoke(app, [*base, "--model", SLOPPY, "--no-report"])
    assert shown.exit_code == 0, shown.output
    assert "per-turn accuracy" in shown.output and "turn_accuracy_gold_prefix" in shown.output
    out = cli.invoke(
        app, [*base, "--model", SLOPPY, "--reading", "gold-prefix", "--json", "--no-report"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["sessions"] > 2  # one session per turn of each entry
    assert data["turns"]["gold_prefix"] and not data["turns"]["own_history"]
    assert "turn_accuracy_own_history" in data["turns"]["definitions"]
    metrics = cli.invoke(app, ["show", data["run_id"], "--store", str(store), "--metrics"])
    assert metrics.exit_code == 0, metrics.output
    assert "gold prefix" in metrics.output and "turn_accuracy_gold_prefix" in metrics.output
    # The metrics find the per-turn scenarios the gold-prefix run ran (not the whole ones).
    shown_json = cli.invoke(
        app, ["show", data["run_id"], "--store", str(store), "--metrics", "--json"]
    )
    found = json.loads(shown_json.stdout)
    assert found["arms"]["baseline"]["scenarios_missing"] == []
    assert found["arms"]["baseline"]["turns"]["gold_prefix"]
    bad = cli.invoke(app, [*base, "--model", "oracle", "--reading", "sideways"])
    # main() prints a ConfigError as one line; the app raises it.
    assert isinstance(bad.exception, ConfigError)
    assert "--reading must be own or gold-prefix" in str(bad.exception)
