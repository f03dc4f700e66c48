"""`run` with implicit-fault arms: every kind on tau2-retail with the oracle (which trusts
every answer), the judge's view of the true state, and a write kind that cannot apply to an
MCP server's tools refused at load with one line."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from sessionproof.agents import OracleAgent
from sessionproof.cli._internal import app
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.records import Scenario
from sessionproof.records._internal import ImplicitFaultEvent
from sessionproof.suites import load_suite
from sessionproof.suites._internal import judge_of

from .implicit_world import MCP_SERVER

pytestmark = pytest.mark.slow
runner = CliRunner()
KINDS = (
    "stale_read",
    "wrong_entity",
    "silent_noop",
    "partial_result",
    "corrupted_value",
    "error_in_body",
    "duplicate_write",
)


def test_every_kind_runs_on_tau2_retail_and_silent_noop_costs_the_oracle(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    args = ["run", "--suite", "tau2-retail", "--model", "oracle", "--limit", "8", "--seed", "1"]
    args += ["--json", "--store", str(store), "--arm", "baseline"]
    for kind in KINDS:
        args += ["--arm", f"faults={kind}:40%"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    acc = {arm: v["session_accuracy"] for arm, v in out["arms"].items()}
    assert acc["baseline"] is not None and acc["faults=silent_noop:40%"] < acc["baseline"]
    paired = {p["b"]: p for p in out["paired"]}
    assert paired["faults=silent_noop:40%"]["difference"] < 0
    with duckdb.connect(str(store), read_only=True) as db:
        rows = db.sql(
            "select json_extract_string(payload, '$.fault'), count(*) from events "
            "where kind = 'implicit_fault' group by 1"
        ).fetchall()
    counts = dict(rows)
    # The oracle reads before it writes on retail: every read and write kind finds calls.
    for kind in ("silent_noop", "error_in_body", "duplicate_write", "partial_result"):
        assert counts.get(kind, 0) > 0, counts


def test_a_silent_noop_session_fails_on_the_true_state(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    args = ["run", "--suite", "tau2-retail", "--model", "oracle", "--limit", "6", "--seed", "1"]
    args += ["--json", "--store", str(store), "--arm", "faults=silent_noop:permanent:100%"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(store), read_only=True) as db:
        faulted = {r[0] for r in db.sql(
            "select session_id from events where kind = 'implicit_fault'"
        ).fetchall()}  # fmt: skip
        verdicts = db.sql(
            "select session_id, payload from events where kind = 'verdict'"
        ).fetchall()
    assert faulted
    for session_id, payload in verdicts:
        if session_id in faulted:
            assert json.loads(payload)["success"] is False, session_id


def test_a_write_kind_on_an_mcp_server_without_write_marks_fails_at_load(tmp_path: Path) -> None:
    suite = tmp_path / "mcp.yaml"
    suite.write_text(
        f"domains:\n  shop:\n    mcp: {{command: [python, {MCP_SERVER}]}}\n    timeout_s: 20\n"
        "scenarios:\n  - id: one\n    domain: shop\n    user: {turns: [go]}\n"
        "    criteria:\n      gold_actions: [{tool: set_status, args: {order_id: O1, "
        "status: shipped}}]\n"
    )
    base = ["run", "--suite", str(suite), "--model", "oracle", "--store", str(tmp_path / "s.db")]
    refused = runner.invoke(app, [*base, "--arm", "faults=silent_noop:40%"])
    assert refused.exit_code != 0
    said = f"{refused.output} {refused.exception}"
    assert "name the write tool with @TOOL" in said and "Traceback" not in said
    named = runner.invoke(app, [*base, "--arm", "faults=silent_noop:40%@set_status"])
    assert named.exit_code == 0, named.output


def test_a_stored_session_is_judged_as_it_was_live() -> None:
    # Re-judging from the trace replays what reached the domain: a silent_noop or
    # error_in_body write committed nothing, a duplicate_write ran twice.
    suite = load_suite("tau2-retail").limited(12)
    arms = ["faults=silent_noop:60%", "faults=error_in_body:60%", "faults=duplicate_write:60%"]
    plan = RunPlan(run_id="r", arms=arms, trials=1, seed=2, concurrency=2)
    sink = SessionList()

    def hooks(arm: str, seed: int, scenario: Scenario):  # type: ignore[no-untyped-def]
        return hooks_for(parse_arm(arm), seed)

    asyncio.run(execute_run(suite, OracleAgent(), plan, sink, hooks_for=hooks))  # type: ignore[arg-type]
    by_id = {s.id: s for s in suite.scenarios}
    faulted = 0
    for session in sink.sessions:
        if not any(isinstance(e, ImplicitFaultEvent) for e in session.events):
            continue
        faulted += 1
        scenario = by_id[session.scenario_id]
        judge = judge_of(scenario)
        assert judge is not None and session.outcome is not None
        again = judge.judge_recorded(scenario, session).outcome
        assert again.success == session.outcome.success, (session.session_id, session.arm)
    assert faulted >= 6
