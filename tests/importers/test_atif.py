"""Harbor ATIF trajectories → sessions: messages, tool calls, results, errors classified by
the taxonomy, usage, and the outcome from a reward or the label `--label-from` names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessionproof.errors import InputFileError
from sessionproof.importers import detect_format, import_file
from sessionproof.importers._internal import LabelRule
from sessionproof.records import (
    AssistantMessageEvent,
    ErrorClass,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)
from sessionproof.runs import import_traces
from sessionproof.store import Store

FIXTURES = Path(__file__).parent.parent / "fixtures" / "atif"
EXCHANGE = FIXTURES / "exchange.trajectory.json"
TWO = FIXTURES / "two.trajectories.jsonl"


def test_a_trajectory_becomes_a_session() -> None:
    assert detect_format(EXCHANGE.read_bytes()) == "atif"
    result = import_file(EXCHANGE, "auto", run_id="r")
    assert result.format == "atif" and result.errors == []
    (item,) = result.sessions
    s = item.session
    assert s.session_id == "7c1e2a90-exchange" and s.scenario_id == "exchange-kettle"
    assert s.model == "acme-chat-large"
    users = [e.payload.content for e in s.events_of(UserMessageEvent)]
    assert users == ["My kettle from order 4417 leaks. Can I swap it for the steel one?"]
    calls = [
        (e.payload.id, e.payload.name, e.payload.arguments) for e in s.events_of(ToolCallEvent)
    ]
    assert calls[0] == ("call_order", "get_order", {"order_id": "4417"})
    assert [c[1] for c in calls] == ["get_order", "check_stock", "exchange_item"]
    results = {e.payload.call_id: e.payload for e in s.events_of(ToolResultEvent)}
    assert results["call_order"].ok and "delivered" in results["call_order"].output
    assert results["call_stock"].error_class is ErrorClass.rate_limited
    assert results["call_swap"].error_class is ErrorClass.not_found
    assert [e.payload.content for e in s.events_of(AssistantMessageEvent)][-1].startswith("Sorry")
    # ATIF's prompt tokens include the cached ones; ours count them apart.
    assert s.usage.input_tokens == (900 - 300) + (1000 - 300) + 200
    assert s.usage.cached_tokens == 600 and s.usage.output_tokens == 160
    assert len(s.model_calls()) == 3
    # extra.reward is the verdict by default.
    assert s.outcome is not None and s.outcome.success is False
    assert item.reported is not None and item.reported.reward == 0.0


def test_one_trajectory_per_line_and_label_from_a_dotted_path(tmp_path: Path) -> None:
    result = import_file(TWO, "auto", run_id="r", label_from=LabelRule.parse("extra.verdict"))
    assert result.format == "atif" and result.errors == []
    a, b = (i.session for i in result.sessions)
    assert a.scenario_id == b.scenario_id == "fix-readme"
    assert (a.trial, b.trial) == (0, 1)  # one task's trajectories count up: both are stored
    assert a.outcome is not None and a.outcome.success
    assert b.outcome is not None and not b.outcome.success
    assert a.events_of(UserMessageEvent)[0].payload.content == "Fix the typo in README.md"
    results = [e.payload for e in a.events_of(ToolResultEvent)]
    assert results[0].ok and results[0].output == "# Helo world"
    assert results[1].error_class is ErrorClass.policy_refusal  # flagged is_error: "permission"
    store = tmp_path / "s.duckdb"
    report = import_traces(TWO, store=store, label_from="extra.verdict")
    assert report.summary.sessions == 2 and report.summary.successes == 1
    with Store.open_for_reading(store) as db:
        assert len(db.load_sessions(report.run_id)) == 2


def test_a_named_label_that_is_missing_is_a_warning_and_a_reward_has_a_pass_mark(
    tmp_path: Path,
) -> None:
    result = import_file(TWO, "auto", run_id="r", label_from=LabelRule.parse("extra.score"))
    assert len(result.sessions) == 2 and all(i.session.outcome is None for i in result.sessions)
    assert [e.fatal for e in result.errors] == [False, False]
    assert "no 'extra.score'" in result.errors[0].message
    doc = json.loads(EXCHANGE.read_text())
    doc["extra"]["reward"] = 0.5
    path = tmp_path / "half.json"
    path.write_text(json.dumps(doc))
    # By default a reward passes only when full (Harbor's tasks score 0 or 1).
    half = import_file(path, "atif", run_id="r")
    outcome = half.sessions[0].session.outcome
    assert half.errors == [] and outcome is not None
    assert not outcome.success and outcome.reward == 0.5
    graded = import_file(path, "atif", run_id="r", label_from=LabelRule.parse("extra.reward>=0.5"))
    assert graded.sessions[0].session.outcome is not None
    assert graded.sessions[0].session.outcome.success
    doc["extra"]["reward"] = "maybe"
    path.write_text(json.dumps(doc))
    unreadable = import_file(path, "atif", run_id="r")
    (problem,) = unreadable.errors
    assert not problem.fatal and problem.field == "extra.reward" and "'maybe'" in problem.message
    assert unreadable.sessions[0].session.outcome is None


def test_a_broken_trajectory_costs_itself(tmp_path: Path) -> None:
    lines = TWO.read_text().splitlines()
    bad = json.loads(lines[0])
    bad["steps"][1]["source"] = "robot"
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([json.dumps(bad), lines[1], "{not json"]) + "\n")
    result = import_file(path, "atif", run_id="r")
    assert [i.session.session_id for i in result.sessions] == ["run-b"]
    fields = [(e.index, e.field, e.fatal) for e in result.errors]
    assert fields[0] == (0, "steps.1.source", True)
    assert fields[1][0] == 2 and fields[1][2] is True


def test_a_result_that_answers_no_call_is_a_warning(tmp_path: Path) -> None:
    doc = json.loads(EXCHANGE.read_text())
    doc["steps"][3]["observation"]["results"][0]["source_call_id"] = "call_nobody"
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    result = import_file(path, "atif", run_id="r")
    (problem,) = result.errors
    assert not problem.fatal and "call_nobody" in problem.message
    assert problem.field == "steps.3.observation.results.0.source_call_id"


def test_a_cut_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    for size in (40, 2500):
        path.write_bytes(EXCHANGE.read_bytes()[:size])
        with pytest.raises(InputFileError, match="not an ATIF trajectory"):
            import_file(path, "atif", run_id="r")


def test_a_list_of_trajectories_is_detected(tmp_path: Path) -> None:
    docs = [json.loads(line) for line in TWO.read_text().splitlines()]
    path = tmp_path / "list.json"
    path.write_text(json.dumps(docs, indent=2))
    assert detect_format(path.read_bytes()) == "atif"
    result = import_file(path, "auto", run_id="r")
    assert [i.session.session_id for i in result.sessions] == ["run-a", "run-b"]
    assert all(i.session.outcome is None for i in result.sessions)  # no reward, no label
