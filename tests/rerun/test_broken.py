"""Broken input: bad records cost only themselves (listed in `skipped` with the reason), the
rest are rerun; unreadable files and bad options fail with named errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.errors import ConfigError, InputFileError
from sessionproof.records import Scenario, Session, TerminationReason, UserSpec
from sessionproof.rerun._internal import RerunSuite, rerun

from ._files import AIRLINE_GPT, load, openai_call, write_jsonl

CANCELLER = "python:tests.rerun.agents:canceller"


def test_broken_tau2_records_are_skipped_and_the_rest_rerun(tmp_path: Path) -> None:
    data = load(AIRLINE_GPT)
    sims = data["simulations"][:6]
    del sims[1]["messages"]
    sims[3]["task_id"] = "no-such-task"
    sims[4]["messages"].append({"role": "tool", "content": "orphan reply"})  # no call id
    data["simulations"] = sims
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")

    report = rerun(path, "oracle")
    assert [t.id for t in report.transcripts] == [sims[i]["id"] for i in (0, 2, 5)]
    assert all(len(t.rerun) == 1 and t.rerun[0] is not None for t in report.transcripts)
    skipped = {s.record.split()[0]: s.why for s in report.skipped}
    assert set(skipped) == {"#1", "#3", "#4"}
    assert "messages" in skipped["#1"]
    assert "no-such-task" in skipped["#3"]
    assert "id" in skipped["#4"]


def test_a_truncated_file_reruns_every_complete_record(tmp_path: Path) -> None:
    raw = AIRLINE_GPT.read_text(encoding="utf-8")
    data = load(AIRLINE_GPT)
    third = json.dumps(data["simulations"][3]["id"])
    cut = raw.index(third)  # inside the fourth simulation
    path = tmp_path / "cut.json"
    path.write_text(raw[:cut], encoding="utf-8")
    report = rerun(path, "oracle", fmt="tau2")
    assert [t.id for t in report.transcripts] == [s["id"] for s in data["simulations"][:3]]
    assert len(report.skipped) == 1 and "3 complete simulations" in report.skipped[0].why


def _line(rid: str, messages: list[Any], **extra: Any) -> dict[str, Any]:
    return {"id": rid, "domain": "demo", "messages": messages, "outcome": True, **extra}


def test_broken_chat_log_lines_are_skipped_and_the_rest_rerun(tmp_path: Path) -> None:
    ask = {"role": "user", "content": "Please cancel order 1055, I ordered it by mistake."}
    call = openai_call("c1", "cancel_order", {"order_id": "1055", "reason": "ordered_by_mistake"})
    good = [
        ask,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "Cancelled."},
    ]
    lines: list[Any] = [
        _line("ok-1", good),
        '{"messages": [ {"role": "user"',  # cut short
        _line("not-a-list", "hello"),  # type: ignore[arg-type]
        _line("nowhere", good, domain="atlantis"),
        _line("no-user", good[1:]),
        _line("orphan", [ask, {"role": "tool", "content": "?"}]),
        _line("bad-role", [{"role": "wizard", "content": "hi"}]),
        _line("ok-2", good),
    ]
    path = write_jsonl(tmp_path / "log.jsonl", lines)
    report = rerun(path, CANCELLER)
    assert [t.id for t in report.transcripts] == ["ok-1", "ok-2"]
    assert [t.rerun for t in report.transcripts] == [[True], [True]]
    why = {s.record.split()[0]: s.why for s in report.skipped}
    assert set(why) == {"#1", "#2", "#3", "#4", "#5", "#6"}
    assert "not JSON" in why["#1"]
    assert "messages" in why["#2"]
    assert "atlantis" in why["#3"]
    assert "no user message" in why["#4"]
    assert "tool_call_id" in why["#5"]
    assert "role" in why["#6"]


def test_unreadable_files_and_bad_options_raise_named_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("  \n", encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text('{"hello": "world"}', encoding="utf-8")
    for path in (tmp_path / "missing.json", empty, other):
        with pytest.raises(InputFileError, match=str(path.name)):
            rerun(path, "oracle")
    with pytest.raises(ConfigError, match="format"):
        rerun(AIRLINE_GPT, "oracle", fmt="xml")
    with pytest.raises(ConfigError, match="trials"):
        rerun(AIRLINE_GPT, "oracle", trials=0)
    with pytest.raises(ConfigError, match="limit"):
        rerun(AIRLINE_GPT, "oracle", limit=0)


def test_an_evaluator_that_raises_leaves_that_session_unjudged() -> None:
    scenario = Scenario(
        id="x",
        domain="retail",
        user=UserSpec(turns=["hi"]),
        metadata={"tau2_task": {"not": "a task"}},
    )
    suite = RerunSuite("t", [scenario], {"x": "tau2"})
    session = Session(
        run_id="r",
        session_id="x.t0",
        scenario_id="x",
        trial=0,
        termination=TerminationReason.user_stop,
    )
    outcome = suite.evaluate(scenario, session, None)  # type: ignore[arg-type]
    assert outcome.success is False
    (criterion,) = outcome.criteria
    assert criterion.passed is None and "could not judge" in criterion.evidence
