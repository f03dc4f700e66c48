"""The gate's cost block: tokens from the sessions' model calls, per session and per success,
and the one sentence the summary prints."""

from __future__ import annotations

from pathlib import Path

from sessionproof.runs import RunConfig, run
from sessionproof.runs._gate_cost import cost_sentence, gate_cost, side_cost
from sessionproof.store import Store

AGENTS = "python:tests.runs.gate_agents"


def _sessions(tmp_path: Path, model: str, name: str) -> list:  # type: ignore[type-arg]
    store = tmp_path / f"{name}.duckdb"
    run_id = run(RunConfig(suite="demo", model=model, limit=4, trials=2, store=store)).run_id
    with Store.open(store) as db:
        return db.load_sessions(run_id)


def test_tokens_come_from_the_model_calls_the_sessions_recorded(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path, f"{AGENTS}:steady", "a")
    cost = side_cost(sessions)
    calls = sum(len(s.model_calls()) for s in sessions)
    assert calls > 0
    assert cost.input_tokens == 100 * calls and cost.output_tokens == 20 * calls
    assert cost.sessions == 8 and cost.successes == sum(s.verdict is True for s in sessions)
    assert cost.tokens_per_session == cost.tokens / 8
    assert cost.tokens_per_successful_session == cost.tokens / cost.successes


def test_the_sentence_compares_per_successful_session_or_says_why_not(tmp_path: Path) -> None:
    steady = _sessions(tmp_path, f"{AGENTS}:steady", "a")
    shaky = _sessions(tmp_path, f"{AGENTS}:shaky", "b")
    oracle = _sessions(tmp_path, "oracle", "c")
    both = cost_sentence(gate_cost({"baseline": steady, "candidate": shaky}))
    assert "tokens per successful session" in both and ("cheaper" in both or "dearer" in both)
    assert "no prices" in both
    none = cost_sentence(gate_cost({"baseline": oracle, "candidate": oracle}))
    assert "no model tokens were recorded on either side" in none
    one = cost_sentence(gate_cost({"baseline": oracle, "candidate": steady}))
    assert "the baseline recorded no model tokens" in one and "%" not in one
    empty = side_cost([])
    assert empty.tokens_per_session is None and empty.tokens_per_successful_session is None
    lost = cost_sentence(gate_cost({"baseline": steady, "candidate": []}))
    assert "the candidate had no successful session" in lost
