"""Both ways of handing a request to the SDK's exporter put the same bytes on the wire."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionproof.runs import RunReport
from sessionproof.store import Store
from sessionproof.telemetry._internal import default_resource, export_request, otlp_spans
from sessionproof.telemetry._otlp import exporter, post, public_post

from .test_otlp_receiver import receiver  # noqa: F401  (the fixture)

Received = tuple[str, list[tuple[str, dict[str, str], bytes]]]


@pytest.mark.slow
def test_an_exporter_without_its_http_client_gets_the_sdks_spans_and_sends_the_same(
    faulty_run: tuple[Path, RunReport],
    receiver: Received,  # noqa: F811
) -> None:
    store, report = faulty_run
    url, received = receiver
    with Store.open_for_reading(store) as db:
        sessions = db.load_sessions(report.run_id)
    spans = [span for session in sessions for span in otlp_spans(session)]
    request = export_request(spans, default_resource())
    sender = exporter(url)
    try:
        assert post(sender, request)  # the installed exporter's HTTP client: our bytes
        assert public_post(sender, request)  # what an exporter before 1.45 is given
    finally:
        sender.shutdown()  # type: ignore[no-untyped-call]
    assert len(received) == 2
    assert received[0][2] == received[1][2] == request.SerializeToString()
