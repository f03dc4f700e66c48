"""Each metric, not only the verdict, leaves as a `gen_ai.evaluation.result` event parented to
the span it judges: session metrics on `invoke_agent`, call metrics on `execute_tool`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan

from sessionproof.domains import get_domain
from sessionproof.records import Session
from sessionproof.runs import RunReport
from sessionproof.scoring._internal import check_calls, error_recovery, session_survival
from sessionproof.store import Store
from sessionproof.suites import load_suite
from sessionproof.telemetry import run_spans

EVALUATION = "gen_ai.evaluation.result"


def _evals(span: ReadableSpan) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for event in span.events:
        if event.name == EVALUATION:
            attrs = dict(event.attributes or {})
            out[str(attrs["gen_ai.evaluation.name"])] = attrs
    return out


def _sessions(store: Path, run_id: str) -> dict[str, Session]:
    with Store.open_for_reading(store) as db:
        return {s.session_id: s for s in db.load_sessions(run_id)}


@pytest.mark.slow
def test_session_metrics_are_evaluation_events_on_the_agent_span(
    faulty_run: tuple[Path, RunReport],
) -> None:
    store, report = faulty_run
    _, spans = run_spans(report.run_id, store=store)
    sessions = _sessions(store, report.run_id)
    scenarios = {s.id: s for s in load_suite("demo").scenarios}
    roots = [s for s in spans if s.parent is None]
    assert len(roots) == len(sessions) > 0
    recovered = 0
    for root in roots:
        session = sessions[str((root.attributes or {})["gen_ai.conversation.id"])]
        evals = _evals(root)
        assert "session_success" in evals
        rate = error_recovery([session]).rate
        if rate is None:
            assert "error_recovery_rate" not in evals
        else:
            recovered += 1
            assert evals["error_recovery_rate"]["gen_ai.evaluation.score.value"] == rate
        scenario = scenarios[session.scenario_id]
        survival = session_survival(session, scenario, get_domain(scenario.domain))
        got = evals["survival_by_depth"]
        kind = "on_path" if survival.divergence is None else survival.divergence.kind.value
        assert got["gen_ai.evaluation.score.label"] == kind
        assert (
            f"{survival.survived} of {survival.decisions}" in got["gen_ai.evaluation.explanation"]
        )
        failed = session.outcome is not None and not session.outcome.success
        assert ("failure_source" in evals) == (failed or session.infra_error)
    assert recovered > 0  # the fault plan made failures to recover from


def test_call_metrics_are_evaluation_events_on_their_tool_span(
    faulty_run: tuple[Path, RunReport],
) -> None:
    store, report = faulty_run
    _, spans = run_spans(report.run_id, store=store)
    sessions = _sessions(store, report.run_id)
    scenarios = {s.id: s for s in load_suite("demo").scenarios}
    by_call: dict[tuple[int, str], ReadableSpan] = {}
    for span in spans:
        call_id = (span.attributes or {}).get("gen_ai.tool.call.id")
        if isinstance(call_id, str) and span.context is not None:
            by_call.setdefault((span.context.trace_id, call_id), span)
    trace_of = {
        str((s.attributes or {})["gen_ai.conversation.id"]): s.context.trace_id
        for s in spans
        if s.parent is None and s.context is not None
    }
    judged = 0
    for session_id, session in sessions.items():
        scenario = scenarios[session.scenario_id]
        for check in check_calls(session, scenario, get_domain(scenario.domain)):
            evals = _evals(by_call[(trace_of[session_id], check.call_id)])
            validity = evals["call_validity_rate"]
            assert validity["gen_ai.evaluation.score.value"] == float(bool(check.valid))
            if check.targets_gold_tool:
                judged += 1
                matched = check.matched_gold is not None
                accuracy = evals["single_call_accuracy"]
                assert accuracy["gen_ai.evaluation.score.label"] == (
                    "matched" if matched else "unmatched"
                )
    assert judged > 0


def test_every_evaluation_event_names_its_metric_and_gives_a_score_or_label(
    faulty_run: tuple[Path, RunReport],
) -> None:
    store, report = faulty_run
    _, spans = run_spans(report.run_id, store=store)
    events = [e for s in spans for e in s.events if e.name == EVALUATION]
    assert events
    for event in events:
        attrs = dict(event.attributes or {})
        assert isinstance(attrs.get("gen_ai.evaluation.name"), str)
        assert "gen_ai.evaluation.score.value" in attrs or "gen_ai.evaluation.score.label" in attrs
