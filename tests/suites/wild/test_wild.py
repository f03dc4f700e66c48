"""The `wild` suite: generated WildToolBench-style sessions, per-task verdicts, breakdowns."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.cli._internal import app
from sessionproof.errors import InputFileError
from sessionproof.suites import load_suite
from sessionproof.suites.wild._internal import (
    Intent,
    TaskType,
    build_scenario,
    parse_blueprints,
    wild_meta,
    wild_scenarios,
)

runner = CliRunner()
AGENTS = "python:tests.suites.wild.agents"
TABLES = ["by_position", "by_type", "by_intent", "by_transitions", "optimal_path"]


def _run(model: Any) -> dict[str, Any]:
    report = runs.run(runs.RunConfig(suite="wild", model=model))
    return report.to_json()


def _cells(out: dict[str, Any], table: str) -> dict[str, dict[str, Any]]:
    found = next(t for t in out["breakdowns"]["tables"] if t["name"] == table)
    return {c["label"]: c for c in found["cells"]}


def test_every_task_type_and_intent_kind_occurs_at_least_eight_times() -> None:
    types: Counter[str] = Counter()
    intents: Counter[str] = Counter()
    for scenario in wild_scenarios():
        meta = wild_meta(scenario)
        assert meta is not None
        types.update(t.type.value for t in meta.tasks)
        intents.update(t.intent for t in meta.tasks if t.intent)
    assert {t.value for t in TaskType} <= set(types)
    assert {i.value for i in Intent} <= set(intents)
    assert min(types.values()) >= 8, types
    assert min(intents.values()) >= 8, intents


def test_sessions_have_four_tasks_and_zero_to_three_transitions() -> None:
    scenarios = wild_scenarios()
    assert len(scenarios) >= 32
    seen = Counter()
    for scenario in scenarios:
        meta = wild_meta(scenario)
        assert meta is not None and len(meta.tasks) == 4
        assert len(scenario.user.turns or []) == 4
        first, *later = meta.tasks
        assert first.intent is None  # an intent leans on what came before
        assert meta.transitions == sum(t.transition for t in later)
        seen[meta.transitions] += 1
        gold_turns = {a.turn for a in scenario.criteria.gold_actions}
        assert gold_turns <= {0, 1, 2, 3}
    assert set(seen) == {0, 1, 2, 3}


def test_generation_is_deterministic_and_the_suite_hash_stable() -> None:
    assert [s.model_dump() for s in wild_scenarios()] == [s.model_dump() for s in wild_scenarios()]
    assert load_suite("wild").content_hash() == load_suite("wild").content_hash()


def test_oracle_scores_one_with_every_breakdown() -> None:
    out = _run("oracle")
    assert out["session_accuracy"] == 1.0 and out["sessions"] >= 32
    breakdowns = out["breakdowns"]
    assert breakdowns["rate"] == 1.0 and breakdowns["units"] == 4 * out["sessions"]
    assert [t["name"] for t in breakdowns["tables"]] == TABLES
    for table in TABLES:
        cells = _cells(out, table)
        assert cells and all(c["rate"] == 1.0 for c in cells.values() if c["units"]), table
    assert set(_cells(out, "by_position")) == {"1", "2", "3", "4"}
    assert set(breakdowns["definitions"]) >= {"task_accuracy", *TABLES}


def test_never_batching_agent_gets_optimal_path_zero_on_parallel() -> None:
    out = _run(f"{AGENTS}:never_batches")
    optimal = _cells(out, "optimal_path")
    assert optimal["parallel"]["units"] >= 8 and optimal["parallel"]["rate"] == 0.0
    assert optimal["mixed"]["rate"] == 0.0
    # The calls are right, only the path is long: every task still passes.
    assert out["session_accuracy"] == 1.0


def test_a_call_in_a_chat_task_fails_that_task_only() -> None:
    out = _run(f"{AGENTS}:chatty")
    types = _cells(out, "by_type")
    assert types["chat"]["units"] >= 8 and types["chat"]["rate"] == 0.0
    assert all(c["rate"] == 1.0 for k, c in types.items() if k != "chat")
    assert out["session_accuracy"] < 1.0


def test_guessing_instead_of_asking_fails_the_clarify_task() -> None:
    out = _run(f"{AGENTS}:guesses")
    types = _cells(out, "by_type")
    assert types["clarify"]["rate"] == 0.0
    assert types["chat"]["rate"] == 1.0 and types["parallel"]["rate"] == 1.0


def test_run_and_show_print_every_breakdown(tmp_path: Path) -> None:
    store = str(tmp_path / "s.duckdb")
    result = runner.invoke(
        app, ["run", "--suite", "wild", "--model", "oracle", "--store", store, "--no-report"]
    )
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())  # titles wrap in a narrow terminal
    for title in ("by position", "by type", "implicit intent", "transitions", "optimal-path"):
        assert title in text
    # The store holds one run, so any prefix of its id names it.
    shown = runner.invoke(app, ["show", "r", "--store", store, "--json", "--metrics"])
    assert shown.exit_code == 0, shown.output
    tables = json.loads(shown.stdout)["breakdowns"]["baseline"]["tables"]
    assert [t["name"] for t in tables] == TABLES


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{customer: C01, tasks: [hello, fly_away, chat, chat]}", "unknown task template"),
        ("{customer: C01, tasks: [hello, status, chat, chat]}", "wrong words"),
        ("{customer: C01, tasks: [hello, clarify_status, chat, chat]}", "must be answered"),
        ("{customer: C99, tasks: [hello, chat, chat, chat]}", "no customer"),
        ("{customer: C02, tasks: [hello, return 1032, chat, chat]}", "return window"),
        ("{customer: C01, tasks: [hello, status 1043, chat, chat]}", "not an order of C01"),
        ("{customer: C01, tasks: [hello, chat]}", "tasks"),
    ],
)
def test_a_bad_blueprint_is_one_clear_error(line: str, message: str) -> None:
    with pytest.raises(InputFileError, match=message) as caught:
        for i, blueprint in enumerate(
            parse_blueprints(f"sessions:\n  - {line}\n".encode(), "x.yaml")
        ):
            build_scenario(i, blueprint)
    assert "\n" not in str(caught.value)
