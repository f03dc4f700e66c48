"""`--label-from ATTR`: a session's outcome from the span attribute, span event attribute or
evaluation event that carries its label; values read as pass/fail, a score needs a pass mark,
an unmappable value is a warning naming the span and the session is kept without outcome."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sessionproof.errors import ConfigError
from sessionproof.importers import import_file
from sessionproof.importers._internal import LabelRule
from sessionproof.records._internal import VerdictEvent
from sessionproof.runs import import_traces
from sessionproof.store import Store

from .test_import_malformed import T1, T2, _attr, _file, _session


def _with_root_attr(spans: list[dict[str, Any]], key: str, value: Any) -> list[dict[str, Any]]:
    spans[0]["attributes"].append(_attr(key, value))
    return spans


@pytest.mark.parametrize(
    ("value", "success"),
    [
        ("thumbs_down", False),
        ("thumbs_up", True),
        ("PASS", True),
        ("failure", False),
        (True, True),
        (0, False),
        (1, True),
        ("Correct", True),
    ],
)
def test_a_root_attribute_label_is_the_outcome(tmp_path: Path, value: Any, success: bool) -> None:
    spans = _with_root_attr(_session(T1, "conv-1", 100), "user.feedback", value)
    result = import_file(
        _file(tmp_path, spans), "auto", run_id="r", label_from=LabelRule.parse("user.feedback")
    )
    assert result.errors == []
    (item,) = result.sessions
    outcome = item.session.outcome
    assert outcome is not None and outcome.success is success
    assert item.reported is not None and item.reported.success is success
    verdicts = item.session.events_of(VerdictEvent)
    assert len(verdicts) == 1 and verdicts[0].payload == outcome
    assert [e.seq for e in item.session.events] == list(range(len(item.session.events)))


def test_without_label_from_a_foreign_trace_has_no_outcome(tmp_path: Path) -> None:
    spans = _with_root_attr(_session(T1, "conv-1", 100), "user.feedback", "thumbs_up")
    (item,) = import_file(_file(tmp_path, spans), "auto", run_id="r").sessions
    assert item.session.outcome is None and item.reported is None


def test_a_label_on_a_child_span_and_an_evaluation_event_are_found(tmp_path: Path) -> None:
    a = _session(T1, "conv-1", 100)
    a[2]["attributes"].append(_attr("langfuse.score", "fail"))
    b = _session(T2, "conv-2", 100)
    b[1]["events"] = [
        {
            "name": "gen_ai.evaluation.result",
            "timeUnixNano": str(102 * 10**9),
            "attributes": [
                _attr("gen_ai.evaluation.name", "langfuse.score"),
                _attr("gen_ai.evaluation.score.label", "pass"),
            ],
        }
    ]
    result = import_file(
        _file(tmp_path, a + b), "auto", run_id="r", label_from=LabelRule.parse("langfuse.score")
    )
    assert result.errors == []
    outcomes = {i.session.session_id: i.session.outcome for i in result.sessions}
    assert outcomes["conv-1"] is not None and outcomes["conv-1"].success is False
    assert outcomes["conv-2"] is not None and outcomes["conv-2"].success is True


def test_a_numeric_score_needs_a_pass_mark(tmp_path: Path) -> None:
    spans = _with_root_attr(_session(T1, "conv-1", 100), "quality", "0.8")
    path = _file(tmp_path, spans)
    result = import_file(path, "auto", run_id="r", label_from=LabelRule.parse("quality"))
    (problem,) = result.errors
    assert not problem.fatal and "quality>=N" in problem.message
    assert result.sessions[0].session.outcome is None
    passed = import_file(path, "auto", run_id="r", label_from=LabelRule.parse("quality>=0.75"))
    outcome = passed.sessions[0].session.outcome
    assert outcome is not None and outcome.success and outcome.reward == pytest.approx(0.8)
    failed = import_file(path, "auto", run_id="r", label_from=LabelRule.parse("quality >= 0.9"))
    assert failed.sessions[0].session.outcome is not None
    assert failed.sessions[0].session.outcome.success is False


def test_an_unmappable_value_names_the_span_and_keeps_the_session(tmp_path: Path) -> None:
    spans = _session(T1, "conv-1", 100)
    spans[3]["attributes"].append(_attr("user.feedback", "meh"))
    result = import_file(
        _file(tmp_path, spans), "auto", run_id="r", label_from=LabelRule.parse("user.feedback")
    )
    (problem,) = result.errors
    assert not problem.fatal
    assert "span #3 'execute_tool cancel'" in problem.message and "'meh'" in problem.message
    assert len(result.sessions) == 1 and result.sessions[0].session.outcome is None


def test_a_session_without_the_label_is_named(tmp_path: Path) -> None:
    a = _with_root_attr(_session(T1, "conv-1", 100), "verdict", "pass")
    b = _session(T2, "conv-2", 100)
    result = import_file(
        _file(tmp_path, a + b), "auto", run_id="r", label_from=LabelRule.parse("verdict")
    )
    (problem,) = result.errors
    assert problem.record_id == "conv-2" and "no span" in problem.message
    assert {i.session.session_id for i in result.sessions} == {"conv-1", "conv-2"}


def test_bad_specs_and_formats_without_labels_are_config_errors(tmp_path: Path) -> None:
    for spec in ("", ">=1", "x>=abc", "x>=nan"):
        with pytest.raises(ConfigError, match="--label-from"):
            LabelRule.parse(spec)
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
    with pytest.raises(ConfigError, match="--label-from"):
        import_file(chat, "auto", run_id="r", label_from=LabelRule.parse("x"))


@pytest.mark.slow
def test_import_stores_the_labels_and_the_cli_takes_the_flag(tmp_path: Path) -> None:
    a = _with_root_attr(_session(T1, "conv-1", 100), "user.feedback", "thumbs_down")
    b = _with_root_attr(_session(T2, "conv-2", 100), "user.feedback", "thumbs_up")
    path = _file(tmp_path, a + b)
    store = tmp_path / "s.duckdb"
    report = import_traces(path, store=store, label_from="user.feedback")
    assert report.summary.sessions == 2 and report.summary.successes == 1
    with Store.open_for_reading(store) as db:
        sessions = {s.session_id: s for s in db.load_sessions(report.run_id)}
    assert sessions["conv-1"].outcome is not None and not sessions["conv-1"].outcome.success
    assert sessions["conv-2"].outcome is not None and sessions["conv-2"].outcome.success
    cli = Path(sys.executable).with_name("sessionproof")
    args = ["import", str(path), "--label-from", "user.feedback", "--json"]
    done = subprocess.run(
        [str(cli), *args, "--store", str(tmp_path / "t.duckdb")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["successes"] == 1
