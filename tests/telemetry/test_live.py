"""The live export sends, while the run goes on, the metrics that need no gold-path replay."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import pytest

from sessionproof.errors import InfraError
from sessionproof.records import Session
from sessionproof.runs import RunReport
from sessionproof.store import Store
from sessionproof.telemetry import LiveExport

from .test_otlp_receiver import _spans as received_spans
from .test_otlp_receiver import receiver  # noqa: F401  (the fixture)

pytestmark = pytest.mark.slow  # most tests here take seconds each

Received = tuple[str, list[tuple[str, dict[str, str], bytes]]]


class Export(NamedTuple):
    """The faulty demo run's sessions, and the receiver to export them to."""

    sessions: list[Session]
    url: str
    received: list[tuple[str, dict[str, str], bytes]]

    def advance_all(self, live: LiveExport, sessions: Iterable[Session] | None = None) -> None:
        for session in self.sessions if sessions is None else sessions:
            live.advance(session)


@pytest.fixture
def export(
    faulty_run: tuple[Path, RunReport],
    receiver: Received,  # noqa: F811
) -> Export:
    store, report = faulty_run
    with Store.open_for_reading(store) as db:
        sessions = db.load_sessions(report.run_id)
    return Export(sessions, *receiver)


def test_a_live_export_carries_the_metrics_that_need_no_replay(
    export: Export,
) -> None:
    _, url, received = export
    with LiveExport(None, url, suite="demo") as live:
        export.advance_all(live)
    names: set[str] = set()
    for span in received_spans(received):
        for event in span.events:
            if event.name == "gen_ai.evaluation.result":
                attrs = {kv.key: kv.value.string_value for kv in event.attributes}
                names.add(attrs["gen_ai.evaluation.name"])
    assert {"session_success", "error_recovery_rate", "call_validity_rate"} <= names
    # Replaying the gold path costs about a run's CPU: left to `sessionproof export`.
    assert not names & {"survival_by_depth", "failure_source"}


def test_spans_leave_in_batches_of_whole_sessions(
    export: Export,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sessions, url, received = export
    monkeypatch.setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "20")
    with LiveExport(None, url, suite="demo") as live:
        export.advance_all(live)
    spans = received_spans(received)
    assert live.spans == len(spans) > 20
    assert len(received) > 1
    # Every root (one per session) made it, and no session was split across two requests.
    for request in received:
        in_request = received_spans([request])
        roots = {s.trace_id for s in in_request if not s.parent_span_id}
        assert {s.trace_id for s in in_request} == roots
    assert sum(not s.parent_span_id for s in spans) == len(sessions)


def test_waiting_spans_leave_after_the_schedule_delay(
    export: Export,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sessions, url, received = export
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
    with LiveExport(None, url, suite="demo") as live:
        live.advance(sessions[0])
        deadline = time.monotonic() + 10
        while not received and time.monotonic() < deadline:
            time.sleep(0.01)
        assert received, "nothing was sent before the export was closed"
    assert live.spans == len(received_spans(received))


def test_a_session_that_cannot_be_exported_does_not_stop_the_others(
    export: Export,
    caplog: pytest.LogCaptureFixture,
) -> None:
    sessions, url, received = export
    good = sessions[:2]
    broken = good[0].model_copy(update={"session_id": "broken", "events": [None]})
    with LiveExport(None, url, suite="demo") as live:
        export.advance_all(live, (good[0], broken, good[1]))
    roots = [s for s in received_spans(received) if not s.parent_span_id]
    assert len(roots) == 2
    assert "cannot export session broken" in caplog.text


def test_closing_sends_what_waits_without_waiting_for_the_schedule_delay(
    export: Export,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sessions, url, received = export
    # A schedule delay of an hour: the batch can leave only because the export closes.
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", str(3_600_000))
    live = LiveExport(None, url, suite="demo")
    assert live.ready.wait(30), "the export worker did not start"
    live.advance(sessions[0])
    closing = threading.Thread(target=live.close, name="close", daemon=True)
    closing.start()
    # The bound only keeps a broken close from hanging the suite: waiting for the
    # schedule delay would keep it open for an hour.
    closing.join(120)
    assert not closing.is_alive(), "close waited for the schedule delay"
    assert live.spans == len(received_spans(received)) > 0


def test_credentials_go_down_the_pipe_not_on_the_command_line(
    receiver: Received,  # noqa: F811
) -> None:
    url, _ = receiver
    secret = "Basic c2stc2VjcmV0LXRva2Vu"
    with LiveExport(None, url, {"Authorization": secret}, suite="demo") as live:
        args = " ".join(str(a) for a in live.worker.args)
        assert url not in args and secret not in args
        assert live.ready.wait(30)


def test_a_dead_worker_costs_the_export_its_sessions_not_the_run(
    export: Export,
    caplog: pytest.LogCaptureFixture,
) -> None:
    sessions, url, received = export
    live = LiveExport(None, url, suite="demo")
    assert live.ready.wait(30)
    live.worker.kill()
    live.worker.wait()
    export.advance_all(live)
    live.close()  # no exception: the run's sessions are the store's, not the export's
    assert live.dropped == len(sessions)
    assert not received
    assert "the OTLP export worker is gone" in caplog.text
    assert "exit code -9" in caplog.text


def test_a_worker_that_cannot_start_is_a_clear_error(
    receiver: Received,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, _ = receiver
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    with pytest.raises(InfraError, match="cannot start the OTLP export worker"):
        LiveExport(None, url, suite="demo")


def test_a_worker_that_fails_at_start_up_is_told_and_the_run_goes_on(
    export: Export,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sessions, url, received = export
    # An interpreter that starts and fails at once: the worker ends before it is ready.
    false = shutil.which("false")
    assert false is not None
    monkeypatch.setattr(sys, "executable", false)
    live = LiveExport(None, url, suite="demo")
    assert live.ready.wait(30)
    export.advance_all(live, sessions[:3])
    live.close()
    assert not received
    assert "the OTLP export worker ended with exit code 1" in caplog.text


def test_sessions_past_the_queue_limit_are_dropped_with_one_warning(
    export: Export,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    sessions, url, received = export
    monkeypatch.setenv("OTEL_BSP_MAX_QUEUE_SIZE", "2")
    live = LiveExport(None, url, suite="demo")
    # A worker that stops reading (as one behind a slow collector does): the pipe fills, then
    # the queue.
    os.kill(live.worker.pid, signal.SIGSTOP)
    try:
        export.advance_all(live, sessions * 20)
    finally:
        os.kill(live.worker.pid, signal.SIGCONT)
    live.close()
    sent = 20 * len(sessions) - live.dropped
    assert live.dropped > 0 and sent > 0
    assert caplog.text.count("the OTLP collector is behind") == 1
    assert sum(not s.parent_span_id for s in received_spans(received)) == sent
