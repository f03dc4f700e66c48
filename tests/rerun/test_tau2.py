"""Rerunning the shared tau2 trajectories: the oracle, a deliberately wrong agent, a simulated
user, and what lands in the store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.agents._python_agent import PythonAgent
from sessionproof.records import EventKind, Message
from sessionproof.rerun._internal import rerun
from sessionproof.store import Store

from ._files import (
    AIRLINE_GPT,
    RETAIL_GPT,
    TRAJECTORIES,
    domain_name,
    idle_agent_passes,
    load,
)

SILENT = "python:tests.rerun.agents:silent"
ORACLE_CAN_MEET = {"DB", "COMMUNICATE", "ACTION"}
"""Reward components the oracle meets by construction: it makes every gold call and states
every required fact (NL assertions need a judge; env assertions may need user actions)."""


def _recorded(data: dict[str, Any]) -> dict[str, bool]:
    return {s["id"]: s["reward_info"]["reward"] == 1.0 for s in data["simulations"]}


@pytest.mark.slow
@pytest.mark.parametrize("path", TRAJECTORIES, ids=lambda p: p.name[:24])
def test_oracle_reruns_every_task_it_can_meet(path: Path, tmp_path: Path) -> None:
    data = load(path)
    tasks = {t["id"]: t for t in data["tasks"]}
    recorded = _recorded(data)
    store = tmp_path / "s.duckdb"
    report = rerun(path, "oracle", store_path=store)

    assert report.skipped == []
    assert len(report.transcripts) == len(data["simulations"])
    meetable = set()
    for t in report.transcripts:
        assert t.judged_by == "tau2"
        assert t.original == recorded[t.id] and t.original_source == "recorded"
        basis = set(tasks[t.task]["evaluation_criteria"]["reward_basis"])
        if basis <= ORACLE_CAN_MEET:
            meetable.add(t.id)
            assert t.rerun == [True], (t.id, t.why)
    assert meetable, "the check must cover some tasks"
    assert report.original_accuracy == pytest.approx(sum(recorded.values()) / len(recorded))

    # Paired over (transcript, trial): every original failure the oracle fixes is discordant.
    paired = report.paired
    assert paired is not None and paired.unpaired == []
    assert paired.scenarios == len(recorded)
    assert paired.rate_a == pytest.approx(report.original_accuracy)
    assert paired.rate_b == pytest.approx(report.rerun_accuracy)
    fixed = sum(1 for t in report.transcripts if not t.original and t.rerun == [True])
    broke = sum(1 for t in report.transcripts if t.original and t.rerun == [False])
    assert (paired.only_b, paired.only_a) == (fixed, broke)
    assert paired.difference.estimate == pytest.approx((fixed - broke) / len(recorded))
    assert paired.difference.low <= paired.difference.estimate <= paired.difference.high
    if broke == 0 and fixed:
        # Exact McNemar with every discordant pair one way: p = 2 · 0.5^n.
        assert paired.mcnemar_p == pytest.approx(min(1.0, 2 * 0.5**fixed))

    with Store.open(store, read_only=True) as db:
        manifest = db.get_run(report.run_id)
        assert manifest.command == "rerun" and manifest.model == "oracle"
        assert manifest.user_model is None  # the oracle's users state their task whole
        sessions = db.load_sessions(report.run_id)
    assert len(sessions) == len(recorded)
    by_id = {s.session_id: s for s in sessions}
    for t in report.transcripts:
        (sid,) = t.session_ids
        stored = by_id[sid]
        assert stored.metadata["rerun_of"] == t.id
        assert stored.success == t.rerun[0]
        # The user side is the task's own instructions, stated once.
        (first, *_) = stored.of_kind(EventKind.user_message)
        reason = tasks[t.task]["user_scenario"]["instructions"]["reason_for_call"]
        assert reason.strip()[:40] in first.payload.content


def test_an_agent_that_never_calls_tools_fails_what_needs_work(tmp_path: Path) -> None:
    data = load(RETAIL_GPT)
    tasks = {t["id"]: t for t in data["tasks"]}
    domain = domain_name(data)
    report = rerun(RETAIL_GPT, SILENT, trials=2)
    assert report.skipped == []
    expected = {t.id for t in report.transcripts if idle_agent_passes(tasks[t.task], domain)}
    passed = {t.id for t in report.transcripts if t.rerun == [True, True]}
    failed = {t.id for t in report.transcripts if t.rerun == [False, False]}
    assert passed == expected
    assert failed == {t.id for t in report.transcripts} - expected
    for t in report.transcripts:
        assert all(s.tool_calls == 0 for s in t.rerun_shapes)
        if t.id in failed:
            assert t.why and "trials 0, 1:" in t.why  # the failing criterion is named
    assert report.rerun_accuracy == pytest.approx(len(expected) / len(report.transcripts))
    assert report.paired is not None
    assert report.paired.scenarios == 2 * len(report.transcripts)
    assert report.paired.difference.estimate < 0
    assert report.paired.difference.high < 0  # clearly worse, not noise
    assert report.paired.mcnemar_p < 0.05


def test_on_tasks_that_need_work_the_wrong_agent_scores_zero(tmp_path: Path) -> None:
    data = load(AIRLINE_GPT)
    tasks = {t["id"]: t for t in data["tasks"]}
    domain = domain_name(data)
    data["simulations"] = [
        s for s in data["simulations"] if not idle_agent_passes(tasks[s["task_id"]], domain)
    ]
    assert data["simulations"]
    path = tmp_path / "needs-work.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    recorded = _recorded(data)

    report = rerun(path, SILENT)
    original = sum(recorded.values()) / len(recorded)
    assert original > 0  # the file has successes to lose
    assert report.rerun_accuracy == 0.0
    assert report.original_accuracy == pytest.approx(original)
    assert report.paired is not None
    assert report.paired.difference.estimate == pytest.approx(-original)
    assert report.paired.only_a == sum(recorded.values()) and report.paired.only_b == 0


async def _quoting_user(request: AgentRequest) -> AgentResponse:
    """A user model that quotes the start of its brief, then stops on its second turn."""
    if request.turn >= 1:
        return AgentResponse(message=Message.assistant("Thanks, bye. ###STOP###"))
    brief = request.messages[0].content or ""
    reason = brief.split("Reason for call:", 1)[1].strip().splitlines()[0]
    return AgentResponse(message=Message.assistant(f"[simulated] {reason}"))


def test_a_user_model_plays_the_task_user(tmp_path: Path) -> None:
    user = PythonAgent(_quoting_user, name="python:quoting-user")
    report = rerun(AIRLINE_GPT, "oracle", user_model=user, limit=3, store_path=tmp_path / "s")
    assert len(report.transcripts) == 3 and report.user_model == "python:quoting-user"
    with Store.open(tmp_path / "s", read_only=True) as db:
        assert db.get_run(report.run_id).user_model == "python:quoting-user"
        sessions = db.load_sessions(report.run_id)
    assert len(sessions) == 3
    for session in sessions:
        texts = [e.payload.content for e in session.of_kind(EventKind.user_message)]
        assert texts[0].startswith("[simulated] ")
        if session.termination.value == "user_stop":  # not cut short by a transfer
            assert texts[1:] == ["Thanks, bye."]
        else:
            assert session.termination.value == "transfer" and len(texts) == 1
