"""`report --audit`: the audit of the run's suite as a section of the run's own report."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.cli._internal import app


def test_the_report_carries_the_audit_of_its_runs_suite(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    done = runs.run(runs.RunConfig(suite="quickstart", model="oracle", store=store))
    page = tmp_path / "r.html"
    result = CliRunner().invoke(
        app, ["report", done.run_id, "-o", str(page), "--store", str(store), "--audit"]
    )
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    assert 'id="audit"' in html and "Audit of quickstart" in html
    # The audit's own finding on this suite (a read-only task's vacuous state check) is in it.
    assert "order-status-shipped" in html and "gold_state" in html
    plain = tmp_path / "plain.html"
    runs.report([done.run_id], plain, store)
    assert 'id="audit"' not in plain.read_text(encoding="utf-8")


def test_a_run_whose_suite_cannot_be_audited_says_so(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    done = runs.run(runs.RunConfig(suite="quickstart", model="oracle", store=store))
    # A run of a suite that no longer resolves (here: renamed in the store) is reported
    # without the section, and the report says why.
    import duckdb

    with duckdb.connect(str(store)) as conn:
        conn.execute(
            "UPDATE runs SET suite = 'no-such-suite', manifest = "
            "replace(CAST(manifest AS VARCHAR), '\"quickstart\"', '\"no-such-suite\"')"
        )
    page = runs.report([done.run_id], tmp_path / "r.html", store, audit=True)
    html = page.read_text(encoding="utf-8")
    assert 'id="audit"' not in html
    assert "audit of no-such-suite: not possible" in html
