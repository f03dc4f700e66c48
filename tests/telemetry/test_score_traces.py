"""`score`, `rerun` and `patterns` read trace files like `import` does: the formats come from
the importers' registry, and `--label-from` reaches the reader through each of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.patterns import MineOptions
from sessionproof.runs import RunReport, export_traces, patterns, rerun, score
from sessionproof.runs._internal import SCORE_FORMATS
from sessionproof.store import Store
from sessionproof.suites._score_report import ScoreReport

from .test_import_malformed import _attr, _file, _session

CANCELLER = "python:tests.rerun.agents:canceller"


@pytest.mark.parametrize("fmt", ["otlp-json", "otlp-proto", "atif", "inspect"])
def test_score_lists_every_import_format(fmt: str) -> None:
    assert fmt in SCORE_FORMATS


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["otlp-json", "otlp-proto"])
def test_score_judges_an_exported_run_again_and_agrees(
    faulty_run: tuple[Path, RunReport], tmp_path: Path, fmt: str
) -> None:
    store, report = faulty_run
    trace = tmp_path / "t.otlp"
    export_traces(report.run_id, store=store, fmt=fmt, output=trace, content=True)
    scored = score(trace, fmt=fmt, store=tmp_path / "scored.duckdb")
    assert isinstance(scored, ScoreReport)
    assert scored.format == fmt and scored.errors == []
    assert scored.sessions == report.summary.sessions
    # Each session's scenario rides on the trace's resource: every one is judged again, and
    # our verdict of the imported calls is the verdict the run gave.
    assert scored.graded == report.summary.sessions - report.summary.infra_errors
    assert scored.agreement_reward.total == scored.sessions
    assert scored.agreement_reward.match == scored.agreement_reward.total
    assert scored.session_accuracy == report.summary.session_accuracy


def test_rerun_reads_an_exported_trace(faulty_run: tuple[Path, RunReport], tmp_path: Path) -> None:
    store, report = faulty_run
    trace = tmp_path / "t.json"
    export_traces(report.run_id, store=store, fmt="otlp-json", output=trace, content=True)
    with Store.open_for_reading(store) as db:
        originals = {s.session_id: s for s in db.load_sessions(report.run_id)}
    done = rerun(trace, CANCELLER, fmt="otlp-json", store=None, limit=3)
    assert done.format == "otlp-json" and done.skipped == []
    assert len(done.transcripts) == 3
    for item in done.transcripts:
        outcome = originals[item.id].outcome
        assert outcome is not None and item.original is outcome.success
        assert len(item.rerun) == 1


def _labelled_traces(tmp_path: Path) -> Path:
    """Six foreign sessions over two scenarios: those whose `cancel` call failed are the
    thumbs-down ones, so the failure pattern is the error before the label."""
    spans: list[dict[str, Any]] = []
    for k in range(6):
        trace = f"{k + 1:x}" * 32
        session = _session(trace, f"conv-{k}", 100 + 10 * k)
        failed = k % 2 == 0
        if not failed:
            session[3]["attributes"] = [
                a for a in session[3]["attributes"] if a["key"] != "error.type"
            ]
            session[3].pop("status")
        root = session[0]["attributes"]
        root.append(_attr("sessionproof.scenario.id", f"task-{k // 3}"))
        root.append(_attr("user.feedback", "thumbs_down" if failed else "thumbs_up"))
        spans += session
    return _file(tmp_path, spans)


def test_patterns_mines_a_trace_file_with_label_from(tmp_path: Path) -> None:
    path = _labelled_traces(tmp_path)
    mined = patterns(
        str(path),
        label_from="user.feedback",
        options=MineOptions(min_support=1, early_warning=False),
    )
    assert mined.skipped_records == 0
    assert mined.report.sessions == 6 and mined.report.failures == 3
    tokens = " ".join(f.pattern for f in mined.report.findings + mined.report.exploratory)
    assert "result:cancel:rate_limited" in tokens


def test_score_takes_label_from_and_stores_the_outcomes(tmp_path: Path) -> None:
    path = _labelled_traces(tmp_path)
    store = tmp_path / "s.duckdb"
    scored = score(path, store=store, label_from="user.feedback")
    assert isinstance(scored, ScoreReport) and scored.errors == []
    reported = sorted(s.reported_reward for s in scored.scores if s.reported_reward is not None)
    assert reported == [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    with Store.open_for_reading(store) as db:
        stored = db.load_sessions(scored.run_id)
    assert sorted(bool(s.outcome and s.outcome.success) for s in stored) == [False] * 3 + [True] * 3
    summary = json.dumps(scored.summary())
    assert "skipped" in summary
