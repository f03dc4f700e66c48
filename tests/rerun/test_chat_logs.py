"""Rerunning OpenAI chat logs: scripted users from the log's own user turns, judged by an
attached scenario, by the successful original's end state, or not at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sessionproof.domains.demo._internal import load_scenarios
from sessionproof.records import EventKind
from sessionproof.rerun._internal import rerun
from sessionproof.store import Store

from ._files import openai_call, write_jsonl

CANCELLER = "python:tests.rerun.agents:canceller"
SILENT = "python:tests.rerun.agents:silent"

ASK = "Hi, elena.petrova@example.com here. Please cancel order 1055, I ordered it by mistake."
THANKS = "Perfect, thank you."


def _cancel_log(order: str, ask: str, outcome: object, rid: str) -> dict[str, Any]:
    args = {"order_id": order, "reason": "ordered_by_mistake"}
    record: dict[str, Any] = {
        "id": rid,
        "domain": "demo",
        "messages": [
            {"role": "system", "content": "You are a helpful support agent."},
            {"role": "user", "content": ask},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [openai_call("c1", "cancel_order", args)],
            },
            {"role": "tool", "tool_call_id": "c1", "content": '{"status": "cancelled"}'},
            {"role": "assistant", "content": "Order cancelled; the refund is on its way."},
            {"role": "user", "content": THANKS},
            {"role": "assistant", "content": "You're welcome!"},
        ],
    }
    if outcome is not None:
        record["outcome"] = outcome
    return record


def _records() -> list[dict[str, Any]]:
    scenario = next(s for s in load_scenarios() if s.id == "cancel-pending-by-mistake")
    (first, second) = scenario.user.turns or []
    with_task = _cancel_log("1055", first, None, "with-task")
    with_task["messages"][4]["content"] = "Cancelled. You will get 38.40 back on PayPal."
    with_task["messages"][5]["content"] = second
    with_task["task"] = scenario.model_dump(mode="json", exclude={"domain"})
    return [
        _cancel_log("1055", ASK, True, "good"),
        _cancel_log("1042", ASK.replace("1055", "1042"), {"success": False}, "bad"),
        _cancel_log("1055", ASK, None, "unlabelled"),
        with_task,
    ]


def test_chat_log_rerun_against_a_python_agent(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "log.jsonl", _records())
    store = tmp_path / "s.duckdb"
    report = rerun(path, CANCELLER, trials=2, store_path=store)
    assert report.format == "openai" and report.skipped == []
    assert report.user_model is None  # every user side was scripted
    got = {t.id: t for t in report.transcripts}
    assert list(got) == ["good", "bad", "unlabelled", "with-task"]

    # A success with no task: the rerun must leave the DB as the original's calls did.
    good = got["good"]
    assert (good.judged_by, good.original, good.rerun) == ("reference_state", True, [True, True])
    # A failure with no task: nothing says what success is, so the reruns are not judged.
    bad = got["bad"]
    assert (bad.judged_by, bad.original, bad.rerun) == ("none", False, [None, None])
    assert bad.why and "not judged" in bad.why
    # Neither task nor outcome: behaviour only, said in so many words.
    plain = got["unlabelled"]
    assert (plain.original, plain.rerun) == (None, [None, None])
    assert plain.why and "no criterion" in plain.why
    assert [s.tool_calls for s in plain.rerun_shapes] == [1, 1]
    assert plain.original_shape.tools == ["cancel_order"] == plain.rerun_shapes[0].tools
    # An attached scenario: the original is judged against it; the rerun never says 38.40.
    task = got["with-task"]
    assert (task.judged_by, task.original, task.original_source) == ("criteria", True, "judged")
    assert task.rerun == [False, False]
    assert task.why and "communicate" in task.why and "38.40" in task.why

    assert report.original_accuracy == pytest.approx(2 / 3)
    assert report.rerun_accuracy == pytest.approx(2 / 4)
    paired = report.paired
    assert paired is not None
    assert paired.scenarios == 4  # good and with-task, two trials each
    assert (paired.only_a, paired.only_b) == (2, 0)
    assert sorted(paired.unpaired) == ["bad#t0", "bad#t1", "unlabelled#t0", "unlabelled#t1"]

    with Store.open(store, read_only=True) as db:
        sessions = {s.session_id: s for s in db.load_sessions(report.run_id)}
        rows = {r.session_id: r for r in db.session_rows(report.run_id)}
    assert len(sessions) == 8
    replayed = sessions[good.session_ids[1]]
    users = [e.payload.content for e in replayed.of_kind(EventKind.user_message)]
    assert users == [ASK, THANKS]  # the log's own user turns, in order
    assert replayed.termination.value == "user_stop"
    # An unjudged rerun is stored without a verdict, not as a failure.
    assert rows[plain.session_ids[0]].success is None
    assert not sessions[plain.session_ids[0]].of_kind(EventKind.verdict)
    assert rows[good.session_ids[0]].success is True


def test_an_idle_agent_fails_the_reference_state(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "log.jsonl", _records()[:1])
    report = rerun(path, SILENT)
    (good,) = report.transcripts
    assert good.rerun == [False]
    assert good.why and "db" in good.why
    assert report.paired is not None and report.paired.difference.estimate == -1.0


def test_domain_flag_overrides_and_reruns_need_one(tmp_path: Path) -> None:
    record = _records()[0]
    del record["domain"]
    path = write_jsonl(tmp_path / "log.jsonl", [record])
    report = rerun(path, CANCELLER)
    assert report.transcripts == []
    (skip,) = report.skipped
    assert "no domain" in skip.why and skip.record.startswith("#0")
    report = rerun(path, CANCELLER, domain="demo")
    assert [t.rerun for t in report.transcripts] == [[True]]
