"""A trace exported without content carries no arguments: its call metrics are not measured
(None, "not measured"), never 0%; with content they are measured as before."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.runs import RunConfig, export_traces, import_traces, metrics, run
from sessionproof.store import Store

runner = CliRunner()


def _imported(tmp_path: Path, content: bool) -> tuple[str, Path]:
    store = tmp_path / "run.duckdb"
    if not store.exists():
        run(RunConfig(suite="demo", model="oracle", limit=3, store=store))
    with Store.open(store, read_only=True) as db:
        run_id = db.list_runs()[0].run_id
    trace = tmp_path / f"trace-{content}.json"
    export_traces(run_id, store=store, output=trace, content=content)
    into = tmp_path / f"import-{content}.duckdb"
    return import_traces(trace, store=into).run_id, into


def test_an_import_without_content_does_not_report_call_accuracy_as_zero(tmp_path: Path) -> None:
    run_id, store = _imported(tmp_path, content=False)
    calls = metrics(run_id, store).arms["baseline"].calls
    assert calls is not None
    assert calls.call_validity_rate is None and calls.single_call_accuracy is None
    assert calls.unmeasured_sessions == 3 and calls.calls == 0
    shown = runner.invoke(app, ["show", run_id, "--metrics", "--store", str(store)]).stdout
    assert "not measured" in shown and "0.0%  [0/" not in shown


def test_with_content_the_calls_are_measured(tmp_path: Path) -> None:
    run_id, store = _imported(tmp_path, content=True)
    calls = metrics(run_id, store).arms["baseline"].calls
    assert calls is not None and calls.unmeasured_sessions == 0
    assert calls.call_validity_rate == 1.0 and calls.single_call_accuracy == 1.0
