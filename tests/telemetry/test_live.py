"""The live export sends, while the run goes on, the metrics that need no gold-path replay."""

from __future__ import annotations

from pathlib import Path

from sessionproof.records import Session
from sessionproof.runs import RunReport
from sessionproof.store import Store
from sessionproof.telemetry import LiveExport

from .test_otlp_receiver import _spans as received_spans
from .test_otlp_receiver import receiver  # noqa: F401  (the fixture)

Received = tuple[str, list[tuple[str, dict[str, str], bytes]]]


def _sessions(store: Path, run_id: str) -> list[Session]:
    with Store.open_for_reading(store) as db:
        return db.load_sessions(run_id)


def test_a_live_export_carries_the_metrics_that_need_no_replay(
    faulty_run: tuple[Path, RunReport],
    receiver: Received,  # noqa: F811
) -> None:
    store, report = faulty_run
    url, received = receiver
    with LiveExport(None, url, suite="demo") as live:
        for session in _sessions(store, report.run_id):
            live.advance(session)
    names: set[str] = set()
    for span in received_spans(received):
        for event in span.events:
            if event.name == "gen_ai.evaluation.result":
                attrs = {kv.key: kv.value.string_value for kv in event.attributes}
                names.add(attrs["gen_ai.evaluation.name"])
    assert {"session_success", "error_recovery_rate", "call_validity_rate"} <= names
    # Replaying the gold path costs about a run's CPU: left to `sessionproof export`.
    assert not names & {"survival_by_depth", "failure_source"}
