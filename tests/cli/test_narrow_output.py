"""Terminal output that survives pipes and 80 columns: run ids, session ids and arm names are
never cut; a failed criterion's mismatches are shown under it in `show --session`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.records import CriterionResult, Outcome
from sessionproof.records._internal import Mismatch
from sessionproof.report._internal import render_table, render_transcript
from sessionproof.store import Store
from tests.store.factory import session

runner = CliRunner()
LONG_ARM = "faults=30% drift=rename_param:50%@1 guard"
SESSION_ID = "cancel-pending-order-by-mistake-and-refund.t0.a1"


def _rendered(terminal: bool) -> str:
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=terminal, color_system=None)
    rows = [[SESSION_ID, LONG_ARM, "pass", "user_stop", "4", "2", "0"]]
    cols = ["session", "arm", "verdict", "termination", "steps", "calls", "errors"]
    render_table(console, "sessions", cols, rows, keep=(0, 1))
    return out.getvalue()


def test_ids_and_arm_names_are_never_cut_at_80_columns_on_a_terminal_or_a_pipe() -> None:
    for terminal in (True, False):
        text = _rendered(terminal)
        assert text.startswith("sessions")
        assert SESSION_ID in text and LONG_ARM in text, text
        assert "…" not in text


@pytest.mark.slow
def test_show_and_runs_through_a_pipe_at_80_columns_keep_every_id(tmp_path: Path) -> None:
    store = str(tmp_path / "s.duckdb")
    args = ["--suite", "demo", "--model", "oracle", "--limit", "2", "--store", store]
    arms = ["--arm", "baseline", "--arm", LONG_ARM]
    env = {"COLUMNS": "80"}
    ran = runner.invoke(app, ["run", *args, *arms, "--json", "--no-report"], env=env)
    assert ran.exit_code == 0, ran.output
    run_id = json.loads(ran.stdout)["run_id"]
    listed = runner.invoke(app, ["runs", "--store", store], env=env).stdout
    assert run_id in listed and f"{LONG_ARM}: 100.0%" in listed  # accuracy per arm, uncut
    shown = runner.invoke(app, ["show", run_id, "--store", store], env=env).stdout
    with Store.open(Path(store), read_only=True) as db:
        ids = [r.session_id for r in db.session_rows(run_id)]
    assert ids and all(i in shown for i in ids)
    assert f"arm {LONG_ARM}" in shown and "…" not in shown
    text = runner.invoke(
        app, ["run", *args, *arms, "--store", str(tmp_path / "t.duckdb"), "--no-report"], env=env
    ).stdout
    assert LONG_ARM in text and f"{LONG_ARM} vs baseline" in text


def test_a_failed_criterion_shows_where_what_was_expected_and_what_was_found() -> None:
    failed = CriterionResult(
        name="db",
        passed=False,
        evidence="final state differs",
        details=[
            Mismatch(where="orders.O1.status", expected="cancelled", actual="pending"),
            Mismatch(where="transfer[0].amount", expected=12.5, missing=True),
        ],
    )
    s = session("r1", "cancel", 0).model_copy(
        update={"outcome": Outcome(success=False, reward=0.0, criteria=[failed])}
    )
    out = io.StringIO()
    render_transcript(Console(file=out, width=80, color_system=None), s)
    text = out.getvalue()
    assert 'at orders.O1.status: expected "cancelled", actual "pending"' in text
    assert "at transfer[0].amount: expected 12.5, actual (missing)" in text


def test_the_transcript_of_a_session_nothing_judged_says_why() -> None:
    s = session("r1", "b", 0).model_copy(
        update={"outcome": Outcome(success=False, reward=0.0, not_judged="nothing to check")}
    )
    out = io.StringIO()
    render_transcript(Console(file=out, width=200, color_system=None), s)
    assert "verdict: not judged (nothing to check)" in out.getvalue()
