"""`score` on transcripts with one bad record: it is named and skipped, the rest are judged
and stored, warnings are counted, and a failed store write never leaves a run `running`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sessionproof.errors import StoreError
from sessionproof.records import Session
from sessionproof.store import Store
from sessionproof.suites._score import score_transcripts

from ._data import AIRLINE_GPT, anthropic_messages, load, openai_messages


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        check=False,
    )


def _tau2(path: Path, change: Any) -> Path:
    data = load(AIRLINE_GPT)
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _status(store: Path, run_id: str) -> str:
    with Store.open(store, read_only=True) as s:
        return s.get_run(run_id).status


def _stored(store: Path, run_id: str) -> int:
    with Store.open(store, read_only=True) as s:
        return len(s.session_rows(run_id))


@pytest.mark.slow
def test_a_trial_too_big_for_the_store_is_named_and_the_rest_stored(tmp_path: Path) -> None:
    def big(data: dict[str, Any]) -> None:
        data["simulations"][3]["trial"] = 2**31

    path = _tau2(tmp_path / "big.json", big)
    store = tmp_path / "s.duckdb"
    done = _cli("score", str(path), "--store", str(store), "--json")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "record #3" in done.stderr and "trial" in done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    assert _stored(store, run_id) == 19 and _status(store, run_id) == "finished"


def test_a_session_the_store_refuses_is_named_and_the_rest_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = load(AIRLINE_GPT)["simulations"][5]["id"]
    real_write = Store.write_session

    def write_sessions(self: Store, sessions: list[Session]) -> None:
        raise StoreError("batch refused")

    def write_session(self: Store, session: Session) -> None:
        if session.session_id == victim:
            raise StoreError("this one cannot be stored")
        real_write(self, session)

    monkeypatch.setattr(Store, "write_sessions", write_sessions)
    monkeypatch.setattr(Store, "write_session", write_session)
    store = tmp_path / "s.duckdb"
    report = score_transcripts(AIRLINE_GPT, "tau2", None, store)
    (problem,) = report.errors
    assert problem.index == 5 and "cannot be stored" in problem.message
    assert _stored(store, report.run_id) == 19
    assert _status(store, report.run_id) == "finished"


def test_a_store_write_that_blows_up_marks_the_run_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def write_sessions(self: Store, sessions: list[Session]) -> None:
        raise RuntimeError("the disk went away")

    monkeypatch.setattr(Store, "write_sessions", write_sessions)
    store = tmp_path / "s.duckdb"
    with pytest.raises(RuntimeError):
        score_transcripts(AIRLINE_GPT, "tau2", None, store, run_id="r-failed")
    assert _status(store, "r-failed") == "failed"


def _log_lines(convert: Any) -> list[dict[str, Any]]:
    data = load(AIRLINE_GPT)
    tasks = {t["id"]: t for t in data["tasks"]}
    return [
        {
            "id": sim["id"],
            "domain": "airline",
            "task": tasks[sim["task_id"]],
            "outcome": {"reward": sim["reward_info"]["reward"]},
            "messages": convert(sim["messages"]),
        }
        for sim in data["simulations"][:4]
    ]


def test_an_unknown_domain_in_one_record_costs_only_that_record(tmp_path: Path) -> None:
    lines = _log_lines(openai_messages)
    lines[1]["domain"] = "nowhere"
    lines[2]["task"] = {"id": "mine", "domain": "nowhere", "user": {"turns": ["hello"]}}
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    report = score_transcripts(path, "auto", None, tmp_path / "s.duckdb")
    assert [(e.index, e.field) for e in report.errors] == [(1, "domain"), (2, "task.domain")]
    assert report.sessions == 2 and report.graded == 2


@pytest.mark.slow
def test_typod_tool_use_blocks_are_warned_counted_and_flagged(tmp_path: Path) -> None:
    lines = _log_lines(anthropic_messages)
    typod = 0
    for message in lines[0]["messages"]:
        for block in message["content"]:
            if block["type"] == "tool_use":
                block["type"] = "Tool_Use"
                typod += 1
    assert typod
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    done = _cli("score", str(path), "--store", str(tmp_path / "s.duckdb"), "--json")
    assert done.returncode == 1, done.stderr
    summary = json.loads(done.stdout)
    warnings = summary["warnings"]
    assert all(w["index"] == 0 for w in warnings)
    assert sum("Tool_Use" in w["message"] for w in warnings) == typod
    assert summary["skipped"] == []
    table = _cli("score", str(path), "--store", str(tmp_path / "s.duckdb"))
    assert table.returncode == 1
    assert "warnings" in table.stdout and "record #0" in table.stderr
