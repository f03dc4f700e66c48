"""Readings on a user's own suite: `criteria.per_turn` gives per-turn verdicts, `--reading
gold-prefix` splits per-turn scenarios and judges the end-of-session criteria (`state`,
`expected_calls`) with the last turn's session only; what cannot be honoured is refused."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof.agents import OracleAgent, make_agent
from sessionproof.cli._internal import app
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.errors import InputFileError
from sessionproof.records import Session
from sessionproof.suites import Suite, load_suite
from sessionproof.suites._internal import gold_prefix_suite

runner = CliRunner()
SLOPPY = "python:tests.suites._sloppy_agent:respond"  # does nothing in turn 1


def _project(tmp_path: Path, per_turn: bool = True) -> Path:
    project = tmp_path / "proj"
    assert runner.invoke(app, ["init", str(project)]).exit_code == 0
    if per_turn:
        path = project / "scenarios.yaml"
        text = path.read_text()
        marker = "reason: changed_mind}, turn: 1}\n"
        assert marker in text
        path.write_text(text.replace(marker, marker + "      per_turn: true\n"))
    return project


def _sessions(suite: Suite, model: str = "oracle") -> dict[str, Session]:
    agent = OracleAgent() if model == "oracle" else make_agent(model)
    sink = SessionList()
    asyncio.run(execute_run(suite, agent, RunPlan(run_id="r", arms=["baseline"]), sink))  # type: ignore[arg-type]
    return {s.scenario_id: s for s in sink.sessions}


def _turns(session: Session) -> list[tuple[int, bool | None, bool]]:
    assert session.outcome is not None
    return [(t.turn, t.passed, t.gold_prefix) for t in session.outcome.turns]


def test_per_turn_verdicts_in_the_own_reading(tmp_path: Path) -> None:
    suite = load_suite(str(_project(tmp_path)))
    oracle = _sessions(suite)["moved-house"]
    assert oracle.verdict is True
    assert _turns(oracle) == [(0, True, False), (1, True, False)]
    sloppy = _sessions(suite, SLOPPY)["moved-house"]
    assert sloppy.verdict is False
    assert _turns(sloppy) == [(0, True, False), (1, False, False)]
    assert sloppy.outcome is not None
    assert "cancel_order[1]" in sloppy.outcome.turns[1].evidence


def test_gold_prefix_judges_state_at_the_end_of_the_session(tmp_path: Path) -> None:
    split = gold_prefix_suite(load_suite(str(_project(tmp_path))))
    ids = [s.id for s in split.scenarios]
    assert ids == ["order-status", "cancel-teapot", "moved-house@turn0", "moved-house@turn1"]
    oracle = _sessions(split)
    # Turn 0 ends before the cancel of turn 1: the final-state assertions are not its.
    assert {sid: s.verdict for sid, s in oracle.items()} == dict.fromkeys(ids, True)
    assert _turns(oracle["moved-house@turn0"]) == [(0, True, True)]
    last = oracle["moved-house@turn1"]
    assert _turns(last) == [(1, True, True)]
    assert last.outcome is not None
    assert {c.name for c in last.outcome.criteria} >= {"db", "state", "expected_calls"}
    sloppy = _sessions(split, SLOPPY)
    assert sloppy["moved-house@turn0"].verdict is True
    assert sloppy["moved-house@turn1"].verdict is False


def test_cli_gold_prefix_run_of_a_user_project(tmp_path: Path) -> None:
    project = _project(tmp_path)
    args = ["run", "--suite", str(project), "--model", "oracle", "--reading", "gold-prefix"]
    result = runner.invoke(
        app, [*args, "--store", str(tmp_path / "s.duckdb"), "--json", "--no-report"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["sessions"] == 4 and out["session_accuracy"] == 1.0
    assert [t["accuracy"] for t in out["turns"]["gold_prefix"]] == [1.0, 1.0]


def test_readings_that_cannot_be_honoured_are_refused(tmp_path: Path) -> None:
    plain = load_suite(str(_project(tmp_path / "a", per_turn=False)))
    with pytest.raises(InputFileError, match="gold-prefix: no scenario has per-turn criteria"):
        gold_prefix_suite(plain)
    project = _project(tmp_path / "b")
    path = project / "scenarios.yaml"
    text = path.read_text()
    path.write_text(
        text.replace(
            "      per_turn: true\n", "      per_turn: true\n      communicate: [cancelled]\n"
        )
    )
    with pytest.raises(InputFileError, match=r"'moved-house': criteria.communicate cannot"):
        gold_prefix_suite(load_suite(str(project)))
    path.write_text(
        "scenarios:\n  - id: sim\n    domain: shop\n    user: {instructions: cancel O1002}\n"
        "    criteria: {per_turn: true}\n"
    )
    with pytest.raises(InputFileError, match=r"\(sim\).*per_turn: needs scripted user.turns"):
        load_suite(str(project))


def test_gold_prefix_on_a_domain_without_a_db(tmp_path: Path) -> None:
    # Fixtures: each turn's gold actions are the calls that turn must make.
    tool = {
        "type": "function",
        "function": {
            "name": "transfer",
            "parameters": {"type": "object", "properties": {"amount": {"type": "integer"}}},
        },
    }
    (tmp_path / "tools.json").write_text(json.dumps([tool]))
    path = tmp_path / "bank.yaml"
    path.write_text(
        "domains:\n  bank:\n    tools: tools.json\n    fixtures:\n"
        "      - {tool: transfer, args: {amount: 5}, output: {ok: true}}\n"
        "      - {tool: transfer, args: {amount: 7}, output: {ok: true}}\n"
        "scenarios:\n  - id: two\n    domain: bank\n    user: {turns: [send 5, now 7]}\n"
        "    criteria:\n      per_turn: true\n      gold_actions:\n"
        "        - {tool: transfer, args: {amount: 5}}\n"
        "        - {tool: transfer, args: {amount: 7}, turn: 1}\n"
    )
    suite = load_suite(str(path))
    own = _sessions(suite)["two"]
    assert own.verdict is True and _turns(own) == [(0, True, False), (1, True, False)]
    split = gold_prefix_suite(suite)
    oracle = _sessions(split)
    assert {k: s.verdict for k, s in oracle.items()} == {"two@turn0": True, "two@turn1": True}
    sloppy = _sessions(split, SLOPPY)
    assert {k: s.verdict for k, s in sloppy.items()} == {"two@turn0": True, "two@turn1": False}
    last = sloppy["two@turn1"].outcome
    assert last is not None
    (unmet,) = next(c for c in last.criteria if c.name == "gold_calls").details
    assert unmet.where == "transfer[1]" and unmet.missing
