"""Offline scoring of the shared tau2 trajectories: verdicts, agreement, storage, CLI output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.cli._score_transcripts import score_transcripts_command
from sessionproof.store import Store
from sessionproof.suites._score import score_transcripts

from ._data import AIRLINE_GPT, RETAIL_GPT, TRAJECTORIES, domain_of, load


def test_db_verdict_and_reward_reproduced_on_every_simulation(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    sessions = db_match = reward_match = mismatches = 0
    for path in TRAJECTORIES:
        report = score_transcripts(path, "tau2", domain_of(path), store)
        expected = load(path)["simulations"]
        assert report.sessions == len(expected)
        assert report.errors == []
        sessions += report.sessions
        db_match += report.agreement_db.match
        reward_match += report.agreement_reward.match
        assert report.agreement_db.total == report.agreement_reward.total == len(expected)
        mismatches += sum(s.db_match is False for s in report.scores)
        with Store.open(store, read_only=True) as s:
            rows = s.session_rows(report.run_id)
        assert len(rows) == len(expected)
        assert sum(bool(r.success) for r in rows) == sum(
            s["reward_info"]["reward"] == 1.0 for s in expected
        )
    assert (sessions, db_match, reward_match) == (110, 110, 110)
    assert mismatches == 30  # both verdicts occur: the check is not vacuous


def _rewrite(src: Path, dst: Path, change: Any) -> Path:
    data = load(src)
    change(data)
    dst.write_text(json.dumps(data), encoding="utf-8")
    return dst


def test_a_changed_write_breaks_the_db_verdict_and_is_explained(tmp_path: Path) -> None:
    def swap_payment(data: dict[str, Any]) -> None:
        # The gift card the agent refunded to becomes a different one of the same user.
        sim = next(s for s in data["simulations"] if s["task_id"] == "40")
        for m in sim["messages"]:
            for c in m.get("tool_calls") or []:
                if c["name"] == "modify_pending_order_payment":
                    c["arguments"]["payment_method_id"] = "gift_card_0000000"

    path = _rewrite(RETAIL_GPT, tmp_path / "changed.json", swap_payment)
    report = score_transcripts(path, "tau2", "retail", None)
    assert report.agreement_db.total == 40 and report.agreement_db.match == 39
    (d,) = report.disagreements
    assert d.ours == {"reward": 0.0, "db": False} and d.theirs == {"reward": 1.0, "db": True}
    assert "task 40" in d.why and "DB: ours False, theirs True" in d.why
    assert "orders/#W4923227" in d.why


def test_a_flipped_reported_reward_is_a_disagreement(tmp_path: Path) -> None:
    def flip(data: dict[str, Any]) -> None:
        data["simulations"][0]["reward_info"]["reward"] = 0.0
        data["simulations"][0]["reward_info"]["reward_breakdown"]["COMMUNICATE"] = 0.0

    path = _rewrite(AIRLINE_GPT, tmp_path / "flipped.json", flip)
    report = score_transcripts(path, "auto", None, None)
    assert (report.agreement_reward.match, report.agreement_reward.total) == (19, 20)
    assert report.agreement_db.match == 20
    assert "COMMUNICATE: ours 1, theirs 0" in report.disagreements[0].why


def test_cli_json_has_exactly_the_documented_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = score_transcripts_command(
        AIRLINE_GPT, "tau2", "airline", tmp_path / "s.duckdb", True, None
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == [
        "run_id",
        "sessions",
        "session_accuracy",
        "agreement",
        "disagreements",
        "skipped",
        "warnings",
    ]
    assert out["skipped"] == out["warnings"] == []
    assert out["sessions"] == 20 and out["session_accuracy"] == 0.5
    assert out["agreement"] == {
        "reward": {"match": 20, "total": 20},
        "db": {"match": 20, "total": 20},
    }
    assert out["disagreements"] == []


def test_cli_table_and_skipped_records_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def break_one(data: dict[str, Any]) -> None:
        del data["simulations"][3]["messages"]

    path = _rewrite(AIRLINE_GPT, tmp_path / "broken.json", break_one)
    code = score_transcripts_command(path, "auto", None, tmp_path / "s.duckdb", False, None)
    captured = capsys.readouterr()
    assert code == 1
    assert "reward agreement" in captured.out and "19/19" in captured.out
    assert "record #3" in captured.err and "messages" in captured.err
