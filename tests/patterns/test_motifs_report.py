"""Motifs in the patterns report: the control chosen, tiny and broken inputs, the CLI on a
real tau2 trajectories file."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.patterns import mine
from sessionproof.records import Session

from .motif_sessions import agent, call, session, user

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tau"
runner = CliRunner()


def _blind(verdict: bool, scenario: str, writes: int = 1) -> Session:
    """A write without confirmation (present) in a session of `writes` writes."""
    ws = [call("cancel_order", {"order_id": f"#W{i}1"}) for i in range(writes)]
    return session(user("cancel #W01 #W11 #W21"), *ws, verdict=verdict, scenario=scenario)


def _careful(verdict: bool, scenario: str, writes: int = 1) -> Session:
    ws = [call("cancel_order", {"order_id": f"#W{i}1"}) for i in range(writes)]
    turns = [user("cancel #W01 #W11 #W21"), agent("Cancel them?"), user("yes")]
    return session(*turns, *ws, verdict=verdict, scenario=scenario)


def _by_name(report: object) -> dict[str, object]:
    return {m.name: m for m in report.motifs}  # type: ignore[attr-defined]


def test_repeated_scenarios_with_both_outcomes_are_tested_within_scenario() -> None:
    sessions = []
    for k in range(6):
        sessions += [_blind(False, f"t{k}"), _blind(False, f"t{k}"), _careful(True, f"t{k}")]
        sessions += [_careful(True, f"t{k}"), _blind(True, f"t{k}"), _careful(False, f"t{k}")]
    report = mine(sessions)
    assert report.motif_control == "within-scenario"
    m = _by_name(report)["write_without_confirmation"]
    assert (m.failed, m.passed, m.failed_judged, m.passed_judged) == (12, 6, 18, 18)  # type: ignore[attr-defined]
    assert m.odds_ratio is not None and m.odds_ratio > 1 and m.sessions_used == 36  # type: ignore[attr-defined]
    assert m.ci is not None and m.q_value is not None and not m.exploratory  # type: ignore[attr-defined]
    # OR 4 on 36 sessions: q 0.26, and the note says it is power, not absence.
    assert report.motif_note.startswith("no motif is significant at q < 0.05 (within-scenario)")
    assert "at most 36 of 36 sessions (18 failed in all)" in report.motif_note


def test_unique_scenarios_use_the_task_signature() -> None:
    # Hard tasks (3 writes) fail more and hold the motif more: the signature's writes bucket
    # keeps the comparison within task difficulty.
    sessions = []
    for k in range(5):
        sessions += [_blind(False, f"h{k}a", 3), _careful(False, f"h{k}b", 3)]
        sessions += [_blind(False, f"h{k}c", 3), _careful(True, f"h{k}d", 3)]
        sessions += [_blind(False, f"e{k}a", 1), _careful(True, f"e{k}b", 1)]
        sessions += [_blind(True, f"e{k}c", 1), _careful(True, f"e{k}d", 1)]
    report = mine(sessions)
    assert report.motif_control == "task-signature"
    assert "writes" in report.motif_control_detail
    m = _by_name(report)["write_without_confirmation"]
    assert m.control == "task-signature" and m.sessions_used == 40  # type: ignore[attr-defined]
    # Within each bucket: hard 2/2 blind failed vs 1/2 careful; easy 1/2 vs 0/2.
    assert m.odds_ratio is not None and m.odds_ratio > 1  # type: ignore[attr-defined]


def test_tiny_inputs_are_said_not_crashed() -> None:
    one = mine([_blind(False, "a")])
    assert one.note.startswith("nothing to contrast")
    assert one.motif_control == "none"
    m = _by_name(one)["write_without_confirmation"]
    assert m.failed == 1 and m.odds_ratio is None and m.note  # type: ignore[attr-defined]
    for verdict in (True, False):
        same = mine([_blind(verdict, "a"), _careful(verdict, "b")])
        assert all(x.odds_ratio is None and x.note for x in same.motifs)
    talk = [
        session(user("hi"), agent("hello"), verdict=v, scenario=f"s{i}")
        for i, v in enumerate([True, False, True, False])
    ]
    quiet = mine(talk)
    assert "write_without_confirmation" in quiet.motifs_not_applicable
    assert all(x.failed + x.passed == 0 for x in quiet.motifs)
    assert mine([]).motifs == []


def test_cli_json_on_a_tau2_file_lists_motifs_with_control_and_interval() -> None:
    path = FIXTURES / "gpt-4.1_retail_defautl_gpt-4.1_1trials.json"
    result = runner.invoke(app, ["patterns", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    motifs = data["motifs"]
    assert len(motifs) >= 5
    assert {m["control"] for m in motifs} == {"task-signature"}  # one trial per task
    for m in motifs:
        assert {
            "failed",
            "passed",
            "odds_ratio",
            "ci",
            "p_value",
            "q_value",
            "why",
            "advice",
            "sessions_used",
        } <= set(m)
    tested = [m for m in motifs if m["odds_ratio"] is not None]
    assert tested and all(m["ci"][0] <= m["odds_ratio"] <= m["ci"][1] for m in tested)
    assert "acting_on_implicit_fault" in data["motifs_not_applicable"]
    # 40 sessions, 6 failures, one trial per task: nothing reaches q < 0.05, and it says why.
    assert data["motif_note"].startswith("no motif is significant at q < 0.05 (task-signature)")
    assert (
        "too little power" in data["motif_note"]
        and "of 40 sessions (6 failed" in data["motif_note"]
    )
    text = runner.invoke(app, ["patterns", str(path)])
    assert text.exit_code == 0 and "motifs (adjusted; control: task-signature)" in text.output


def test_require_read_makes_the_policy_motif_apply() -> None:
    path = FIXTURES / "gpt-4.1_retail_defautl_gpt-4.1_1trials.json"
    args = ["patterns", str(path), "--json", "--require-read"]
    result = runner.invoke(app, [*args, "cancel_pending_order=get_order_details"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert "policy_read_skipped" not in data["motifs_not_applicable"]
    (policy,) = [m for m in data["motifs"] if m["name"] == "policy_read_skipped"]
    assert policy["failed_judged"] + policy["passed_judged"] > 0  # sessions that cancel
    bad = runner.invoke(app, [*args, "cancel_pending_order"])
    assert bad.exit_code != 0 and "expected WRITE=READ" in str(bad.exception)
