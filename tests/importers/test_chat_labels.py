"""Outcome labels in JSONL chat logs (issue 38 item 6): a line's own `outcome`, or the key
`--label-from` names (a dotted path, `NAME>=N` for a score), is stored as the session's
verdict, a `label` criterion saying it is the file's word; a line without a label stays
unjudged and is counted; a value that is no label, or a missing key, is one warning naming
the line, and the session is kept; an empty file is one line, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.errors import ConfigError, InputFileError
from sessionproof.importers import import_file
from sessionproof.importers._internal import LabelRule
from sessionproof.store import Store

runner = CliRunner()


def _messages(ask: str) -> list[dict[str, Any]]:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_order", "arguments": json.dumps({"order_id": "O1"})},
    }
    return [
        {"role": "user", "content": ask},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"status": "pending"})},
        {"role": "assistant", "content": "It is pending."},
    ]


def _log(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    path = tmp_path / "chat.jsonl"
    lines = [
        json.dumps({"id": f"s{i}", "messages": _messages(f"order {i}?"), **r})
        for i, r in enumerate(records)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _cli(*args: str) -> tuple[int, dict[str, Any] | None, str]:
    done = runner.invoke(app, list(args))
    out = json.loads(done.stdout) if done.stdout.strip().startswith("{") else None
    return done.exit_code, out, done.output


def test_a_lines_outcome_is_stored_as_its_label_verdict(tmp_path: Path) -> None:
    log = _log(tmp_path, [{"outcome": "success"}, {"outcome": False}, {}])
    store = tmp_path / "s.duckdb"
    code, out, output = _cli("import", str(log), "--store", str(store), "--json")
    assert code == 0, output
    assert out is not None and out["sessions"] == 3 and out["judged"] == 2  # the third counted
    with Store.open_for_reading(store) as db:
        sessions = {s.session_id: s for s in db.load_sessions(out["run_id"])}
    assert {k: s.verdict for k, s in sessions.items()} == {"s0": True, "s1": False, "s2": None}
    first = sessions["s0"].outcome
    assert first is not None and first.reward == 1.0
    (criterion,) = first.criteria
    assert criterion.name == "label" and criterion.evidence == "outcome: 'success'"
    assert sessions["s2"].outcome is None  # no label: unjudged, never a failure


def test_label_from_reads_a_dotted_key_and_a_threshold(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        [
            {"meta": {"feedback": "thumbs_up", "score": 0.9}, "outcome": False},
            {"meta": {"feedback": "thumbs_down", "score": 0.2}, "outcome": True},
        ],
    )
    words = import_file(log, "auto", run_id="r", label_from=LabelRule.parse("meta.feedback"))
    assert words.errors == []
    # The label named wins over the line's `outcome`.
    assert [i.session.verdict for i in words.sessions] == [True, False]
    assert [i.reported.success if i.reported else None for i in words.sessions] == [True, False]
    scored = import_file(log, "openai", run_id="r", label_from=LabelRule.parse("meta.score>=0.5"))
    got = [
        (i.session.verdict, i.session.outcome.reward if i.session.outcome else None)
        for i in scored.sessions
    ]
    assert got == [(True, 0.9), (False, 0.2)]


def test_the_anthropic_flavour_takes_labels_too(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    record = {
        "id": "a0",
        "system": "You help.",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
        ],
        "rating": "good",
    }
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = import_file(path, "auto", run_id="r", label_from=LabelRule("rating"))
    assert result.format == "anthropic" and result.errors == []
    assert result.sessions[0].session.verdict is True


@pytest.mark.parametrize(
    ("record", "said"),
    [
        ({"fb": "maybe"}, "line 2: fb='maybe' is not a pass/fail label"),
        ({"fb": {"up": 1}}, "line 2: fb={'up': 1} is not a pass/fail label"),
        ({"fb": 0.5}, "line 2: fb=0.5 is a score, not a pass/fail label"),
        ({}, "line 2 has no 'fb'"),
        ({"fb": None}, "line 2: 'fb' is null"),
    ],
    ids=["word", "object", "score", "missing", "null"],
)
def test_a_bad_or_missing_label_is_one_warning_naming_the_line(
    tmp_path: Path, record: dict[str, Any], said: str
) -> None:
    log = _log(tmp_path, [{"fb": "yes"}, record])
    store = tmp_path / "s.duckdb"
    code, out, output = _cli(
        "import", str(log), "--label-from", "fb", "--store", str(store), "--json"
    )
    assert code == 1, output  # kept with a warning
    assert out is not None and out["sessions"] == 2 and out["judged"] == 1
    warnings = [line for line in output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and said in warnings[0] and "(s1)" in warnings[0]
    with Store.open_for_reading(store) as db:
        verdicts = [s.verdict for s in db.load_sessions(out["run_id"])]
    assert verdicts == [True, None]  # nothing lost, nothing guessed


def test_a_bad_outcome_names_its_line(tmp_path: Path) -> None:
    result = import_file(
        _log(tmp_path, [{"outcome": "pass"}, {"outcome": "meh"}]), "openai", run_id="r"
    )
    (warned,) = result.errors
    assert not warned.fatal and warned.message.startswith("line 2: 'meh' is not an outcome")
    assert [i.session.verdict for i in result.sessions] == [True, None]


def test_an_empty_chat_log_is_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputFileError, match="the file is empty"):
        import_file(empty, "openai", run_id="r", label_from=LabelRule("fb"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sessionproof.cli",
            "import",
            str(empty),
            "--format",
            "openai",
            "--label-from",
            "fb",
            "--store",
            str(tmp_path / "s.duckdb"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [f"error: {empty}: the file is empty"]


def test_a_key_no_line_has_is_one_line_and_stores_nothing(tmp_path: Path) -> None:
    log = _log(tmp_path, [{"feedback": "up"}, {"feedback": "down"}])
    with pytest.raises(ConfigError, match=r"--label-from fedback: no line of .* has 'fedback'"):
        import_file(log, "openai", run_id="r", label_from=LabelRule("fedback"))
    store = tmp_path / "s.duckdb"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sessionproof.cli",
            "import",
            str(log),
            "--label-from",
            "fedback",
            "--store",
            str(store),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert not store.exists()  # nothing half-stored


def test_an_outcome_objects_evidence_is_only_what_was_read(tmp_path: Path) -> None:
    outcome = {"success": "pass", "reward": 1, "note": "call back on 555-0100"}
    result = import_file(_log(tmp_path, [{"outcome": outcome}]), "openai", run_id="r")
    session = result.sessions[0].session
    assert session.verdict is True and session.outcome is not None
    (criterion,) = session.outcome.criteria
    assert criterion.evidence == "outcome: {'success': 'pass', 'reward': 1}"


def test_a_log_of_unrated_lines_is_stored_unjudged(tmp_path: Path) -> None:
    # Null is "not rated yet", not a misspelt key: every line kept, each said.
    result = import_file(
        _log(tmp_path, [{"fb": None}, {"fb": None}]),
        "openai",
        run_id="r",
        label_from=LabelRule("fb"),
    )
    assert [i.session.outcome for i in result.sessions] == [None, None]
    assert [e.message.split(":")[0] for e in result.errors] == ["line 1", "line 2"]
