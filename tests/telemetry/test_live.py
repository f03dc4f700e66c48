"""The live export: spans built and sent in a worker process, never on the run's GIL."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from sessionproof.records import Session
from sessionproof.runs import RunReport
from sessionproof.store import Store
from sessionproof.telemetry import LiveExport, _live, _spans, run_spans

from .test_otlp_receiver import _spans as received_spans
from .test_otlp_receiver import receiver  # noqa: F401  (the fixture)

Received = tuple[str, list[tuple[str, dict[str, str], bytes]]]


def _sessions(store: Path, run_id: str) -> list[Session]:
    with Store.open_for_reading(store) as db:
        return db.load_sessions(run_id)


def test_spans_are_built_outside_the_runs_process(
    faulty_run: tuple[Path, RunReport],
    receiver: Received,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store, report = faulty_run
    url, received = receiver
    sessions = _sessions(store, report.run_id)
    _, expected = run_spans(report.run_id, store=store)

    def no_spans_here(*args: object, **kwargs: object) -> None:
        raise AssertionError("span building ran in the run's process")

    # The worker imports its own copy of the builder; this process's must stay unused.
    monkeypatch.setattr(_spans._Builder, "add", no_spans_here)
    with LiveExport(None, url, suite="demo") as live:
        for session in sessions:
            live.advance(session)
    got = received_spans(received)
    assert live.error is None
    assert live.spans == len(got) == len(expected) > 0
    assert sorted(s.name for s in got) == sorted(s.name for s in expected)


def test_a_dead_worker_is_logged_and_the_run_goes_on(
    faulty_run: tuple[Path, RunReport],
    receiver: Received,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    store, report = faulty_run
    url, _ = receiver
    monkeypatch.setattr(_live, "WORKER", ("-c", "import sys; sys.exit(3)"))
    live = LiveExport(None, url)
    for session in _sessions(store, report.run_id):
        live.advance(session)  # never blocks, never raises
    with caplog.at_level(logging.WARNING, logger=_live.__name__):
        live.close()
    assert live.error is not None and "exit 3" in live.error
    assert "sessionproof export" in caplog.text
    assert live.spans == 0


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
