"""`rerun --fork-at`: the shared tau2 trajectories forked at their first divergence (the oracle
as candidate, the recorded agent as baseline lane), the domain's state at the fork against
the recorded state, given turns, the scripted user of a chat log, and broken input."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.agents._python_agent import PythonAgent
from sessionproof.domains import get_domain
from sessionproof.errors import ConfigError, ToolError
from sessionproof.importers import import_file
from sessionproof.records import EventKind, Message, Session, ToolCallEvent, ToolResultEvent
from sessionproof.rerun._internal import fork
from sessionproof.runs import RerunConfig
from sessionproof.store import Store

from ._files import AIRLINE_GPT, TRAJECTORIES, domain_name, load

SILENT = "python:tests.rerun.agents:silent"


def _failed(data: dict[str, Any]) -> set[str]:
    return {s["id"] for s in data["simulations"] if s["reward_info"]["reward"] != 1.0}


def _recorded_hash_at(path: Path, transcript: str, turn: int) -> tuple[str, str]:
    """(the state hash after the recorded calls of turns before `turn`, the fresh domain's
    hash), worked out here on the domain directly: each recorded call that got a reply, in
    order, reads included (they change nothing)."""
    (imported,) = [
        s for s in import_file(path, "tau2", run_id="x").sessions
        if s.session.session_id == transcript
    ]  # fmt: skip
    session = imported.session
    answered = {e.payload.call_id for e in session.events_of(ToolResultEvent)}
    domain = get_domain(domain_name(load(path))).create()
    fresh = domain.state_hash()
    for event in session.events_of(ToolCallEvent):
        call = event.payload
        if event.turn < turn and call.id in answered and call.arguments is not None:
            with contextlib.suppress(ToolError):
                domain.call(call.name, dict(call.arguments))
    return domain.state_hash(), fresh


def _prefix(session: Session, turn: int) -> list[tuple[str, str]]:
    """The user messages and tool calls of a session's turns before `turn`, in order."""
    out = []
    for e in session.events:
        if e.turn >= turn:
            break
        if e.kind is EventKind.user_message:
            out.append(("user", e.payload.content or ""))  # type: ignore[union-attr]
        elif isinstance(e, ToolCallEvent):
            out.append((e.payload.name, json.dumps(e.payload.arguments, sort_keys=True)))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("path", TRAJECTORIES, ids=lambda p: p.name[:24])
def test_oracle_completes_failed_transcripts_from_their_divergence(
    path: Path, tmp_path: Path
) -> None:
    data = load(path)
    failed = _failed(data)
    store = tmp_path / "s.duckdb"
    report = fork(path, "oracle", fork_at="divergence", baseline_lane="recorded", store_path=store)

    # Only the failed originals fork; each passed one is named, with why.
    assert {t.id for t in report.transcripts} == failed
    assert len(report.not_forked) == len(data["simulations"]) - len(failed)
    assert all("passed" in s.why for s in report.not_forked)
    assert report.skipped == [] and report.fork_at == "divergence"
    for t in report.transcripts:
        assert t.original is False and t.fork_at is not None
        assert t.fork_reason and t.fork_reason.startswith("divergence: ")
        assert t.fork_state == [True], t.id  # the state at the fork is the recorded one
        # The oracle does what is left of the task from the fork; the recorded agent,
        # replayed from the same fork, fails as the original did.
        assert t.rerun == [True], (t.id, t.why)
        assert t.baseline == [False], t.id
    n = len(failed)
    assert report.rerun_accuracy == 1.0 and report.baseline_accuracy == 0.0
    for comparison in (report.paired, report.baseline_paired):
        assert comparison is not None and comparison.scenarios == n
        assert (comparison.only_a, comparison.only_b) == (0, n)
        assert comparison.difference.estimate == 1.0
        assert comparison.mcnemar_p == pytest.approx(2 * 0.5**n)

    # Each lane is its own run; every session says where it forked and what it found there.
    assert report.baseline_run_id and report.baseline_run_id != report.run_id
    with Store.open(store, read_only=True) as db:
        assert db.get_run(report.run_id).model == "oracle"
        assert db.get_run(report.baseline_run_id).model == "recorded"
        candidate = db.load_sessions(report.run_id)
        baseline = db.load_sessions(report.baseline_run_id)
    assert len(candidate) == len(baseline) == n
    for s in candidate + baseline:
        meta = s.metadata["fork"]
        assert meta["reached"] is True and meta["state_matches"] is True
    lanes = (
        {s.metadata["fork"]["lane"] for s in candidate},
        {s.metadata["fork"]["lane"] for s in baseline},
    )
    assert lanes == ({"candidate"}, {"baseline"})


@pytest.mark.slow
@pytest.mark.parametrize("path", TRAJECTORIES, ids=lambda p: p.name[:24])
def test_state_at_the_fork_is_the_recorded_state(path: Path, tmp_path: Path) -> None:
    """The DB hash the domain had when the candidate was first asked equals the hash of the
    recorded calls before the fork's turn replayed on a fresh domain; the prefix in the trace
    is the recorded one. Turn 5 comes after some transcripts' writes."""
    report = fork(path, SILENT, fork_at=5, store_path=tmp_path / "s")
    with Store.open(tmp_path / "s", read_only=True) as db:
        sessions = {s.scenario_id: s for s in db.load_sessions(report.run_id)}
    originals = {
        s.session.session_id: s.session for s in import_file(path, "tau2", run_id="x").sessions
    }
    assert report.transcripts
    moved = 0
    for t in report.transcripts:
        session = sessions[t.id]
        expected, fresh = _recorded_hash_at(path, t.id, 5)
        assert session.metadata["fork"]["state_hash"] == expected, t.id
        assert t.fork_state == [True]
        moved += expected != fresh
        assert _prefix(session, 5) == _prefix(originals[t.id], 5)
        # The candidate answers from the fork on: the silent agent calls no tool there.
        assert not [e for e in session.events_of(ToolCallEvent) if e.turn >= 5]
    assert moved, "some fork must come after a write, or the hash proves nothing"


def test_given_turn_forks_long_enough_transcripts(tmp_path: Path) -> None:
    data = load(AIRLINE_GPT)
    data["simulations"] = data["simulations"][:8]
    path = tmp_path / "eight.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    report = fork(path, "oracle", fork_at=6, store_path=None)
    sessions = [s.session for s in import_file(path, "tau2", run_id="x").sessions]
    turns = {s.session_id: 1 + max(e.turn for e in s.events) for s in sessions}
    transferred = {
        s.session_id: e.turn
        for s in sessions
        for e in s.events_of(ToolCallEvent)
        if e.payload.name == "transfer_to_human_agents" and e.turn < 6
    }
    assert transferred, "the file has a transcript that transferred early and went on"
    long_enough = {i for i, n in turns.items() if n > 6}
    assert {t.id for t in report.transcripts} == long_enough - set(transferred)
    why = {s.record: s.why for s in report.not_forked}
    assert set(why) == set(turns) - {t.id for t in report.transcripts}
    for i, n in turns.items():
        if n <= 6:
            assert why[i] == f"turn 6 is beyond the transcript (its turns are 0..{n - 1})"
        elif i in transferred:
            # The engine ends a session at a transfer: the fork could never be reached.
            assert f"transferred at turn {transferred[i]}, before the fork" in why[i]
    assert all(t.fork_at == 6 and t.fork_reason == "given" for t in report.transcripts)
    # A passed original forks at a given turn too.
    assert any(t.original for t in report.transcripts)

    with pytest.raises(ConfigError, match=r"--fork-at 99 is beyond every transcript"):
        fork(path, "oracle", fork_at=99, store_path=None)


def test_bad_fork_options_are_one_line_errors() -> None:
    for bad in ("soon", "-1", "3.5", ""):
        with pytest.raises(ConfigError, match="fork-at must be a turn number") as err:
            RerunConfig(path=AIRLINE_GPT, model="oracle", fork_at=bad)
        assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="--baseline-lane needs --fork-at"):
        RerunConfig(path=AIRLINE_GPT, model="oracle", baseline_lane="recorded")
    config = RerunConfig(path=AIRLINE_GPT, model="oracle", fork_at=" Divergence ")
    assert config.fork_at == "divergence"
    assert RerunConfig(path=AIRLINE_GPT, model="oracle", fork_at="4").fork_at == 4


async def _user_that_saw(request: AgentRequest) -> AgentResponse:
    """A user model that says how many of its own earlier messages it was shown, and stops."""
    mine = [m.content for m in request.messages if m.role == "assistant"]
    return AgentResponse(message=Message.assistant(f"I see {len(mine)} of mine. ###STOP###"))


def test_the_simulated_user_takes_over_after_the_forks_turn(tmp_path: Path) -> None:
    user = PythonAgent(_user_that_saw, name="python:user-that-saw")
    report = fork(
        AIRLINE_GPT, SILENT, fork_at=2, user_model=user, limit=3, store_path=tmp_path / "s"
    )
    assert report.user_model == "python:user-that-saw" and report.transcripts
    originals = {
        s.session.session_id: s.session
        for s in import_file(AIRLINE_GPT, "tau2", run_id="x").sessions
    }
    with Store.open(tmp_path / "s", read_only=True) as db:
        sessions = db.load_sessions(report.run_id)
    for session in sessions:
        texts = [e.payload.content for e in session.of_kind(EventKind.user_message)]
        original = originals[session.scenario_id]
        recorded = [e.payload.content for e in original.of_kind(EventKind.user_message)]
        # Turns 0..2 are the recorded user's; the simulated user answers turn 3, having been
        # shown the three recorded messages as its own.
        assert texts[:3] == recorded[:3]
        assert texts[3:] == ["I see 3 of mine."]
        assert session.termination.value == "user_stop"


@pytest.mark.slow
@pytest.mark.parametrize("path", TRAJECTORIES, ids=lambda p: p.name[:24])
def test_the_recorded_lane_from_turn_0_reproduces_every_original(path: Path) -> None:
    """The recorded agent replayed whole through the fork harness ends as the original did:
    forking itself changes no verdict."""
    data = load(path)
    failed = _failed(data)
    report = fork(path, SILENT, fork_at=0, baseline_lane="recorded", store_path=None)
    assert len(report.transcripts) == len(data["simulations"]) and not report.not_forked
    for t in report.transcripts:
        assert t.original is (t.id not in failed)
        assert t.baseline == [t.original], (t.id, t.why)
    assert report.baseline_paired is not None
    assert report.baseline_accuracy == report.original_accuracy
