"""Spans built straight as OTLP protobuf encode as the SDK encodes its own spans."""

from __future__ import annotations

from pathlib import Path

import pytest
from opentelemetry.sdk.resources import Resource

from sessionproof.runs import RunReport
from sessionproof.store import Store
from sessionproof.telemetry import session_spans
from sessionproof.telemetry._internal import (
    default_resource,
    export_request,
    otlp_proto,
    otlp_spans,
)


@pytest.mark.slow
@pytest.mark.parametrize("content", [False, True])
@pytest.mark.parametrize("compat", [None, "openinference", "langfuse"])
def test_the_direct_encoding_is_the_sdks_byte_for_byte(
    faulty_run: tuple[Path, RunReport], content: bool, compat: str | None
) -> None:
    store, report = faulty_run
    with Store.open_for_reading(store) as db:
        sessions = db.load_sessions(report.run_id)
    resource = default_resource().merge(Resource({"sessionproof.run.suite": "demo"}))
    direct = []
    through_sdk = []
    for session in sessions:
        direct.extend(otlp_spans(session, content=content, compat=compat))
        # The SDK's ReadableSpans, encoded by the SDK's own OTLP encoder.
        through_sdk.extend(
            session_spans(session, content=content, resource=resource, compat=compat)
        )
    assert otlp_proto(export_request(direct, resource)) == otlp_proto(through_sdk)
