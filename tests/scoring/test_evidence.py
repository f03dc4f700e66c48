"""Why a criterion failed: the differing fields of final vs gold state, the state
assertions that do not hold, the missing phrases, expected vs actual calls — as
`CriterionResult.details` and readable evidence, kept whole in `show --session --json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
from tests.suites.tau2._data import RETAIL_GPT, load
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.scoring._evidence import describe_all
from sessionproof.scoring._internal import MAX_DETAILS, state_diff
from sessionproof.suites._score import score_transcripts

runner = CliRunner()


def test_state_diff_names_paths_and_caps_the_list() -> None:
    gold = {"orders": {"O1": {"status": "cancelled", "items": [1, 2]}}, "n": 1}
    final = {"orders": {"O1": {"status": "pending", "items": [1, 3]}}, "extra": True}
    rows, total = state_diff(final, gold)
    got = [(r.where, r.expected, r.actual, r.missing) for r in rows]
    assert got == [
        ("extra", None, True, False),
        ("n", 1, None, True),
        ("orders.O1.items.1", 2, 3, False),
        ("orders.O1.status", "cancelled", "pending", False),
    ]
    assert total == 4
    many_gold = {f"k{i:02}": i for i in range(25)}
    many_final = {f"k{i:02}": -i - 1 for i in range(25)}
    rows, total = state_diff(many_final, many_gold)
    assert len(rows) == MAX_DETAILS == 20 and total == 25
    assert describe_all(rows, total).endswith("; and 5 more")
    assert state_diff(gold, gold) == ([], 0)


def _lazy_run(tmp_path: Path) -> tuple[Path, str, dict[str, dict[str, Any]]]:
    project = tmp_path / "proj"
    assert runner.invoke(app, ["init", str(project)]).exit_code == 0
    store = tmp_path / "s.duckdb"
    args = ["run", "--suite", str(project), "--model", "python:tests.byo._agents:lazy"]
    result = runner.invoke(app, [*args, "--store", str(store), "--json", "--no-report"])
    assert result.exit_code == 0, result.output
    run_id = json.loads(result.stdout)["run_id"]
    with duckdb.connect(str(store), read_only=True) as conn:
        rows = conn.execute("SELECT scenario_id, session_id FROM sessions").fetchall()
    outcomes = {}
    for scenario_id, session_id in rows:
        shown = runner.invoke(
            app, ["show", run_id, "--session", session_id, "--store", str(store), "--json"]
        )
        assert shown.exit_code == 0, shown.output
        outcome = json.loads(shown.stdout)["outcome"]
        outcomes[scenario_id] = {c["name"]: c for c in outcome["criteria"]}
    return store, run_id, outcomes


def test_every_failed_criterion_says_what_differs_in_show_json(tmp_path: Path) -> None:
    _, _, outcomes = _lazy_run(tmp_path)
    cancel = outcomes["cancel-teapot"]
    db = cancel["db"]
    assert db["passed"] is False
    assert db["details"] == [
        {"where": "orders.O1002.status", "expected": "cancelled", "actual": "pending"}
    ]
    assert db["evidence"].startswith("final state ") and " vs gold " in db["evidence"]
    assert "orders.O1002.status: expected 'cancelled', got 'pending'" in db["evidence"]
    assert cancel["state"]["details"] == db["details"]
    # The cancel changes the DB: the state replay judges the gold actions, the read included.
    assert "gold_calls" not in cancel
    status = outcomes["order-status"]
    assert status["communicate"]["details"] == [
        {"where": "phrase", "expected": "shipped", "actual": None, "missing": True}
    ]
    (call,) = status["expected_calls"]["details"]
    assert call["where"] == "get_order[0]" and call["missing"] is True
    moved = outcomes["moved-house"]["db"]["details"]
    assert {d["where"] for d in moved} == {"orders.O1003.address", "orders.O1003.status"}


def test_tau2_db_verdict_lists_the_differing_fields(tmp_path: Path) -> None:
    data = load(RETAIL_GPT)
    sim = next(s for s in data["simulations"] if s["task_id"] == "40")
    for m in sim["messages"]:
        for c in m.get("tool_calls") or []:
            if c["name"] == "modify_pending_order_payment":
                c["arguments"]["payment_method_id"] = "gift_card_0000000"
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    store = tmp_path / "s.duckdb"
    report = score_transcripts(path, "tau2", "retail", store)
    assert report.agreement_db.match == 39  # the verdicts are unchanged
    with duckdb.connect(str(store), read_only=True) as conn:
        rows = conn.execute("SELECT outcome FROM sessions WHERE scenario_id = '40'").fetchall()
    details = [
        d
        for (outcome,) in rows
        for c in json.loads(outcome)["criteria"]
        if c["name"] == "db"
        for d in c.get("details", [])
    ]
    # The swapped payment method does not exist, so the payment change never happened: the
    # order's payment history lacks the gold payment and refund.
    (payment,) = details
    assert payment["where"] == "orders.#W4923227.payment_history"
    assert len(payment["expected"]) == 3 and len(payment["actual"]) == 1


def test_a_write_whose_state_matches_passes_though_a_read_before_it_failed(
    tmp_path: Path,
) -> None:
    """On a toolkit the state replay judges a scenario that writes (as tau2 does): a failed
    read on the way does not fail a session whose final state is the gold one. Only gold
    actions that all read (equal states then say nothing) are required calls."""
    project = tmp_path / "proj"
    assert runner.invoke(app, ["init", str(project)]).exit_code == 0
    store = tmp_path / "s.duckdb"
    # Every get_order fails with a rate limit that the oracle does not retry: its read
    # before the cancel fails, its cancel succeeds.
    faults = "faults=rate_limited:100%@get_order"
    args = ["run", "--suite", str(project), "--model", "oracle", "--arm", faults]
    result = runner.invoke(app, [*args, "--store", str(store), "--json", "--no-report"])
    assert result.exit_code == 0, result.output
    run_id = json.loads(result.stdout)["run_id"]
    with duckdb.connect(str(store), read_only=True) as conn:
        rows = dict(conn.execute("SELECT scenario_id, session_id FROM sessions").fetchall())
    shown = runner.invoke(
        app, ["show", run_id, "--session", rows["cancel-teapot"], "--store", str(store), "--json"]
    )
    assert shown.exit_code == 0, shown.output
    session = json.loads(shown.stdout)
    results = [e for e in session["events"] if e["kind"] == "tool_result"]
    assert results[0]["payload"]["error_class"] is not None  # the read failed
    assert results[-1]["payload"]["error_class"] is None  # the cancel went through
    criteria = {c["name"]: c for c in session["outcome"]["criteria"]}
    assert criteria["db"]["passed"] is True
    assert "gold_calls" not in criteria
    assert session["outcome"]["success"] is True
