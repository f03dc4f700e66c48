"""Export a run, import it, get the same sessions and the same metrics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sessionproof.records import Session
from sessionproof.runs import RunReport, export_traces, import_traces, metrics
from sessionproof.store import Store


def _comparable(session: Session) -> dict[str, Any]:
    data = session.model_dump(mode="json", exclude={"run_id"})
    for event in data["events"]:
        event.pop("run_id")
    return data


def _metrics(run_id: str, store: Path) -> dict[str, Any]:
    found = metrics(run_id, store=store).to_json()
    return {k: v for k, v in found.items() if k not in ("run_id", "command", "suite")}


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["otlp-json", "otlp-proto"])
def test_export_then_import_keeps_sessions_and_metrics(
    faulty_run: tuple[Path, RunReport], tmp_path: Path, fmt: str
) -> None:
    store, report = faulty_run
    trace = tmp_path / "t.otlp"
    export_traces(report.run_id, store=store, fmt=fmt, output=trace, content=True)
    back = tmp_path / "back.duckdb"
    imported = import_traces(trace, fmt=fmt, store=back)
    assert imported.errors == []
    with Store.open_for_reading(store) as db:
        before = sorted((_comparable(s) for s in db.load_sessions(report.run_id)), key=str)
    with Store.open_for_reading(back) as db:
        after = sorted((_comparable(s) for s in db.load_sessions(imported.run_id)), key=str)
    assert after == before
    assert imported.summary == report.summary
    assert _metrics(imported.run_id, back) == _metrics(report.run_id, store)


def test_without_content_the_verdicts_and_the_structure_survive(
    faulty_run: tuple[Path, RunReport], tmp_path: Path
) -> None:
    store, report = faulty_run
    trace = tmp_path / "t.json"
    export_traces(report.run_id, store=store, output=trace)
    assert "gen_ai.tool.call.arguments" not in trace.read_text()
    imported = import_traces(trace, store=None)  # detected as otlp-json
    assert imported.format == "otlp-json"
    assert imported.summary == report.summary
