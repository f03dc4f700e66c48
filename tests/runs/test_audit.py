"""`audit(suite)` / `sessionproof audit SUITE`: every check finds what it is for on tasks with
a planted defect each, passes the sound ones, reads a store's runs of the suite, and refuses
broken input in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.cli._internal import app
from sessionproof.errors import SessionproofError, StoreError, UnknownSuiteError
from sessionproof.records import Action, Criteria, Scenario, UserSpec
from sessionproof.runs import RunConfig
from sessionproof.runs._audit import AuditReport
from sessionproof.suites import Suite
from tests.runs.audit_agent import NEVER

runner = CliRunner()
pytestmark = pytest.mark.slow  # each test runs whole suites or runs (seconds)
EMAIL = "elena.petrova@example.com"
LOOKUP = Action(tool="find_customer_by_email", args={"email": EMAIL})
CANCEL = Action(tool="cancel_order", args={"order_id": "1055", "reason": "ordered_by_mistake"})


def _task(sid: str, **criteria: object) -> Scenario:
    return Scenario(
        id=sid,
        domain="demo",
        user=UserSpec(turns=[f"Hi, I am {EMAIL}. Please help with order 1055."]),
        criteria=Criteria.model_validate(criteria),
    )


PLANTED = Suite(
    "planted",
    [
        # Sound: the write is the goal and the state check sees it.
        _task("sound", gold_actions=[LOOKUP, CANCEL]),
        # A tool the domain does not have: the criteria cannot be met, the oracle fails.
        _task("ghost-tool", gold_actions=[Action(tool="refund_everything", args={})]),
        # An argument the tool does not take.
        _task("ghost-arg", gold_actions=[Action(tool="get_order", args={"id": "1055"})]),
        # Only reads, nothing else checked: doing nothing passes.
        _task("trivial", gold_actions=[LOOKUP]),
        # The write is never checked (no state check, no required call): reading passes.
        _task("leaky", gold_actions=[LOOKUP, CANCEL], compare_state=False, communicate=["1055"]),
        # A state assertion on a path the DB does not have.
        _task("ghost-path", gold_actions=[CANCEL], state={"orders.9999.status": "cancelled"}),
    ],
)


def _flags(report: AuditReport, sid: str) -> dict[str, str]:
    return {f.check: f.severity for f in report.flags if f.scenario == sid}


@pytest.fixture(scope="module")
def planted() -> AuditReport:
    return runs.audit(PLANTED)


def test_each_planted_defect_is_found_and_the_sound_task_is_clean(planted: AuditReport) -> None:
    assert _flags(planted, "sound") == {}
    # A tool the domain lacks: an unmeetable criterion, a gold call that fails, and (its
    # state check seeing no change) a task doing nothing passes.
    assert _flags(planted, "ghost-tool") == {
        "criteria": "error",
        "gold_replay": "warning",
        "gold_state": "warning",
        "do_nothing": "error",
    }
    assert _flags(planted, "ghost-arg")["criteria"] == "error"
    assert _flags(planted, "trivial") == {"do_nothing": "error", "gold_state": "warning"}
    assert _flags(planted, "leaky") == {"read_only": "error"}
    assert _flags(planted, "ghost-path") == {"criteria": "error", "oracle": "error"}
    assert planted.tasks == 6 and planted.readings == ["own"]
    assert planted.oracle == {"pass": 5, "fail": 1, "not judged": 0}
    assert planted.do_nothing_passes == 3 and planted.read_only_passes == 1
    assert not planted.ok
    reasons = {f.scenario + " " + f.check: f.reason for f in planted.flags}
    assert "'refund_everything'" in reasons["ghost-tool criteria"]
    assert (
        "passes id" in reasons["ghost-arg criteria"] or "order_id" in reasons["ghost-arg criteria"]
    )
    assert "cancel_order" in reasons["leaky read_only"]
    assert "orders.9999.status" in reasons["ghost-path criteria"]


def test_the_demo_suite_is_audited_under_its_readings() -> None:
    report = runs.audit("demo")
    assert report.tasks == 16
    assert report.oracle == {"pass": 16, "fail": 0, "not judged": 0}
    # The demo task whose reference hands over to a human: its gold calls leave the state as
    # it was, and the hand-off is a required call, so doing nothing fails it (the audit once
    # found it passed). The read-only tasks' vacuous state check stays a warning.
    assert report.do_nothing_passes == 0 and report.ok
    assert _flags(report, "expired-return-then-transfer") == {"gold_state": "warning"}
    assert _flags(report, "order-status-shipped") == {"gold_state": "warning"}
    wild = runs.audit("wild")
    assert wild.readings == ["own", "gold-prefix"]
    assert wild.ok and wild.oracle["fail"] == 0
    assert wild.oracle["pass"] > wild.tasks  # the gold-prefix sessions are counted too


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("audit") / "s.duckdb"
    agent = "python:tests.runs.audit_agent:respond"
    runs.run(RunConfig(suite="demo", model=agent, trials=2, store=path))
    return path


def test_the_store_lists_tasks_never_passed_and_the_flipping_ones(store: Path) -> None:
    report = runs.audit("demo", store=store)
    assert report.store is not None
    assert len(report.store.runs) == 1
    assert report.store.never_passed == [NEVER]
    assert _flags(report, NEVER)["never_passed"] == "warning"
    # Trial 0 passes, trial 1 does nothing: every task that needs an action flips (the
    # hand-off too: its call is required), and only those.
    assert report.store.flip_rates
    assert set(report.store.flip_rates.values()) == {1.0}
    assert "expired-return-then-transfer" in report.store.flip_rates
    assert NEVER not in report.store.flip_rates


def test_the_cli_prints_json_and_a_table_and_exits_1_on_errors(store: Path, tmp_path: Path) -> None:
    page = tmp_path / "audit.html"
    done = runner.invoke(
        app, ["audit", "demo", "--json", "--store", str(store), "--html", str(page)]
    )
    assert done.exit_code == 0, done.output  # warnings only
    data = json.loads(done.stdout)
    assert data["suite"] == "demo" and data["ok"] is True and data["errors"] == 0
    assert {f["check"] for f in data["flags"]} >= {"gold_state", "never_passed", "flips"}
    html = page.read_text(encoding="utf-8")
    assert 'id="audit"' in html and NEVER in html
    # A suite file whose reference cannot pass its own criteria (a state no gold action
    # reaches): an error, exit status 1.
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        "- id: unreachable\n  domain: demo\n  user: {turns: [hi]}\n  criteria:\n"
        "    state: {orders.1055.status: cancelled}\n",
        encoding="utf-8",
    )
    failed = runner.invoke(app, ["audit", str(broken), "--json"])
    assert failed.exit_code == 1, failed.output
    flagged = json.loads(failed.stdout)
    assert flagged["ok"] is False and flagged["errors"] == 1
    oracle = next(f for f in flagged["flags"] if f["check"] == "oracle")
    assert oracle["scenario"] == "unreachable" and oracle["severity"] == "error"
    # No gold action: the replay's comparison is vacuous, the task's own assertion is not.
    replay = next(f for f in flagged["flags"] if f["check"] == "gold_state")
    assert replay["reason"].startswith("no gold action: the final state's comparison")
    assert replay["reason"].endswith("(its 1 state assertion(s) still apply)")
    table = runner.invoke(app, ["audit", "wild"])
    assert table.exit_code == 0, table.output
    assert "oracle: pass" in table.stdout


def test_broken_input_is_one_clear_error(store: Path, tmp_path: Path) -> None:
    with pytest.raises(UnknownSuiteError, match="unknown suite 'nope'"):
        runs.audit("nope")
    with pytest.raises(StoreError, match=r"has no run of suite 'wild' \(it holds: demo\)"):
        runs.audit("wild", store=store)
    with pytest.raises(StoreError, match="no store at"):
        runs.audit("demo", store=tmp_path / "missing.duckdb")
    done = runner.invoke(app, ["audit", "nope"])
    assert isinstance(done.exception, SessionproofError)
    assert "\n" not in str(done.exception)


def test_the_html_section_escapes_what_a_suite_says() -> None:
    from sessionproof.report.html._internal import audit_page

    hostile = "<script>alert(1)</script>"
    page = audit_page(
        {
            "suite": hostile,
            "tasks": 1,
            "readings": ["own"],
            "oracle": {"pass": 0, "fail": 1, "not judged": 0},
            "flags": [
                {"scenario": hostile, "check": "oracle", "severity": "error", "reason": hostile}
            ],
        }
    )
    assert "<script>" not in page
    # The title, the page heading, the section heading, the task and the reason.
    assert page.count("&lt;script&gt;") == 5
    assert "1 error(s)" in page
