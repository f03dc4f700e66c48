"""The user's own tool calls (dual control) in the transcript, the HTML trace and the fault
boundaries: shown as the user's, never counted as the agent's."""

from __future__ import annotations

from rich.console import Console

from sessionproof.agents import OracleAgent
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.engine import run_session
from sessionproof.engine._internal import SessionPlan
from sessionproof.engine._runner import user_for
from sessionproof.records import Action, Criteria, Scenario, Session, UserSpec
from sessionproof.report._internal import render_transcript
from sessionproof.report.html._data import event_rows
from sessionproof.scoring._internal import boundaries_json
from sessionproof.suites import Suite

from ..engine import world  # noqa: F401  (registers the counter domain)


async def dual_session(arm: str) -> Session:
    sc = Scenario(
        id="dual",
        domain="counter",
        user=UserSpec(
            turns=["hello"],
            tools="counter",
            actions=[Action(tool="add", args={"name": "a", "by": 2})],
        ),
        criteria=Criteria(gold_actions=[Action(tool="add", args={"name": "b", "by": 1})]),
    )
    plan = SessionPlan(
        run_id="r",
        session_id="s",
        scenario=sc,
        trial=0,
        arm=arm,
        hooks=hooks_for(parse_arm(arm), 1),
    )
    return await run_session(plan, Suite("t", [sc]), OracleAgent(), user_for(sc, None))


async def test_the_transcript_shows_the_users_calls_as_the_users() -> None:
    console = Console(record=True, width=200)
    render_transcript(console, await dual_session("baseline"))
    text = console.export_text()
    assert 'user → add({"name": "a", "by": 2})' in text
    assert "  → add(" in text  # the agent's own call, apart


async def test_the_html_trace_marks_the_users_calls_and_faults() -> None:
    rows = event_rows(await dual_session("user_faults=unavailable:100%"))
    texts = [r[1] for r in rows]
    assert any(t.startswith("user: add(") for t in texts)
    assert any(t.startswith("user: add → [unavailable injected]") for t in texts)
    assert any("on the user's add" in t for t in texts if "unavailable" in t)


async def test_faults_on_the_users_tools_are_no_boundary_of_the_agents() -> None:
    on_user = await dual_session("user_faults=unavailable:100%")
    assert boundaries_json({"user_faults=unavailable:100%": [on_user]}) == {}
    on_agent = await dual_session("faults=unavailable:100%")
    counts = boundaries_json({"a": [on_agent]})
    assert counts["a"]["tool"] == {"absorbed": {}, "surfaced": {"unavailable": 1}}


async def test_faults_on_the_users_tools_are_none_of_the_agents_recovery_or_detection() -> None:
    from sessionproof.scoring import run_metrics

    on_user = await dual_session("user_faults=unavailable:100%")
    on_agent = await dual_session("faults=unavailable:100%")
    suite = Suite("t", [])
    user_side = run_metrics([on_user], {}, suite.domain_for)
    agent_side = run_metrics([on_agent], {}, suite.domain_for)
    assert user_side.error_recovery.get("failures", 0) == 0
    assert user_side.faults is None
    assert agent_side.error_recovery["failures"] == 1
    assert agent_side.faults is not None


async def test_the_arms_table_counts_the_users_faults_apart() -> None:
    from sessionproof.report.html._arms import arms_section
    from sessionproof.report.html._data import ReportRun
    from sessionproof.scoring import run_metrics

    arms = {"baseline": "baseline", "u": "user_faults=unavailable:100%"}
    sessions = [await dual_session(spec) for spec in arms.values()]
    suite = Suite("t", [])
    metrics = {s.arm: run_metrics([s], {}, suite.domain_for) for s in sessions}
    html = arms_section([ReportRun("r", "run", "t", "oracle", metrics, sessions)])
    assert "<td>0 (+1 on the user&#x27;s tools)</td>" in html
