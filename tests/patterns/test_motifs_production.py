"""Production-shaped input: real tau2 trajectories exported as OTLP, their scenario ids
removed, imported with `--label-from`: the same motif analysis, task-signature control, and
the report's pattern map shows the motifs with effect and interval."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "tau"
    / ("gpt-4.1_airline_default_gpt-4.1_1trials.json")
)
runner = CliRunner()
DROPPED = ("sessionproof.scenario.id", "sessionproof.trial", "sessionproof.run.id")


def _ok(*args: str) -> str:
    done = runner.invoke(app, list(args))
    assert done.exit_code == 0, done.output
    return done.stdout


def _without_scenarios(path: Path, out: Path) -> None:
    data: dict[str, Any] = json.loads(path.read_text())
    for rs in data["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                span["attributes"] = [
                    a for a in span.get("attributes", []) if a["key"] not in DROPPED
                ]
    out.write_text(json.dumps(data))


@pytest.mark.slow
def test_an_otlp_import_with_labels_gets_the_adjusted_motif_analysis(tmp_path: Path) -> None:
    store, prod = tmp_path / "s.duckdb", tmp_path / "p.duckdb"
    _ok("score", str(FIXTURE), "--store", str(store), "--json")
    (scored,) = json.loads(_ok("runs", "--store", str(store), "--json"))
    trace = tmp_path / "t.json"
    _ok(
        "export",
        scored["run_id"],
        "--format",
        "otlp-json",
        "--otel-content",
        "-o",
        str(trace),
        "--store",
        str(store),
    )
    bare = tmp_path / "bare.json"
    _without_scenarios(trace, bare)
    assert "sessionproof.scenario.id" not in bare.read_text()
    imported = json.loads(
        _ok("import", str(bare), "--store", str(prod), "--label-from", "session_success", "--json")
    )
    assert imported["judged"] == imported["sessions"] == 20
    from_trace = json.loads(_ok("patterns", imported["run_id"], "--store", str(prod), "--json"))
    from_file = json.loads(_ok("patterns", str(FIXTURE), "--json"))
    assert from_trace["failures"] == from_file["failures"] == 10
    assert from_trace["motif_control"] == "task-signature"
    counts = {m["name"]: (m["failed"], m["passed"]) for m in from_trace["motifs"]}
    assert counts == {m["name"]: (m["failed"], m["passed"]) for m in from_file["motifs"]}
    tested = [m for m in from_trace["motifs"] if m["odds_ratio"] is not None]
    assert tested and all(m["ci"] and m["q_value"] is not None for m in tested)
    html_path = tmp_path / "r.html"
    _ok("report", imported["run_id"], "--store", str(prod), "-o", str(html_path))
    html = html_path.read_text(encoding="utf-8")
    assert "behavioural motifs (adjusted: task-signature strata" in html
    shown = tested[0]
    assert shown["name"] in html
    assert f"{shown['odds_ratio']:.2f} [{shown['ci'][0]:.2f}, {shown['ci'][1]:.2f}]" in html
