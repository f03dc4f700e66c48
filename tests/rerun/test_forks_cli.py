"""`rerun --fork-at` on chat logs (a scripted user, the demo domain, recorded responses), a
model as baseline lane, and the command line: the JSON, the table, broken input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.cli._internal import app
from sessionproof.importers import import_file
from sessionproof.records import EventKind, Session, ToolCallEvent
from sessionproof.rerun._fork_plan import recorded_turns
from sessionproof.rerun._internal import fork
from sessionproof.store import Store

from ._files import AIRLINE_GPT, load, openai_call, write_jsonl
from .test_chat_logs import _records

SILENT = "python:tests.rerun.agents:silent"
runner = CliRunner()


def test_fork_keeps_the_state_the_recorded_turns_left(tmp_path: Path) -> None:
    """The log cancels order 1055 and says the refund in turn 0: forked at turn 1, even an
    agent that does nothing passes; forked at turn 0 it fails. The oracle as baseline lane
    does only what the replayed turns left undone (no second cancellation)."""
    path = write_jsonl(tmp_path / "log.jsonl", _records()[3:])
    store = tmp_path / "s.duckdb"
    late = fork(path, SILENT, fork_at=1, baseline_lane="oracle", store_path=store)
    early = fork(path, SILENT, fork_at=0, baseline_lane="oracle", store_path=None)
    (t1,), (t0,) = late.transcripts, early.transcripts
    assert (t1.original, t1.fork_at, t1.rerun, t1.baseline) == (True, 1, [True], [True])
    assert (t0.original, t0.fork_at, t0.rerun, t0.baseline) == (True, 0, [False], [True])
    assert t1.fork_state == [True] and t0.fork_state == [True]
    assert late.baseline_lane == "oracle" and late.baseline_paired is not None
    assert early.baseline_paired is not None
    assert (early.baseline_paired.only_a, early.baseline_paired.only_b) == (1, 0)

    with Store.open(store, read_only=True) as db:
        (candidate,) = db.load_sessions(late.run_id)
        assert late.baseline_run_id is not None
        (baseline,) = db.load_sessions(late.baseline_run_id)
    for session in (candidate, baseline):
        users = [e.payload.content for e in session.of_kind(EventKind.user_message)]
        assert users == (_records()[3]["task"]["user"]["turns"])  # recorded, then scripted
        assert session.metadata["fork"]["turn"] == 1
    calls = [e.payload.name for e in baseline.events_of(ToolCallEvent)]
    assert calls == ["cancel_order", "find_customer_by_email"]


def test_fork_needs_what_it_forks_by(tmp_path: Path) -> None:
    good, bad, _, _ = _records()
    path = write_jsonl(tmp_path / "log.jsonl", [good, bad])
    report = fork(path, SILENT, fork_at="divergence", store_path=None)
    assert report.transcripts == []
    why = {s.record: s.why for s in report.not_forked}
    assert why["good"] == "the original passed: it has no divergence to fork at"
    assert why["bad"].startswith("a divergence needs the transcript's task and domain")

    # Without the domain, the replayed turns are answered from the recording.
    report = fork(path, SILENT, fork_at=1, domain="recorded", store_path=None)
    assert [t.judged_by for t in report.transcripts] == ["recorded", "recorded"]
    assert all(t.divergences == [0] and t.rerun == [None] for t in report.transcripts)

    # A log that names no domain cannot be replayed into one: said per record.
    del good["domain"]
    path = write_jsonl(tmp_path / "nodomain.jsonl", [good])
    result = runner.invoke(
        app, ["rerun", str(path), "--model", SILENT, "--fork-at", "1", "--store",
              str(tmp_path / "x.duckdb"), "--no-report"],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "skipped" in result.output and "no domain: the record names none" in result.output


def test_cli_fork_json_and_table(tmp_path: Path) -> None:
    data = load(AIRLINE_GPT)
    data["simulations"] = data["simulations"][:6]
    path = tmp_path / "six.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    failed = sum(1 for s in data["simulations"] if s["reward_info"]["reward"] != 1.0)
    args = ["rerun", str(path), "--model", "oracle", "--fork-at", "divergence",
            "--baseline-lane", "recorded", "--store", str(tmp_path / "s"),
            "--no-report"]  # fmt: skip
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["fork_at"] == "divergence" and out["transcripts"] == failed
    forks = out["forks"]
    assert forks["forked"] == failed and len(forks["not_forked"]) == 6 - failed
    assert forks["state_at_fork_matches"] == failed and forks["state_at_fork_differs"] == 0
    assert forks["baseline_lane"] == "recorded" and forks["baseline_accuracy"] == 0.0
    assert forks["baseline_paired"]["only_b"] == failed
    for item in out["per_transcript"]:
        assert item["rerun"] == [True] and item["baseline"] == [False]
        assert isinstance(item["fork_at"], int) and item["fork_state_matches"] == [True]
    assert "not forked" in result.stderr

    table = runner.invoke(app, args)
    assert table.exit_code == 0
    for label in ("candidate from fork", "baseline lane from fork", "state at fork = recorded",
                  "candidate − baseline lane", "McNemar p"):  # fmt: skip
        assert label in table.output

    bad = runner.invoke(app, ["rerun", str(path), "--model", "oracle", "--fork-at", "soon"])
    assert bad.exit_code != 0 and "fork-at must be a turn number" in str(bad.exception)
    lane = runner.invoke(app, ["rerun", str(path), "--model", "oracle", "--baseline-lane", "x"])
    assert lane.exit_code != 0 and "--baseline-lane needs --fork-at" in str(lane.exception)


def test_a_session_that_ends_before_its_fork_is_not_judged(tmp_path: Path) -> None:
    """The recorded agent ended its first turn with the stop token: replayed, the session
    ends there, so the candidate never answers and the session is neither pass nor fail."""
    record = _records()[3]
    record["messages"][4]["content"] = "Cancelled. You will get 38.40 back. ###STOP###"
    path = write_jsonl(tmp_path / "log.jsonl", [record])
    report = fork(path, SILENT, fork_at=1, store_path=tmp_path / "s")
    (t,) = report.transcripts
    assert t.rerun == [None] and t.fork_state == [None]
    assert t.why and "ended before its fork (turn 1): not judged" in t.why
    assert report.paired is None and report.rerun_accuracy is None
    with Store.open(tmp_path / "s", read_only=True) as db:
        (session,) = db.load_sessions(report.run_id)
    assert session.outcome is None and not session.of_kind(EventKind.verdict)
    assert session.metadata["fork"]["reached"] is False


class _Seen:
    """A progress that keeps what it was told."""

    def __init__(self) -> None:
        self.arms: list[str] = []

    def start(self, total: int, done: int) -> None:
        """Nothing to draw."""

    def advance(self, session: Session) -> None:
        """Keep the session's arm."""
        self.arms.append(session.arm)


def test_progress_never_pools_the_lanes(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "log.jsonl", _records()[3:])
    seen = _Seen()
    fork(path, SILENT, fork_at=0, baseline_lane="oracle", trials=2, progress=seen)
    assert seen.arms == ["candidate lane"] * 2 + ["baseline lane"] * 2


def test_python_api_forks_through_runs_rerun(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "log.jsonl", _records()[3:])
    report = runs.rerun(path, SILENT, fork_at="1", baseline_lane="recorded", store=None)
    (t,) = report.transcripts
    assert report.fork_at == "1" and report.baseline_lane == "recorded"
    assert (t.fork_at, t.rerun, t.baseline, t.fork_state) == (1, [True], [True], [True])
    config = runs.RerunConfig(path=path, model=SILENT, fork_at=0, store=None)
    assert runs.rerun(config).transcripts[0].rerun == [False]


def test_cli_writes_each_lanes_report(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "log.jsonl", _records()[3:])
    store = tmp_path / "s.duckdb"
    result = runner.invoke(
        app, ["rerun", str(path), "--model", SILENT, "--fork-at", "1", "--baseline-lane",
              "recorded", "--store", str(store), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    reports = sorted(p.stem for p in (tmp_path / "s-reports").glob("*.html"))
    assert reports == sorted([out["run_id"], out["forks"]["baseline_run_id"]])


def test_recorded_turns_follow_the_engine(tmp_path: Path) -> None:
    """A greeting belongs to no turn; a text reply the agent followed with a call in the same
    turn goes with that call (the engine ends a turn at a reply without calls); user messages
    in a row are one turn. Replayed so, the prefix is the recording's, call for call."""
    find = openai_call("c1", "find_customer_by_email", {"email": "elena.petrova@example.com"})
    record = {
        "id": "chatty",
        "domain": "demo",
        "outcome": {"success": False},
        "messages": [
            {"role": "assistant", "content": "Hi! How can I help?"},
            {"role": "user", "content": "I am elena.petrova@example.com."},
            {"role": "assistant", "content": "Let me look you up."},
            {"role": "assistant", "content": None, "tool_calls": [find]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"customer_id": "C1"}'},
            {"role": "assistant", "content": "Found you."},
            {"role": "user", "content": "Cancel 1055."},
            {"role": "user", "content": "Please."},
            {"role": "assistant", "content": "Sorry, I cannot."},
        ],
    }
    path = write_jsonl(tmp_path / "log.jsonl", [record])
    (imported,) = import_file(path, "openai", run_id="x").sessions
    turns = recorded_turns(imported.session)
    assert [t.user for t in turns] == ["I am elena.petrova@example.com.", "Cancel 1055.\nPlease."]
    first = turns[0].replies
    assert [(m.content, [c.name for c in m.tool_calls]) for m in first] == [
        ("Let me look you up.", ["find_customer_by_email"]),
        ("Found you.", []),
    ]
    assert [m.content for m in turns[1].replies] == ["Sorry, I cannot."]

    report = fork(path, SILENT, fork_at=1, store_path=tmp_path / "s")
    (t,) = report.transcripts
    assert t.fork_state == [True]
    with Store.open(tmp_path / "s", read_only=True) as db:
        (session,) = db.load_sessions(report.run_id)
    said = [(e.turn, e.payload.content) for e in session.of_kind(EventKind.assistant_message)]
    assert said[:2] == [(0, "Let me look you up."), (0, "Found you.")]
    assert [e.payload.name for e in session.events_of(ToolCallEvent)] == ["find_customer_by_email"]
    users = [e.payload.content for e in session.of_kind(EventKind.user_message)]
    assert users == [turns[0].user, turns[1].user]


def test_nothing_to_fork_is_said_and_stores_nothing(tmp_path: Path) -> None:
    good = _records()[0]  # passed: no divergence
    path = write_jsonl(tmp_path / "log.jsonl", [good])
    store = tmp_path / "s.duckdb"
    result = runner.invoke(
        app, ["rerun", str(path), "--model", SILENT, "--fork-at", "divergence", "--store",
              str(store)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "none: nothing forked" in result.output and "no transcript was forked" in result.output
    assert "report not written" not in result.output and not store.exists()
