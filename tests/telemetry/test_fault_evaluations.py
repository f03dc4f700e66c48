"""Fault detection and fault recovery leave as `gen_ai.evaluation.result` events on the
session's `invoke_agent` span of a trace export, for the sessions that met a fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionproof.domains import get_domain
from sessionproof.runs import RunReport
from sessionproof.scoring._internal import faults_report
from sessionproof.store import Store
from sessionproof.telemetry import run_spans

from .test_evaluations import _evals


@pytest.mark.slow
def test_detection_and_recovery_are_evaluation_events(
    faulty_run: tuple[Path, RunReport],
) -> None:
    store, report = faulty_run
    _, spans = run_spans(report.run_id, store=store)
    with Store.open_for_reading(store) as db:
        sessions = {s.session_id: s for s in db.load_sessions(report.run_id)}
    writes = {t.name for t in get_domain("demo").tools() if t.write}
    faulted = 0
    for root in (s for s in spans if s.parent is None):
        session = sessions[str((root.attributes or {})["gen_ai.conversation.id"])]
        evals = _evals(root)
        found = faults_report([session], lambda s: writes)
        if found is None or session.infra_error:
            assert "fault_detection_rate" not in evals and "fault_recovery_rate" not in evals
            continue
        faulted += 1
        detection = evals["fault_detection_rate"]
        assert detection["gen_ai.evaluation.score.value"] == found.overall.detection.rate
        assert f"of {found.overall.detection.n} faulted calls" in str(
            detection["gen_ai.evaluation.explanation"]
        )
        recovery = evals.get("fault_recovery_rate")
        if session.verdict is None:
            assert recovery is None
        else:
            assert recovery is not None
            assert recovery["gen_ai.evaluation.score.value"] == found.overall.recovery.rate
            label = "recovered" if found.overall.recovery.hits else "unrecovered"
            assert recovery["gen_ai.evaluation.score.label"] == label
    assert faulted > 0
