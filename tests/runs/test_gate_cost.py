"""The gate's cost block: each side's tokens and USD by role, per session and per successful
session (the priced split of `scoring`), and the one sentence printed beside the verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionproof.records import Session
from sessionproof.runs import RunConfig, gate, run
from sessionproof.runs._gate_cost import cost_sentence, gate_cost
from sessionproof.scoring._internal import price_table
from sessionproof.store import Store

AGENTS = "python:tests.runs.gate_agents"


def _sessions(tmp_path: Path, model: str, name: str) -> list[Session]:
    store = tmp_path / f"{name}.duckdb"
    run_id = run(RunConfig(suite="demo", model=model, limit=4, trials=2, store=store)).run_id
    with Store.open(store) as db:
        return db.load_sessions(run_id)


def test_tokens_come_from_the_model_calls_the_sessions_recorded(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path, f"{AGENTS}:steady", "a")
    cost = gate_cost({"baseline": sessions})["baseline"]
    calls = sum(len(s.model_calls()) for s in sessions)
    assert calls > 0
    agent = cost.tokens["agent"]
    assert agent.input_tokens == 100 * calls and agent.output_tokens == 20 * calls
    assert cost.tokens["user"].calls == 0 and cost.tokens["judge"].calls == 0
    assert cost.sessions == 8 and cost.successes == sum(s.verdict is True for s in sessions)
    assert cost.per_session.tokens == cost.total_tokens / 8
    assert cost.per_success.tokens == cost.total_tokens / cost.successes


def test_the_sentence_compares_per_successful_session_or_says_why_not(tmp_path: Path) -> None:
    steady = _sessions(tmp_path, f"{AGENTS}:steady", "a")
    shaky = _sessions(tmp_path, f"{AGENTS}:shaky", "b")
    oracle = _sessions(tmp_path, "oracle", "c")
    both = cost_sentence(gate_cost({"baseline": steady, "candidate": shaky}))
    assert "per successful session" in both and "tokens only" in both  # no price: tokens
    assert "fewer tokens" in both or "more tokens" in both
    none = cost_sentence(gate_cost({"baseline": oracle, "candidate": oracle}))
    assert "no model tokens were recorded on either side" in none
    one = cost_sentence(gate_cost({"baseline": oracle, "candidate": steady}))
    assert "the baseline recorded no model tokens" in one and "%" not in one
    lost = cost_sentence(gate_cost({"baseline": steady, "candidate": []}))
    assert "the candidate recorded no model tokens" in lost


def test_a_priced_gate_states_usd_beside_the_verdict(tmp_path: Path) -> None:
    # The python agents record their own model name (tests/runs/gate_agents.py), which the
    # shipped table does not price: priced here by a flag, the cost is USD per session.
    steady = _sessions(tmp_path, f"{AGENTS}:steady", "a")
    model = next(c.model for s in steady for c in s.model_calls())
    table = price_table([], [f"{model}=1/4"])
    cost = gate_cost({"baseline": steady, "candidate": steady}, table)
    base = cost["baseline"]
    calls = sum(len(s.model_calls()) for s in steady)
    assert base.usd["agent"] == pytest.approx(calls * (100 * 1 + 20 * 4) / 1e6)
    assert base.per_success.usd == pytest.approx(base.total_usd / base.successes)
    sentence = cost_sentence(cost)
    assert "costs the same per successful session" in sentence and "$" in sentence


def test_the_gate_json_carries_the_priced_cost_of_each_side(tmp_path: Path) -> None:
    store = tmp_path / "g.duckdb"
    result = gate(
        f"{AGENTS}:steady",
        f"{AGENTS}:steady",
        suite="demo",
        limit=3,
        max_trials=2,
        store=store,
    )
    cost = result.to_json()["cost"]
    assert set(cost) == {"baseline", "candidate"}
    for side in cost.values():
        assert side["tokens"]["agent"]["calls"] > 0
        assert side["unpriced_models"]  # the test agents' model has no shipped price
        assert side["usd"]["agent"] is None and side["prices_as_of"]
